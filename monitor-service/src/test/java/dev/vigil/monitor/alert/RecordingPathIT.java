package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One recording path: a result recorded alone takes the statements of a batch of one (the one lock
 * statement, the quiet lookup only when an incident opens, the incident update only when an open
 * one is counted or closed, the one set-based write), never statements of its own.
 */
@ExtendWith(VigilInfraExtension.class)
class RecordingPathIT {
  private static final String SERVICE = "checkout";

  private DataSource dataSource;
  private final AtomicInteger statements = new AtomicInteger();
  private Recorder recorder;
  private Instant startedAt = Instant.parse("2026-01-01T00:00:00Z");

  @BeforeEach
  void setUp(TestDatabase db) {
    dataSource = db.dataSource();
    MonitorSchema.migrate(dataSource);
    new TargetStore(dataSource).add(TargetSpec.push(SERVICE));
    recorder = new Recorder(counting(dataSource), new SimpleMeterRegistry());
  }

  @Test
  void aLoneResultTakesTheStatementsOfABatchOfOne() {
    assertThat(statementsOf(down())).as("first DOWN: lock, write").isEqualTo(2);
    assertThat(statementsOf(down())).as("second DOWN: lock, write").isEqualTo(2);
    assertThat(statementsOf(down()))
        .as("third DOWN opens: lock, write (incident and FAILED in it; no window or silence)")
        .isEqualTo(2);
    assertThat(statementsOf(down()))
        .as("DOWN while open: lock, incident counted, write")
        .isEqualTo(3);
    assertThat(statementsOf(up()))
        .as("UP closes: lock, incident closed, write (RECOVERED in it)")
        .isEqualTo(3);

    assertThat(Tables.count(dataSource, "select count(*) from outbox")).isEqualTo(2);
    assertThat(Tables.count(dataSource, "select probe_count from incidents")).isEqualTo(5);
  }

  @Test
  void aServiceWithASilenceHasItsQuietPeriodLookedUpAndItsChecksMarkedAsMaintenance() {
    assertThat(statementsOf(up())).as("no window or silence: lock, write").isEqualTo(2);
    Tables.count(
        dataSource,
        "with s as (insert into silences (id, service, created_by, reason, ends_at) values"
            + " (gen_random_uuid(), 'checkout', 'ops', 'deploy', now() + interval '1 hour')"
            + " returning 1) select count(*) from s");

    assertThat(statementsOf(down()))
        .as("silenced: lock, quiet windows, silences, write")
        .isEqualTo(4);
    assertThat(Tables.count(dataSource, "select count(*) from check_history where maintenance"))
        .isEqualTo(1);
    assertThat(Tables.count(dataSource, "select count(*) from check_history where not maintenance"))
        .isEqualTo(1);
  }

  @Test
  void aStaleResultAloneOnlyLocksAndWritesNothing() {
    long claimed = Tables.count(dataSource, "select nextval('result_order')");
    recorder.record(
        ProbeResult.down(SERVICE, next(), 5, 503, "HTTP 503").withOrder(claimed + 1_000));
    Map<String, List<String>> before = Tables.snapshot(dataSource);
    statements.set(0);

    RecordOutcome stale =
        recorder.record(ProbeResult.up(SERVICE, next(), 5, 200).withOrder(claimed));

    assertThat(stale.accepted()).isFalse();
    assertThat(statements.get()).as("the lock only").isEqualTo(1);
    assertThat(Tables.snapshot(dataSource)).isEqualTo(before);
  }

  private ProbeResult down() {
    return ProbeResult.down(SERVICE, next(), 5, 503, "HTTP 503");
  }

  private ProbeResult up() {
    return ProbeResult.up(SERVICE, next(), 5, 200);
  }

  private Instant next() {
    startedAt = startedAt.plusSeconds(1);
    return startedAt;
  }

  /** Records {@code result} alone and returns the statements its transaction prepared. */
  private int statementsOf(ProbeResult result) {
    statements.set(0);
    assertThat(recorder.record(result).accepted()).isTrue();
    return statements.get();
  }

  /** {@code target} whose connections count the statements they prepare. */
  private DataSource counting(DataSource target) {
    return proxy(
        DataSource.class,
        target,
        (method, result) ->
            method.getName().equals("getConnection")
                ? proxy(
                    Connection.class,
                    (Connection) result,
                    (m, r) -> {
                      if (m.getName().startsWith("prepare")
                          || m.getName().equals("createStatement")) {
                        statements.incrementAndGet();
                      }
                      return r;
                    })
                : result);
  }

  private interface After {
    Object apply(Method method, Object result);
  }

  private static <T> T proxy(Class<T> type, T target, After after) {
    return type.cast(
        Proxy.newProxyInstance(
            RecordingPathIT.class.getClassLoader(),
            new Class<?>[] {type},
            (p, method, args) -> {
              try {
                return after.apply(method, method.invoke(target, args));
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            }));
  }
}
