/**
 * Counting after a drill: the outbox (source of truth) against the Kafka topic, the notifier's
 * receipts and the receiver's store; plus the time each fault took to recover from.
 */
package dev.vigil.drills.reconcile;
