/**
 * Retention of check history and old outbox rows: deleted in small, separate transactions that
 * never touch the rows recorders lock.
 */
package dev.vigil.monitor.history;
