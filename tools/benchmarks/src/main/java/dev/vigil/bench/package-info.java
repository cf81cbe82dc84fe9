/**
 * The benchmark runner: starts PostgreSQL and Kafka, runs the suites, and writes the table, the
 * JSON report and REPORT.md.
 */
package dev.vigil.bench;
