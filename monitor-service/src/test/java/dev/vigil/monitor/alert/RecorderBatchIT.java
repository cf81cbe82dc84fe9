package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link Recorder#recordAll}: one transaction for many results, one savepoint per result, a fixed
 * lock order, and a failed transaction retried as single ones.
 */
@ExtendWith(VigilInfraExtension.class)
class RecorderBatchIT {
  private static final int SERVICES = 30;
  private static final Instant BASE = Instant.parse("2026-01-01T00:00:00Z");

  private TestDatabase db;
  private DataSource dataSource;

  @BeforeEach
  void setUp(TestDatabase db) throws SQLException {
    this.db = db;
    dataSource = db.dataSource();
    MonitorSchema.migrate(dataSource);
    TargetStore targets = new TargetStore(dataSource);
    for (int i = 0; i < SERVICES; i++) {
      targets.add(TargetSpec.push(service(i)));
    }
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("create table side_effects (service text not null)");
    }
  }

  @Test
  void oneUnknownServiceIsReportedAloneWhileTheOthersCommit() throws SQLException {
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    List<Recorder.Pending> batch = new ArrayList<>();
    batch.add(pending(result(service(2), 1)));
    batch.add(pending(result("no-such-service", 2)));
    batch.add(pending(result(service(1), 3)));

    List<Recorder.Recorded> recorded = recorder.recordAll(batch);

    assertThat(recorded)
        .extracting(r -> r.result().service())
        .containsExactly(service(2), "no-such-service", service(1));
    assertThat(recorded.get(0).committed()).isTrue();
    assertThat(recorded.get(1).committed()).isFalse();
    assertThat(recorded.get(1).failure()).isInstanceOf(UnknownServiceException.class);
    assertThat(recorded.get(2).committed()).isTrue();
    assertThat(recorded.get(2).outcome().accepted()).isTrue();
    assertThat(rows("select service from check_history order by service"))
        .containsExactly(service(1), service(2));
    // The failed result's own work rolled back with it; the others' committed.
    assertThat(rows("select service from side_effects order by service"))
        .containsExactly(service(1), service(2));
  }

  @Test
  void aFailingStatementRollsBackOnlyItsOwnResult() throws SQLException {
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    List<Recorder.Pending> batch = new ArrayList<>();
    batch.add(pending(result(service(3), 1)));
    batch.add(
        new Recorder.Pending(
            result(service(4), 2),
            (connection, outcome) -> {
              try (Statement s = connection.createStatement()) {
                s.execute("insert into side_effects (service) values (null)"); // not null
              }
            }));
    batch.add(pending(result(service(5), 3)));

    List<Recorder.Recorded> recorded = recorder.recordAll(batch);

    assertThat(recorded)
        .extracting(Recorder.Recorded::committed)
        .containsExactly(true, false, true);
    assertThat(recorded.get(1).failure()).hasMessageContaining(service(4));
    assertThat(rows("select service from check_history order by service"))
        .containsExactly(service(3), service(5));
    assertThat(rows("select service from alert_state where last_result_seq = 2")).isEmpty();
  }

  @Test
  void overlappingBatchesFromTwoInstancesNeitherDeadlockNorReorder() throws Exception {
    AtomicLong claims = new AtomicLong();
    int rounds = 15;
    List<Recorder.Recorded> all = Collections.synchronizedList(new ArrayList<>());
    try (HikariDataSource poolA = pool();
        HikariDataSource poolB = pool();
        ExecutorService threads = Executors.newFixedThreadPool(2)) {
      List<Future<?>> futures = new ArrayList<>();
      for (HikariDataSource pool : List.of(poolA, poolB)) {
        Recorder recorder = new Recorder(pool, new SimpleMeterRegistry());
        futures.add(
            threads.submit(
                () -> {
                  Random random = new Random(pool.hashCode());
                  for (int round = 0; round < rounds; round++) {
                    // Every service in every batch, in a shuffled order: without the fixed lock
                    // order two such batches lock the same rows in opposite orders.
                    List<Recorder.Pending> batch = new ArrayList<>();
                    for (int i = 0; i < SERVICES; i++) {
                      batch.add(pending(result(service(i), claims.incrementAndGet())));
                    }
                    Collections.shuffle(batch, random);
                    all.addAll(recorder.recordAll(batch));
                  }
                  return null;
                }));
      }
      for (Future<?> future : futures) {
        future.get(5, TimeUnit.MINUTES);
      }
    }

    assertThat(all).hasSize(2 * rounds * SERVICES);
    assertThat(all)
        .filteredOn(r -> !r.committed())
        .extracting(r -> r.failure().toString())
        .as("no result may fail (a deadlock would fail one)")
        .isEmpty();
    long accepted = all.stream().filter(r -> r.outcome().accepted()).count();
    // How many results are stale depends on how the two threads' batches interleave (none when the
    // scheduler happens to run them one after the other); what holds either way is checked here.
    assertThat(Tables.count(dataSource, "select count(*) from check_history")).isEqualTo(accepted);
    for (int i = 0; i < SERVICES; i++) {
      String service = service(i);
      // Accepted results were committed in claim order; the newest claim always wins.
      List<String> starts =
          rows(
              "select started_at from check_history where service = '" + service + "' order by id");
      assertThat(starts).isSorted();
      long newest =
          all.stream()
              .filter(r -> r.result().service().equals(service))
              .mapToLong(r -> r.result().order())
              .max()
              .orElseThrow();
      assertThat(rows("select last_result_seq from alert_state where service = '" + service + "'"))
          .containsExactly(Long.toString(newest));
    }
  }

  @Test
  void aConnectionLostMidBatchWritesNothingHalfAndEveryResultIsRetriedAlone() throws Exception {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Recorder recorder = new Recorder(dataSource, registry);
    AtomicBoolean killed = new AtomicBoolean();
    List<Recorder.Pending> batch = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      ProbeResult result = result(service(i), i + 1);
      boolean killer = i == 3;
      batch.add(
          new Recorder.Pending(
              result,
              (connection, outcome) -> {
                sideEffect(connection, result.service());
                if (killer && killed.compareAndSet(false, true)) {
                  terminate(connection);
                }
              }));
    }

    List<Recorder.Recorded> recorded = recorder.recordAll(batch);

    assertThat(killed).isTrue();
    assertThat(recorded).allSatisfy(r -> assertThat(r.committed()).isTrue());
    // Each result and its own work exactly once: the lost transaction left nothing behind.
    assertThat(rows("select service from check_history order by service"))
        .containsExactly(service(0), service(1), service(2), service(3), service(4), service(5));
    assertThat(rows("select service from side_effects order by service"))
        .containsExactly(service(0), service(1), service(2), service(3), service(4), service(5));
    assertThat(registry.counter("vigil.monitor.recorder.batch.fallbacks").count()).isEqualTo(1.0);
  }

  @Test
  void queuedResultsAreRecordedTogetherAndEachCallerGetsItsOwnAnswer() throws Exception {
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    List<java.util.concurrent.CompletableFuture<RecordOutcome>> answers = new ArrayList<>();
    try (RecordQueue queue = new RecordQueue(recorder, 2, 50)) {
      for (int i = 0; i < SERVICES; i++) {
        answers.add(queue.submit(result(service(i), i + 1), (c, o) -> sideEffect(c, "q")));
      }
      java.util.concurrent.CompletableFuture<RecordOutcome> unknown =
          queue.submit(result("no-such-service", 999), (c, o) -> {});
      for (var answer : answers) {
        assertThat(answer.get(2, TimeUnit.MINUTES).accepted()).isTrue();
      }
      assertThat(unknown)
          .failsWithin(2, TimeUnit.MINUTES)
          .withThrowableOfType(java.util.concurrent.ExecutionException.class)
          .withCauseInstanceOf(UnknownServiceException.class);
    }
    assertThat(Tables.count(dataSource, "select count(*) from check_history")).isEqualTo(SERVICES);
    assertThat(Tables.count(dataSource, "select count(*) from side_effects")).isEqualTo(SERVICES);
  }

  private static Recorder.Pending pending(ProbeResult result) {
    return new Recorder.Pending(
        result, (connection, outcome) -> sideEffect(connection, result.service()));
  }

  private static void sideEffect(Connection connection, String service) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement("insert into side_effects (service) values (?)")) {
      s.setString(1, service);
      s.executeUpdate();
    }
  }

  /** Ends {@code connection}'s server process from another connection, as a crash would. */
  private void terminate(Connection connection) throws SQLException {
    int pid;
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("select pg_backend_pid()")) {
      rs.next();
      pid = rs.getInt(1);
    }
    try (Connection other = db.connect();
        Statement s = other.createStatement()) {
      s.execute("select pg_terminate_backend(" + pid + ", 10000)");
    }
  }

  private List<String> rows(String sql) throws SQLException {
    try (Connection c = db.connect()) {
      return Tables.rows(c, sql);
    }
  }

  private static ProbeResult result(String service, long order) {
    return new ProbeResult(
        service, ProbeStatus.UP, BASE.plusMillis(order), 1L, 200, null, ResultSource.PROBE, order);
  }

  private static String service(int i) {
    return "svc-" + i;
  }

  private HikariDataSource pool() {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.jdbcUrl());
    config.setUsername(db.user());
    config.setPassword(db.password());
    config.setMaximumPoolSize(2);
    return new HikariDataSource(config);
  }
}
