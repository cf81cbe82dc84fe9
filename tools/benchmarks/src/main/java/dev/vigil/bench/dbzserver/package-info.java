/**
 * Stock Debezium Server as a baseline: its distribution run as its own process on the benchmark's
 * PostgreSQL and Kafka, measured against Vigil's relay in the same run (catch-up, latency, live
 * saturation, footprint).
 */
package dev.vigil.bench.dbzserver;
