package dev.vigil.bench.relay;

import dev.vigil.bench.CpuMeter;
import dev.vigil.bench.outbox.OutboxRun;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CPU of the relay running in this JVM, apart from everything else the benchmark runs here (the
 * broker, the writers, the watcher): the CPU time of the relay's own threads (ThreadMXBean), and of
 * the PostgreSQL walsender process that serves its replication slot ({@code /proc/<pid>/stat}).
 *
 * <p>The relay's threads are the ones that did not exist before it started ({@link #before()}),
 * less the benchmark's own short-lived threads (writers): Debezium's coordinator and engine
 * threads, the relay's engine thread, its producer's network thread, its HTTP and lock threads. GC
 * and JIT threads are not Java threads and are not counted, so the figure is the CPU the relay's
 * code runs on, not its whole process.
 */
final class RelayCpuMeter {
  private static final Logger LOG = LoggerFactory.getLogger(RelayCpuMeter.class);
  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
  private static final String WALSENDER_PID =
      """
      select s.active_pid
        from pg_replication_slots s
        join pg_stat_activity a on a.pid = s.active_pid and a.backend_type = 'walsender'
       where s.slot_name = ?
      """;

  private static final Pattern RELAY_THREADS =
      Pattern.compile(
          "debezium-|pool-\\d+-thread-|kafka-producer-network-thread \\| vigil-relay|relay-|Thread-");
  private static final Duration WALSENDER_WAIT = Duration.ofSeconds(60);

  private final Set<Long> foreign;

  private RelayCpuMeter(Set<Long> foreign) {
    this.foreign = foreign;
  }

  /** Call before the relay starts: every thread alive now is not the relay's. */
  static RelayCpuMeter before() {
    Set<Long> ids = new HashSet<>();
    for (long id : THREADS.getAllThreadIds()) {
      ids.add(id);
    }
    return new RelayCpuMeter(ids);
  }

  /** CPU used so far by the relay's threads and by the walsender of {@code slot}. */
  Sample sample(DataSource postgres, String slot) {
    long pid = walsenderPid(postgres, slot);
    Map<String, Long> byThread = new TreeMap<>();
    long nanos = 0;
    for (ThreadInfo info : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
      if (info == null || foreign.contains(info.getThreadId()) || benchmarkOwn(info)) {
        continue;
      }
      long cpu = THREADS.getThreadCpuTime(info.getThreadId());
      if (cpu > 0) {
        nanos += cpu;
        byThread.merge(group(info.getThreadName()), cpu, Long::sum);
      }
    }
    return new Sample(nanos / 1e9, CpuMeter.processCpuSeconds(pid), pid, byThread);
  }

  private static boolean benchmarkOwn(ThreadInfo info) {
    return !RELAY_THREADS.matcher(info.getThreadName()).lookingAt();
  }

  /** Thread names without their numbers, so pools add up to one row. */
  private static String group(String name) {
    return name.replaceAll("[0-9]+", "N");
  }

  /** The walsender of {@code slot}: a relay reports streaming a moment before it connects. */
  private static long walsenderPid(DataSource postgres, String slot) {
    long deadline = System.nanoTime() + WALSENDER_WAIT.toNanos();
    long pid;
    while ((pid = activeWalsender(postgres, slot)) == 0) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException(
            "no walsender is serving slot " + slot + " after " + WALSENDER_WAIT);
      }
      OutboxRun.sleep(20);
    }
    return pid;
  }

  private static long activeWalsender(DataSource postgres, String slot) {
    try (Connection c = postgres.getConnection();
        PreparedStatement ps = c.prepareStatement(WALSENDER_PID)) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot find the walsender of slot " + slot, e);
    }
  }

  /**
   * CPU seconds used so far.
   *
   * @param jvmSeconds the relay's threads
   * @param walsenderSeconds the walsender process serving the slot
   * @param walsenderPid its pid (a new one after a relay restart)
   * @param byThread nanoseconds by thread-name group, for the log
   */
  record Sample(
      double jvmSeconds, double walsenderSeconds, long walsenderPid, Map<String, Long> byThread) {

    /**
     * CPU from {@code start} to this sample over {@code events}: ms per 1,000 events and cores over
     * {@code seconds}; logs the relay's threads by CPU.
     */
    Map<String, Double> since(Sample start, long events, double seconds, String label) {
      if (start.walsenderPid != walsenderPid) {
        throw new IllegalStateException(
            "the walsender changed during the measurement ("
                + start.walsenderPid
                + " -> "
                + walsenderPid
                + "): the relay restarted");
      }
      double jvm = jvmSeconds - start.jvmSeconds;
      double wal = walsenderSeconds - start.walsenderSeconds;
      Map<String, Double> m = new LinkedHashMap<>();
      m.put("events", (double) events);
      m.put("jvm_ms_per_1k", events == 0 ? Double.NaN : jvm * 1e6 / events);
      m.put("walsender_ms_per_1k", events == 0 ? Double.NaN : wal * 1e6 / events);
      m.put("jvm_cores", jvm / seconds);
      m.put("walsender_cores", wal / seconds);
      StringBuilder threads = new StringBuilder();
      byThread.entrySet().stream()
          .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
          .limit(8)
          .forEach(
              e ->
                  threads
                      .append(" [")
                      .append(e.getKey())
                      .append("]=")
                      .append(
                          (e.getValue() - start.byThread.getOrDefault(e.getKey(), 0L)) / 1_000_000)
                      .append("ms"));
      LOG.info(
          "relay cpu case={} events={} jvmMs={} walsenderMs={} threads:{}",
          label,
          events,
          Math.round(jvm * 1000),
          Math.round(wal * 1000),
          threads);
      return m;
    }
  }
}
