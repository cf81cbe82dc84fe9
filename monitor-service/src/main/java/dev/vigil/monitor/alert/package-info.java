/**
 * The per-service alert state machine and the {@link dev.vigil.monitor.alert.Recorder}, the single
 * transactional entry point that turns a probe or pushed result into state, history and outbox
 * rows.
 */
package dev.vigil.monitor.alert;
