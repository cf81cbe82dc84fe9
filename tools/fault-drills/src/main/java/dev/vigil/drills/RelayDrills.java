package dev.vigil.drills;

import dev.vigil.drills.stack.Infra;
import dev.vigil.drills.stack.ServiceProcess;
import dev.vigil.drills.stack.Stack;
import dev.vigil.drills.workload.CommittedEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The drills of the relay's loss and stall paths from outside (issue 28): a database restored
 * behind the stored offsets, a frozen active relay, one PostgreSQL transaction larger than the
 * Kafka transaction timeout allows.
 */
final class RelayDrills {
  static final String DATABASE_RESTORE = "database-restore";
  static final String RELAY_FREEZE = "relay-freeze";
  static final String OVERSIZED_TRANSACTION = "oversized-transaction";

  /** The bound the issue sets: a standby streams within 15 s of the active relay's freeze. */
  static final Duration TAKEOVER_BOUND = Duration.ofSeconds(15);

  /** The relay's exit code when it refuses to start (RelayMain). */
  static final int REFUSED_EXIT = 3;

  /** VIGIL_RELAY_TRANSACTION_TIMEOUT of the oversized-transaction drill's relay. */
  static final String SHORT_TRANSACTION_TIMEOUT = "1s";

  private static final Duration STARTUP = Duration.ofMinutes(5);

  private RelayDrills() {}

  /**
   * The data folder copied while relaying and restored: PostgreSQL stopped, its data folder
   * (replication slot included) copied, started; more rows relayed (the offsets in Kafka move past
   * the copy); the writers, every process and PostgreSQL stopped; the copy restored; PostgreSQL and
   * then the relay started. The relay must refuse (exit 3) instead of resuming beyond the restored
   * server's WAL. Then the writers resume, the documented way out is taken (the stored offsets
   * deleted with a tombstone) and the relay started again. The drill's events are those committed
   * after the restore: every one must arrive once; what was committed before the restore is noted,
   * not counted (the restore itself took the rows after the copy away).
   */
  static void restoreDatabase(DrillContext ctx) {
    Infra infra = ctx.stack.infra();
    String drill = ctx.workload.currentDrill();
    ServiceProcess relay = ctx.stack.awaitStreamingRelay(STARTUP);
    ctx.awaitProgressThenPause("kafka", ctx.watch::kafkaDistinct, ctx.watch.kafkaDistinct());

    long copyAt = System.nanoTime();
    infra.stopPostgres();
    infra.snapshotPostgres();
    infra.startPostgres();
    long copied = System.nanoTime();

    long onKafkaAtCopy = ctx.watch.kafkaDistinct();
    long wanted = ctx.options.relayedAfterCopy();
    Stack.await(
        wanted + " events relayed after the copy",
        STARTUP,
        () -> ctx.watch.kafkaDistinct() >= onKafkaAtCopy + wanted);
    // Not a fault of the table: its recovery would be measured with events the restore takes away.
    ctx.note(
        "copy: PostgreSQL stopped, its data folder copied, started again in %d ms; %d events relayed after it before the restore"
            .formatted((copied - copyAt) / 1_000_000, ctx.watch.kafkaDistinct() - onKafkaAtCopy));

    // Stop everything, restore the copy, start PostgreSQL and the relay alone.
    long restoreAt = System.nanoTime();
    ctx.workload.pause();
    List<ServiceProcess> stopped = new ArrayList<>();
    for (ServiceProcess process : ctx.stack.processes()) {
      if (process.isAlive()) {
        process.stop();
        stopped.add(process);
      }
    }
    infra.stopPostgres();
    infra.restorePostgresSnapshot();
    infra.startPostgres();
    ctx.watch.storeRewound();
    relay.start();
    int exit = relay.awaitExit(STARTUP);
    String refusal = lastLine(relay, "refusing to start").orElse("(no refusal in the log)");
    ctx.note(
        "restored database: "
            + relay.name()
            + (exit == REFUSED_EXIT ? " refused to start, exit 3: " : " exit " + exit + ": ")
            + refusal);

    // The writers resume; what they committed before the restore is no longer counted.
    List<CommittedEvent> before = ctx.workload.startOver(drill, ctx.options.eventsPerSecond());
    long inCopy = before.stream().filter(e -> e.committedNanos() < copyAt).count();
    ctx.note(
        "events committed before the restore, not counted in the table: "
            + before.size()
            + " ("
            + inCopy
            + " before the copy; "
            + (before.size() - inCopy)
            + " after it, taken away by the restore: relayed and delivered before it, no longer"
            + " in the restored database)");
    for (ServiceProcess process : stopped) {
      if (process != relay && !process.isAlive()) {
        process.start();
      }
    }
    // The way out the refusal names: delete the stored offsets, start again.
    if (exit == REFUSED_EXIT) {
      ctx.stack.deleteRelayOffsets();
      if (!relay.isAlive()) {
        relay.start();
      }
    }
    ctx.stack.awaitStreamingRelay(STARTUP);
    ctx.record(
        "database restored from the copy; relay "
            + (exit == REFUSED_EXIT
                ? "refused (exit 3), offsets deleted, started again"
                : "exit " + exit),
        restoreAt,
        System.nanoTime(),
        exit);
    if (exit != REFUSED_EXIT) {
      throw new IllegalStateException(
          "the relay did not refuse the restored database (exit "
              + exit
              + ", -1 = still running): rows committed after the restore may be skipped silently");
    }
  }

  /**
   * SIGSTOP of the streaming relay while a hot standby waits; the standby must stream within {@link
   * #TAKEOVER_BOUND}. Once an event committed after the freeze is on Kafka, SIGCONT wakes the
   * frozen relay, which must write nothing (its producer is fenced, its lock session ended): 0
   * duplicates read_committed. It stops streaming, exits or stands by; an exited one is started
   * again as the standby.
   */
  static void freezeStreamingRelay(DrillContext ctx) {
    List<String> slow = new ArrayList<>();
    String drill = ctx.workload.currentDrill();
    for (int i = 0; i < ctx.options.relayFreezes(); i++) {
      Drills.awaitAllHealthy(ctx.stack.standardRelays());
      ServiceProcess frozen = ctx.stack.awaitStreamingRelay(STARTUP);
      ctx.awaitProgressThenPause("kafka", ctx.watch::kafkaDistinct, ctx.watch.kafkaDistinct());
      long at = System.nanoTime();
      frozen.signal("STOP");
      long tookOver;
      try {
        Stack.await(
            "a standby streaming after the freeze of " + frozen.name(),
            STARTUP,
            () -> otherStreaming(ctx, frozen));
        tookOver = System.nanoTime();
        Stack.await(
            "an event committed after the freeze on kafka",
            STARTUP,
            () -> ctx.watch.kafkaRecoveryMs(ctx.workload.committed(drill), at) >= 0);
      } finally {
        frozen.signal("CONT");
      }
      long woke = System.nanoTime();
      Stack.await(
          "the woken " + frozen.name() + " no longer streaming",
          Duration.ofMinutes(2),
          () -> !frozen.isAlive() || !frozen.health().map(Stack::isStreaming).orElse(true));
      int exit = frozen.isAlive() ? -1 : frozen.exitCode();
      long takeoverMs = (tookOver - at) / 1_000_000;
      ctx.note(
          "freeze %d: SIGSTOP %s → standby streaming %d ms (bound %d ms); frozen %d ms; woken: %s"
              .formatted(
                  i + 1,
                  frozen.name(),
                  takeoverMs,
                  TAKEOVER_BOUND.toMillis(),
                  (woke - at) / 1_000_000,
                  exit < 0
                      ? "stood down, still running"
                      : "exited " + exit + ", started again as the standby"));
      if (!frozen.isAlive()) {
        frozen.start();
      }
      ctx.record("SIGSTOP " + frozen.name() + " (standby took over), SIGCONT", at, tookOver, exit);
      if (takeoverMs > TAKEOVER_BOUND.toMillis()) {
        slow.add(frozen.name() + " " + takeoverMs + " ms");
      }
    }
    if (!slow.isEmpty()) {
      throw new IllegalStateException(
          "takeover after a freeze slower than " + TAKEOVER_BOUND + ": " + slow);
    }
  }

  private static boolean otherStreaming(DrillContext ctx, ServiceProcess frozen) {
    for (ServiceProcess relay : ctx.stack.standardRelays()) {
      if (relay != frozen && relay.health().map(Stack::isStreaming).orElse(false)) {
        return true;
      }
    }
    return false;
  }

  /**
   * The only relay runs with a transaction timeout of 1 s: every relay stopped, a variant relay
   * with {@code VIGIL_RELAY_TRANSACTION_TIMEOUT=1s} started in their place.
   */
  static void shortTimeoutRelay(DrillContext ctx) {
    for (ServiceProcess relay : ctx.stack.standardRelays()) {
      if (relay.isAlive()) {
        relay.stop();
      }
    }
    ServiceProcess variant =
        ctx.stack.startVariantRelay(
            "relay-timeout-" + SHORT_TRANSACTION_TIMEOUT,
            Map.of("VIGIL_RELAY_TRANSACTION_TIMEOUT", SHORT_TRANSACTION_TIMEOUT));
    Stack.awaitHealthy(variant, STARTUP);
    ctx.stack.awaitStreamingRelay(STARTUP);
  }

  /**
   * One COPY transaction of {@link DrillOptions#oversizedTransactionRows()} rows while the workload
   * flows, relayed by a relay whose transaction timeout is 1 s: Kafka ends its transaction, and
   * after two timeouts the relay publishes it in chunks, at least once. Its rows may be repeated
   * (reported); every row, and every event of the workload behind it, must arrive, and those events
   * exactly once. The drill fails if the relay never published in chunks (then it did not exercise
   * the timeout).
   */
  static void oversizedTransaction(DrillContext ctx) {
    ServiceProcess relay = ctx.stack.awaitStreamingRelay(STARTUP);
    ctx.awaitProgressThenPause("kafka", ctx.watch::kafkaDistinct, ctx.watch.kafkaDistinct());
    int rows = ctx.options.oversizedTransactionRows();
    long at = System.nanoTime();
    List<CommittedEvent> big = ctx.workload.commitBulk(ctx.workload.currentDrill(), rows);
    big.forEach(e -> ctx.atLeastOnce.add(e.eventId()));
    String[] named = new String[1];
    Stack.await(
        "every row of the oversized transaction on kafka",
        Duration.ofMinutes(10),
        () -> {
          if (named[0] == null) {
            relay.health().filter(h -> h.contains("xid=")).ifPresent(h -> named[0] = h);
          }
          return ctx.watch.kafkaSeen(big) >= rows;
        });
    long allOnKafka = System.nanoTime();
    ctx.record(
        "one COPY transaction of "
            + rows
            + " rows, transaction timeout "
            + SHORT_TRANSACTION_TIMEOUT,
        at,
        allOnKafka,
        -1);
    long timeouts = countLines(relay, "too large for one Kafka transaction");
    Optional<String> chunked = lastLine(relay, "published in chunks, at least once xid=");
    ctx.note(
        "%d rows in one transaction on Kafka %d ms after its commit; Kafka ended it %d times;"
                .formatted(rows, (allOnKafka - at) / 1_000_000, timeouts)
            + " /health named it: "
            + (named[0] == null ? "not seen" : abbreviate(named[0]))
            + "; relay log: "
            + chunked.orElse("no 'published in chunks' line"));
    if (chunked.isEmpty()) {
      throw new IllegalStateException(
          "the relay never published the transaction in chunks: it fitted in one Kafka"
              + " transaction, so the drill did not exercise the timeout");
    }
  }

  private static String abbreviate(String text) {
    return text.length() > 300 ? text.substring(0, 300) + "…" : text;
  }

  private static Optional<String> lastLine(ServiceProcess process, String containing) {
    return lines(process).stream().filter(l -> l.contains(containing)).reduce((a, b) -> b);
  }

  private static long countLines(ServiceProcess process, String containing) {
    return lines(process).stream().filter(l -> l.contains(containing)).count();
  }

  private static List<String> lines(ServiceProcess process) {
    try {
      return Files.readAllLines(process.logFile());
    } catch (IOException e) {
      return List.of();
    }
  }
}
