/**
 * The notifier's deliveries to a local webhook receiver, and the whole pipeline end to end: FAILED
 * committed in the outbox → relay → Kafka → notifier → receiver.
 */
package dev.vigil.bench.delivery;
