/**
 * Baseline (a): the polling outbox relay a team would otherwise build — claim rows with FOR UPDATE
 * SKIP LOCKED and a lease, publish them to Kafka, mark them done.
 */
package dev.vigil.bench.polling;
