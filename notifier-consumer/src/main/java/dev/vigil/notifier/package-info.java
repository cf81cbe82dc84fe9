/**
 * The notifier service: configuration, wiring and the process entry point. Turns alert events on
 * Kafka into idempotent receipts and ordered, retried, signed webhook deliveries.
 */
package dev.vigil.notifier;
