/**
 * Outbox load shared by the relay suites: writers that commit alert rows at a fixed or maximal rate
 * and a watcher that times each row's arrival in Kafka; also the database-limit baseline.
 */
package dev.vigil.bench.outbox;
