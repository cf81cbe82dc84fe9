/**
 * JUnit 5 extension giving integration tests a real PostgreSQL and a real Kafka broker, started
 * once per test JVM, with per-test isolation (a fresh database, unique topic and slot names).
 */
package dev.vigil.harness.junit;
