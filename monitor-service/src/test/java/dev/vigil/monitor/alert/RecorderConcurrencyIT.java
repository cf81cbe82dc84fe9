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
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Two recorder instances (each with its own pool, like two monitor processes) x 8 threads record
 * interleaved results for one service. The committed history, replayed serially through the state
 * machine, must give the same counters and the same incidents and outbox rows.
 */
@ExtendWith(VigilInfraExtension.class)
class RecorderConcurrencyIT {
  private static final String SERVICE = "checkout";
  private static final int THREADS_PER_RECORDER = 8;
  private static final int RESULTS_PER_THREAD = 40;

  @Test
  void concurrentRecordersAgreeWithASerialReplayOfTheCommittedOrder(TestDatabase db)
      throws Exception {
    MonitorSchema.migrate(db.dataSource());
    new TargetStore(db.dataSource()).add(TargetSpec.push(SERVICE));
    Instant base = Instant.parse("2026-01-01T00:00:00Z");
    AtomicLong ticket = new AtomicLong();
    AtomicInteger rejected = new AtomicInteger();

    try (HikariDataSource poolA = pool(db);
        HikariDataSource poolB = pool(db);
        ExecutorService threads = Executors.newFixedThreadPool(2 * THREADS_PER_RECORDER)) {
      List<Recorder> recorders =
          List.of(
              new Recorder(poolA, new SimpleMeterRegistry()),
              new Recorder(poolB, new SimpleMeterRegistry()));
      CountDownLatch start = new CountDownLatch(1);
      List<Future<?>> futures = new ArrayList<>();
      for (int t = 0; t < 2 * THREADS_PER_RECORDER; t++) {
        Recorder recorder = recorders.get(t % 2);
        futures.add(
            threads.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < RESULTS_PER_THREAD; i++) {
                    long n = ticket.getAndIncrement();
                    // Runs of five DOWN then five UP in ticket order: enough for several incidents.
                    ProbeStatus status = (n / 5) % 2 == 0 ? ProbeStatus.DOWN : ProbeStatus.UP;
                    ProbeResult result =
                        new ProbeResult(
                            SERVICE,
                            status,
                            base.plusMillis(n),
                            1L,
                            status == ProbeStatus.UP ? 200 : 503,
                            status == ProbeStatus.UP ? null : "HTTP 503 #" + n,
                            ResultSource.PUSH,
                            null);
                    if (!recorder.record(result).accepted()) {
                      rejected.incrementAndGet();
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> future : futures) {
        future.get();
      }
    }

    try (Connection connection = db.connect()) {
      List<String> history =
          Tables.rows(connection, "select status, started_at from check_history order by id");
      int total = 2 * THREADS_PER_RECORDER * RESULTS_PER_THREAD;
      assertThat(history.size() + rejected.get()).isEqualTo(total);

      AlertStateMachine.State state = AlertStateMachine.State.INITIAL;
      int opened = 0;
      int closed = 0;
      List<String> expectedOutbox = new ArrayList<>();
      String previousStart = "";
      for (String row : history) {
        String[] parts = row.split(" \\| ");
        assertThat(parts[1]).as("committed order is start order").isGreaterThan(previousStart);
        previousStart = parts[1];
        AlertStateMachine.Step step =
            AlertStateMachine.apply(state, ProbeStatus.valueOf(parts[0]), 3, 1, UUID.randomUUID());
        if (step.action() == AlertStateMachine.Action.OPEN) {
          opened++;
          expectedOutbox.add("FAILED");
        } else if (step.action() == AlertStateMachine.Action.CLOSE) {
          closed++;
          expectedOutbox.add("RECOVERED");
        }
        state = step.next();
      }
      assertThat(opened).as("the run pattern must produce several incidents").isGreaterThan(3);

      assertThat(
              Tables.rows(
                  connection,
                  "select consecutive_failures, consecutive_successes, open_incident_id is not null"
                      + " from alert_state"))
          .containsExactly(
              state.failures()
                  + " | "
                  + state.successes()
                  + " | "
                  + (state.openIncident() != null ? "t" : "f"));
      assertThat(Tables.rows(connection, "select count(*) from incidents"))
          .containsExactly(String.valueOf(opened));
      assertThat(
              Tables.rows(connection, "select count(*) from incidents where closed_at is not null"))
          .containsExactly(String.valueOf(closed));
      assertThat(
              Tables.rows(connection, "select type, count(*) from outbox group by type order by 1"))
          .containsExactly("FAILED | " + opened, "RECOVERED | " + closed);
      assertThat(
              Tables.rows(
                  connection,
                  "select count(*) from incidents i where (select count(*) from outbox o"
                      + " where o.incident_id = i.id and o.type = 'FAILED') <> 1"))
          .as("exactly one FAILED per incident")
          .containsExactly("0");
      // Commit order without a clock: an outbox row and the check_history row of the same
      // recording share a transaction id (xmin), and check_history ids are drawn under the
      // service's row lock, so ordering outbox rows by that id is the order they were committed in.
      // (created_at is the recorder's wall clock, which may step back between two recordings.)
      assertThat(
              Tables.rows(
                  connection,
                  "select count(*), string_agg(o.type, ',' order by h.id)"
                      + " from outbox o join check_history h on h.xmin = o.xmin"))
          .as("in commit order, the outbox holds exactly the serial replay's alerts")
          .containsExactly(expectedOutbox.size() + " | " + String.join(",", expectedOutbox));
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  private static HikariDataSource pool(TestDatabase db) {
    HikariConfig config = new HikariConfig();
    config.setJdbcUrl(db.jdbcUrl());
    config.setUsername(db.user());
    config.setPassword(db.password());
    config.setMaximumPoolSize(4);
    return new HikariDataSource(config);
  }
}
