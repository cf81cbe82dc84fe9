package dev.vigil.harness.junit;

/**
 * The running PostgreSQL and Kafka behind the extension: embedded in this JVM by default, or
 * Testcontainers with {@code -Dvigil.infra=containers} (Maven profile {@code containers}).
 */
interface Infrastructure extends AutoCloseable {
  TestPostgres postgres();

  TestKafka kafka();

  @Override
  void close();
}
