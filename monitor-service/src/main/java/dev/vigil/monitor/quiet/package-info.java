/**
 * Quiet periods: recurring maintenance windows and ad-hoc silences, the pure decision whether a
 * service is quiet at an instant, and their storage. The recorder and the announcer consult it.
 */
package dev.vigil.monitor.quiet;
