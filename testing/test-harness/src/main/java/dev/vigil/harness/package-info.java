/**
 * Real infrastructure started in-process: an embedded PostgreSQL 17 with logical decoding and an
 * Apache Kafka 4.3 broker in KRaft mode. Used by integration tests (through {@code junit}) and by
 * the local stack.
 */
package dev.vigil.harness;
