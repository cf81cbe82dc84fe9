package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.quiet.Silences;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link Recorder#recordAll} with set-based statements: a batch writes what recording its results
 * one by one writes, with a fixed number of statements, and hostile values fail only their own
 * result.
 */
@ExtendWith(VigilInfraExtension.class)
class RecorderSetBasedIT {
  private static final Instant BASE = Instant.parse("2026-01-01T00:00:00Z");
  // Open (FAILED), count a probe, close (RECOVERED), open again, count, close again, stay UP.
  private static final String PATTERN = "DDDDUDDDDUUDU";

  private DataSource dataSource;
  private TestDatabase db;
  private long order;

  @BeforeEach
  void setUp(TestDatabase db) {
    this.db = db;
    dataSource = db.dataSource();
    MonitorSchema.migrate(dataSource);
    TargetStore targets = new TargetStore(dataSource);
    for (String prefix : List.of("one", "all")) {
      for (int i = 0; i < 3; i++) {
        targets.add(TargetSpec.push(prefix + "-" + i));
      }
    }
  }

  @Test
  void aBatchWritesWhatRecordingItsResultsOneByOneWrites() throws SQLException {
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    List<Recorder.Pending> batch = new ArrayList<>();
    for (int k = 0; k < PATTERN.length(); k++) {
      for (int i = 0; i < 3; i++) {
        ProbeResult result = result("one-" + i, PATTERN.charAt(k), k, i);
        assertThat(recorder.record(result).accepted()).isTrue();
        batch.add(new Recorder.Pending(result("all-" + i, PATTERN.charAt(k), k, i), (c, o) -> {}));
      }
    }

    List<Recorder.Recorded> recorded = recorder.recordAll(batch);

    assertThat(recorded).allSatisfy(r -> assertThat(r.outcome().accepted()).isTrue());
    for (int i = 0; i < 3; i++) {
      for (String table : TABLES) {
        assertThat(rows(table, "all-" + i))
            .as("%s of all-%d", table, i)
            .isNotEmpty()
            .isEqualTo(rows(table, "one-" + i));
      }
    }
    assertThat(
            recorded.stream()
                .filter(r -> r.outcome().event() != null)
                .map(r -> r.result().service() + " " + r.outcome().event().kind()))
        .as("in the order given")
        .containsExactly(
            "all-0 FAILED",
            "all-1 FAILED",
            "all-2 FAILED",
            "all-0 RECOVERED",
            "all-1 RECOVERED",
            "all-2 RECOVERED",
            "all-0 FAILED",
            "all-1 FAILED",
            "all-2 FAILED",
            "all-0 RECOVERED",
            "all-1 RECOVERED",
            "all-2 RECOVERED");
  }

  @Test
  void aBatchTakesTheSameStatementsForOneServiceAndForHundreds() throws SQLException {
    TargetStore targets = new TargetStore(dataSource);
    for (int i = 0; i < 200; i++) {
      targets.add(TargetSpec.push("many-" + i));
    }
    AtomicInteger statements = new AtomicInteger();
    Recorder recorder = new Recorder(counting(dataSource, statements), new SimpleMeterRegistry());
    List<Recorder.Pending> batch = new ArrayList<>();
    // Three results per service: the third DOWN opens an incident and writes FAILED (600 results).
    for (int k = 0; k < 3; k++) {
      for (int i = 0; i < 200; i++) {
        batch.add(new Recorder.Pending(result("many-" + i, 'D', k, i), (c, o) -> {}));
      }
    }
    recorder.recordAll(batch.subList(0, 200)); // the first DOWN of each (no incident)
    int first = statements.getAndSet(0);
    recorder.recordAll(batch.subList(200, 600)); // the second and third (opens, FAILED, quiet)

    // Per transaction, not per result: lock and write, also when incidents open (the quiet
    // windows and silences are looked up only for services that have some: none here).
    assertThat(first).isEqualTo(2);
    assertThat(statements.get()).as("two transactions of 200").isEqualTo(2 * 2);
    assertThat(Tables.count(dataSource, "select count(*) from outbox where type = 'FAILED'"))
        .isEqualTo(200);
  }

  @Test
  void aResultWithATextTheDatabaseRefusesFailsAloneAndTheOthersCommit() throws SQLException {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Recorder recorder = new Recorder(dataSource, registry);
    List<Recorder.Pending> batch = new ArrayList<>();
    batch.add(new Recorder.Pending(result("all-0", 'D', 0, 0), (c, o) -> {}));
    // PostgreSQL text cannot hold NUL: the statement writing this error fails.
    batch.add(
        new Recorder.Pending(
            new ProbeResult(
                "all-1", ProbeStatus.DOWN, BASE, 1L, 500, "bad\u0000byte", ResultSource.PUSH, null),
            (c, o) -> {}));
    batch.add(new Recorder.Pending(result("all-2", 'D', 0, 2), (c, o) -> {}));

    List<Recorder.Recorded> recorded = recorder.recordAll(batch);

    assertThat(recorded)
        .extracting(Recorder.Recorded::committed)
        .containsExactly(true, false, true);
    assertThat(rows("select service from check_history order by service"))
        .containsExactly("all-0", "all-2");
    assertThat(registry.counter("vigil.monitor.recorder.batch.savepoint.redos").count())
        .isEqualTo(1.0);
  }

  @Test
  void pushedStartedAtFarInThePastOrFutureIsStoredExactly() throws SQLException {
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    Instant future = Instant.parse("+12345-06-07T08:09:10.123456Z");
    Instant past = Instant.parse("-0044-03-15T12:00:00.000001Z");
    List<Recorder.Recorded> recorded =
        recorder.recordAll(
            List.of(
                new Recorder.Pending(push("all-0", future), (c, o) -> {}),
                new Recorder.Pending(push("all-1", past), (c, o) -> {})));

    assertThat(recorded).allSatisfy(r -> assertThat(r.committed()).isTrue());
    assertThat(
            rows(
                "select (extract(epoch from started_at) * 1000000)::bigint from check_history"
                    + " order by service"))
        .containsExactly(micros(future), micros(past));
  }

  @Test
  void aSilencedServiceInABatchOpensQuietlyWhileTheOthersAnnounce() throws SQLException {
    new Silences(dataSource).add("all-1", null, "ops", "deploy", Instant.now().plusSeconds(3600));
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    List<Recorder.Pending> batch = new ArrayList<>();
    for (int k = 0; k < 4; k++) {
      for (int i = 0; i < 3; i++) {
        batch.add(new Recorder.Pending(result("all-" + i, "DDDU".charAt(k), k, i), (c, o) -> {}));
      }
    }

    recorder.recordAll(batch);

    // all-1's incident was opened and closed unannounced: neither FAILED nor RECOVERED.
    assertThat(rows("select aggregateid || ' ' || type from outbox order by seq"))
        .containsExactly("all-0 FAILED", "all-0 RECOVERED", "all-2 FAILED", "all-2 RECOVERED");
    assertThat(
            rows(
                "select service || ' ' || (announced_at is not null) || ' ' || probe_count"
                    + " from incidents order by service"))
        .containsExactly("all-0 true 4", "all-1 false 4", "all-2 true 4");
  }

  @Test
  void healthSinceMovesWhenTheStatusChangesWithinABatchEvenIfItEndsAsItBegan() throws SQLException {
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    recorder.record(result("all-0", 'U', 0, 0));
    recorder.record(result("all-1", 'U', 0, 1));
    List<String> before = rows("select since::text from health_status where service = 'all-1'");

    recorder.recordAll(
        List.of(
            new Recorder.Pending(result("all-0", 'D', 1, 0), (c, o) -> {}),
            new Recorder.Pending(result("all-0", 'U', 2, 0), (c, o) -> {}),
            new Recorder.Pending(result("all-1", 'U', 1, 1), (c, o) -> {}),
            new Recorder.Pending(result("all-1", 'U', 2, 1), (c, o) -> {})));

    assertThat(rows("select service from health_status where since = checked_at order by 1"))
        .as("UP, DOWN, UP: the status changed twice, since moved")
        .containsExactly("all-0");
    assertThat(rows("select since::text from health_status where service = 'all-1'"))
        .as("UP all along: since kept")
        .isEqualTo(before);
  }

  private static final List<String> TABLES =
      List.of(
          """
          select status || ' ' || started_at || ' ' || coalesce(error, '-') || ' ' || source
            from check_history where service = ? order by id""",
          """
          select status || ' ' || coalesce(error, '-') || ' ' || started_at
            from health_status where service = ?""",
          """
          select concat_ws(' ', consecutive_failures, consecutive_successes,
                           failures_before_successes, open_incident_id is null, last_error,
                           last_started_at)
            from alert_state where service = ?""",
          """
          select concat_ws(' ', first_error, last_error, probe_count, closed_at is null,
                           announced_at is null)
            from incidents where service = ? order by opened_at, closed_at is null""",
          """
          select type || ' ' || (payload - 'eventId' - 'incidentId' - 'occurredAt'
                                 - 'service' - 'downtime' - 'downtimeSeconds' - 'openedAt')::text
            from outbox where aggregateid = ? order by seq""");

  private List<String> rows(String sql, String service) throws SQLException {
    try (Connection c = db.connect();
        var statement = c.prepareStatement(sql)) {
      statement.setString(1, service);
      List<String> rows = new ArrayList<>();
      try (var rs = statement.executeQuery()) {
        while (rs.next()) {
          rows.add(rs.getString(1));
        }
      }
      return rows;
    }
  }

  private List<String> rows(String sql) throws SQLException {
    try (Connection c = db.connect()) {
      return Tables.rows(c, sql);
    }
  }

  /** A claimed result: {@code U} or {@code D}, claimed after every earlier one. */
  private ProbeResult result(String service, char status, int step, int i) {
    boolean up = status == 'U';
    return new ProbeResult(
        service,
        up ? ProbeStatus.UP : ProbeStatus.DOWN,
        BASE.plusSeconds(step).plusMillis(i),
        3L,
        up ? 200 : 503,
        up ? null : "HTTP 503 at step " + step,
        ResultSource.PROBE,
        ++order);
  }

  private static ProbeResult push(String service, Instant startedAt) {
    return new ProbeResult(
        service, ProbeStatus.UP, startedAt, null, null, null, ResultSource.PUSH, null);
  }

  private static String micros(Instant instant) {
    return Long.toString(instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000);
  }

  /** {@code dataSource} whose connections count the statements they prepare. */
  private static DataSource counting(DataSource dataSource, AtomicInteger statements) {
    return (DataSource)
        Proxy.newProxyInstance(
            RecorderSetBasedIT.class.getClassLoader(),
            new Class<?>[] {DataSource.class},
            (proxy, method, args) -> {
              Object result = invoke(method, dataSource, args);
              if (!method.getName().equals("getConnection")) {
                return result;
              }
              Connection connection = (Connection) result;
              return Proxy.newProxyInstance(
                  RecorderSetBasedIT.class.getClassLoader(),
                  new Class<?>[] {Connection.class},
                  (p, m, a) -> {
                    if (m.getName().startsWith("prepare")
                        || m.getName().equals("createStatement")) {
                      statements.incrementAndGet();
                    }
                    return invoke(m, connection, a);
                  });
            });
  }

  private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args)
      throws Throwable {
    try {
      return method.invoke(target, args);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }
}
