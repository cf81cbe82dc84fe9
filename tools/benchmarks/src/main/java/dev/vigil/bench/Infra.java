package dev.vigil.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.vigil.harness.EmbeddedKafkaBroker;
import dev.vigil.harness.EmbeddedPostgresServer;
import dev.vigil.kit.lifecycle.Closer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.flywaydb.core.Flyway;

/**
 * The PostgreSQL server (durable: fsync and synchronous commit on, so commits cost what they cost
 * in production) and the Kafka broker every suite shares, plus helpers to create fresh databases
 * and topics.
 */
public final class Infra implements AutoCloseable {
  /** Flyway location and history table of the monitor's schema (which holds the outbox). */
  public static final String MONITOR_LOCATION = "classpath:db/monitor";

  public static final String MONITOR_HISTORY = "flyway_monitor_history";

  private final Path postgresDataDir;
  private final EmbeddedPostgresServer postgres;
  private final EmbeddedKafkaBroker kafka;
  private final Admin admin;
  private final List<HikariDataSource> pools = new ArrayList<>();

  private Infra(Path postgresDataDir, EmbeddedPostgresServer postgres, EmbeddedKafkaBroker kafka) {
    this.postgresDataDir = postgresDataDir;
    this.postgres = postgres;
    this.kafka = kafka;
    this.admin =
        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()));
  }

  /**
   * Starts both servers in a fresh directory under {@code baseDir}; the directories of earlier runs
   * are deleted first (a run leaves gigabytes of WAL and Kafka logs behind).
   */
  public static Infra start(Path baseDir) {
    Path runDir = baseDir.resolve("run-" + System.currentTimeMillis());
    try {
      deleteEarlierRuns(baseDir);
      Files.createDirectories(runDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + runDir, e);
    }
    EmbeddedPostgresServer pg = EmbeddedPostgresServer.start(runDir.resolve("postgres"), 0, true);
    try {
      EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(runDir.resolve("kafka"), 0);
      return new Infra(runDir.resolve("postgres").resolve("data"), pg, broker);
    } catch (RuntimeException e) {
      pg.close();
      throw e;
    }
  }

  /** Creates {@code database} on the server unless it exists. */
  public void createDatabase(String database) {
    postgres.createDatabase(database);
  }

  /** The server's data directory (holds postmaster.pid, for CPU accounting). */
  private static void deleteEarlierRuns(Path baseDir) throws IOException {
    if (!Files.isDirectory(baseDir)) {
      return;
    }
    try (var runs = Files.list(baseDir)) {
      for (Path run : runs.filter(p -> p.getFileName().toString().startsWith("run-")).toList()) {
        try (var tree = Files.walk(run)) {
          for (Path p : tree.sorted(java.util.Comparator.reverseOrder()).toList()) {
            Files.deleteIfExists(p);
          }
        }
      }
    }
  }

  public Path postgresDataDir() {
    return postgresDataDir;
  }

  public String bootstrapServers() {
    return kafka.bootstrapServers();
  }

  public String jdbcUrl(String database) {
    return postgres.jdbcUrl(database);
  }

  /** Creates {@code database}, applies the monitor migrations, returns a pool of its own. */
  public HikariDataSource monitorDatabase(String database, int poolSize) {
    postgres.createDatabase(database);
    HikariDataSource pool = pool(database, poolSize);
    migrate(pool, MONITOR_LOCATION, MONITOR_HISTORY);
    return pool;
  }

  /** A connection pool to {@code database}, closed with this infra. */
  public synchronized HikariDataSource pool(String database, int poolSize) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(postgres.jdbcUrl(database));
    config.setUsername(EmbeddedPostgresServer.USER);
    config.setPassword("");
    config.setMaximumPoolSize(poolSize);
    config.setMinimumIdle(poolSize);
    config.setPoolName("bench-" + database);
    HikariDataSource pool = new HikariDataSource(config);
    pools.add(pool);
    return pool;
  }

  public static void migrate(DataSource dataSource, String location, String historyTable) {
    Flyway.configure()
        .dataSource(dataSource)
        .locations(location)
        .table(historyTable)
        .baselineOnMigrate(true)
        .baselineVersion("0")
        .load()
        .migrate();
  }

  /**
   * Creates {@code topic} with log-append timestamps: each record's timestamp is then the moment
   * the broker appended it, which is when an {@code acks=all} producer on this single-node broker
   * is acknowledged. The latency method relies on it.
   */
  public void createTopic(String topic, int partitions) {
    try {
      if (admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(topic)) {
        return;
      }
      admin
          .createTopics(
              Set.of(
                  new NewTopic(topic, partitions, (short) 1)
                      .configs(Map.of("message.timestamp.type", "LogAppendTime"))))
          .all()
          .get(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted creating topic " + topic, e);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot create topic " + topic, e);
    }
  }

  public Admin admin() {
    return admin;
  }

  /** Closes the pools, the admin client, the broker and the server; the first failure is thrown. */
  @Override
  public void close() {
    Closer closer = new Closer("benchmark infrastructure");
    closer.add("postgres", postgres);
    closer.add("kafka", kafka);
    closer.add("admin", admin);
    synchronized (this) {
      pools.forEach(closer::add);
    }
    closer.close();
  }
}
