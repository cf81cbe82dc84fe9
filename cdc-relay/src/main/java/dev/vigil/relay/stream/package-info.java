/**
 * The streaming path: embedded Debezium engine with the Outbox EventRouter, the Kafka publisher
 * that acknowledges a batch only after Kafka did, and offsets kept in PostgreSQL.
 */
package dev.vigil.relay.stream;
