/**
 * The per-service alert rule and the one path that records results: {@link
 * dev.vigil.monitor.alert.Recorder} (the entry point), one plan that decides and one writer, plus
 * the jobs that announce, remind, acknowledge and close incidents without a result.
 */
package dev.vigil.monitor.alert;
