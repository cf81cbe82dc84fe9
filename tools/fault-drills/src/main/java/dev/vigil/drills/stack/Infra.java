package dev.vigil.drills.stack;

import dev.vigil.harness.EmbeddedKafkaBroker;
import dev.vigil.harness.EmbeddedPostgresServer;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.flywaydb.core.Flyway;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * PostgreSQL and Kafka, started inside the drill JVM with their data under the work directory. Both
 * can be stopped and started again on the same port with the same data, which is how the drills
 * restart them mid-stream.
 *
 * <p>Databases: {@value #VIGIL_DB} holds the monitor's outbox and the notifier's receipts (the
 * services' migrations use separate history tables so they can share it), and the relay's offsets
 * if it keeps them in the database; {@value #RECEIVER_DB} is the reference receiver's own store.
 */
public final class Infra implements AutoCloseable {
  public static final String VIGIL_DB = "vigil";
  public static final String RECEIVER_DB = "receiver";

  private static final Logger LOG = LoggerFactory.getLogger(Infra.class);

  private final EmbeddedPostgresServer postgres;
  private final EmbeddedKafkaBroker kafka;

  private Infra(EmbeddedPostgresServer postgres, EmbeddedKafkaBroker kafka) {
    this.postgres = postgres;
    this.kafka = kafka;
  }

  /** Starts both servers under {@code workDir} and applies the monitor's outbox migrations. */
  public static Infra start(Path workDir) {
    EmbeddedPostgresServer postgres = EmbeddedPostgresServer.start(workDir.resolve("pg"), 0, false);
    EmbeddedKafkaBroker kafka;
    try {
      kafka = EmbeddedKafkaBroker.start(workDir.resolve("kafka"), 0);
    } catch (RuntimeException e) {
      postgres.stop();
      throw e;
    }
    Infra infra = new Infra(postgres, kafka);
    postgres.createDatabase(VIGIL_DB);
    postgres.createDatabase(RECEIVER_DB);
    Flyway.configure()
        .dataSource(infra.jdbcUrl(VIGIL_DB), EmbeddedPostgresServer.USER, "")
        .locations("classpath:db/monitor")
        .table("flyway_monitor_history")
        .load()
        .migrate();
    LOG.info("drill infra up postgresPort={} kafka={}", postgres.port(), kafka.bootstrapServers());
    return infra;
  }

  public String jdbcUrl(String database) {
    return postgres.jdbcUrl(database);
  }

  public String dbUser() {
    return EmbeddedPostgresServer.USER;
  }

  public Connection connect(String database) throws SQLException {
    return DriverManager.getConnection(jdbcUrl(database), dbUser(), "");
  }

  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  public void stopKafka() {
    kafka.stop();
  }

  public void startKafka() {
    kafka.start();
  }

  public void stopPostgres() {
    postgres.stop();
  }

  public void startPostgres() {
    postgres.start();
  }

  @Override
  public void close() {
    RuntimeException first = null;
    try {
      kafka.stop();
    } catch (RuntimeException e) {
      first = e;
    }
    try {
      postgres.stop();
    } catch (RuntimeException e) {
      if (first == null) {
        first = e;
      } else {
        first.addSuppressed(e);
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
