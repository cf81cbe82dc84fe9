package dev.vigil.harness.junit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/**
 * PostgreSQL 17 ({@code wal_level=logical}) and Apache Kafka 4.3 in containers. Stopping either
 * pauses its container so the address stays valid, which is what a broker or database outage looks
 * like to the services.
 */
final class ContainerInfrastructure implements Infrastructure {
  private PostgreSQLContainer postgresContainer;
  private KafkaContainer kafkaContainer;

  /** Null when Docker is usable, else the one-line reason the integration tests are skipped. */
  static String unavailableReason() {
    try {
      return DockerClientFactory.instance().isDockerAvailable()
          ? null
          : "containers profile: no Docker engine reachable, integration tests skipped";
    } catch (RuntimeException e) {
      return "containers profile: Docker check failed ("
          + e.getMessage()
          + "), integration tests skipped";
    }
  }

  @Override
  public synchronized TestPostgres postgres() {
    if (postgresContainer == null) {
      postgresContainer =
          new PostgreSQLContainer("postgres:17")
              .withCommand(
                  "postgres",
                  "-c",
                  "wal_level=logical",
                  "-c",
                  "max_replication_slots=64",
                  "-c",
                  "max_wal_senders=64",
                  "-c",
                  "max_connections=400",
                  "-c",
                  "fsync=off");
      postgresContainer.start();
    }
    return new ContainerPostgres(postgresContainer);
  }

  @Override
  public synchronized TestKafka kafka() {
    if (kafkaContainer == null) {
      kafkaContainer =
          new KafkaContainer("apache/kafka:4.3.0")
              // As the embedded broker: timed-out transactions aborted within a second.
              .withEnv("KAFKA_TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS", "1000");
      kafkaContainer.start();
    }
    return new ContainerKafka(kafkaContainer);
  }

  @Override
  public synchronized void close() {
    if (kafkaContainer != null) {
      kafkaContainer.stop();
    }
    if (postgresContainer != null) {
      postgresContainer.stop();
    }
  }

  /** "Stopping" a shared container pauses it, so its address and data survive the "start". */
  private abstract static class PausedOnStop {
    private final GenericContainer<?> container;

    PausedOnStop(GenericContainer<?> container) {
      this.container = container;
    }

    public void stop() {
      DockerClientFactory.instance().client().pauseContainerCmd(container.getContainerId()).exec();
    }

    public void start() {
      DockerClientFactory.instance()
          .client()
          .unpauseContainerCmd(container.getContainerId())
          .exec();
    }
  }

  private static final class ContainerPostgres extends PausedOnStop implements TestPostgres {
    private final PostgreSQLContainer container;

    ContainerPostgres(PostgreSQLContainer container) {
      super(container);
      this.container = container;
    }

    @Override
    public TestDatabase newDatabase() {
      String name = "t_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
      try (Connection connection =
              DriverManager.getConnection(
                  container.getJdbcUrl(), container.getUsername(), container.getPassword());
          Statement statement = connection.createStatement()) {
        statement.execute("create database " + name);
      } catch (SQLException e) {
        throw new IllegalStateException("cannot create database " + name, e);
      }
      return new TestDatabase(
          container.getHost(),
          container.getFirstMappedPort(),
          name,
          container.getUsername(),
          container.getPassword());
    }

    @Override
    public String host() {
      return container.getHost();
    }

    @Override
    public int port() {
      return container.getFirstMappedPort();
    }
  }

  private static final class ContainerKafka extends PausedOnStop implements TestKafka {
    private final KafkaContainer container;

    ContainerKafka(KafkaContainer container) {
      super(container);
      this.container = container;
    }

    @Override
    public String bootstrapServers() {
      return container.getBootstrapServers();
    }
  }
}
