package dev.vigil.drills;

import dev.vigil.drills.chaos.ChaosMode;
import dev.vigil.drills.hostile.HostileRecords;
import dev.vigil.drills.stack.ConnectWorker;
import dev.vigil.drills.stack.Infra;
import dev.vigil.drills.stack.ServiceProcess;
import dev.vigil.drills.stack.Stack;
import dev.vigil.drills.workload.CommittedEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * The drill scripts. Each arranges the processes it needs ({@code prepare}, before the workload
 * starts) and injects its faults while the workload runs ({@code inject}). Faults are spaced by
 * progress, not by the clock alone: the next one comes only after the stage it hits has moved on
 * again, so every fault lands in a flowing stream.
 */
final class Drills {
  // Generous: on a machine shared with other builds the first relay waits minutes for the broker's
  // transaction coordinator (InitProducerId), and a Connect worker for its group; the wait ends as
  // soon as the process is ready.
  private static final Duration STARTUP = Duration.ofMinutes(5);

  /** How long a receiver misbehaviour may wait for its first webhook request. */
  private static final Duration CHAOS_HIT_TIMEOUT = Duration.ofSeconds(60);

  /** One drill: name, what it does, how to arrange the stack, how to inject the faults. */
  record Drill(
      String name,
      String description,
      Consumer<DrillContext> prepare,
      Consumer<DrillContext> inject) {}

  private Drills() {}

  static List<Drill> all() {
    return List.of(
        new Drill(
            "relay-failover",
            "kill -9 of the streaming relay while a hot standby waits; the killed one comes back"
                + " as the new standby",
            ctx -> relays(ctx, 2),
            Drills::killStreamingRelay),
        new Drill(
            "relay-kill",
            "kill -9 of the only relay mid-stream, restarted at once",
            ctx -> relays(ctx, 1),
            Drills::killStreamingRelay),
        new Drill(
            "bulk-transactions",
            "COPY transactions of many outbox rows committed back to back; kill -9 of the only"
                + " relay while part of them is on Kafka, restarted at once",
            ctx -> relays(ctx, 1),
            Drills::killRelayInsideBulkTransactions),
        new Drill(
            "kafka-restart",
            "Kafka broker stopped mid-stream, started again after an outage",
            ctx -> relays(ctx, 1),
            Drills::restartBroker),
        new Drill(
            "postgres-restart",
            "PostgreSQL stopped mid-stream (relay, notifiers, receiver and writers lose their"
                + " connections), started again after an outage",
            ctx -> relays(ctx, 1),
            Drills::restartPostgres),
        new Drill(
            "receiver-chaos",
            "receiver misbehaves in turns: bursts of 503, answers slower than the timeout, 429"
                + " with Retry-After, connection reset before and after storing",
            ctx -> relays(ctx, 1),
            Drills::misbehave),
        new Drill(
            "notifier-kill",
            "kill -9 of one of two notifier instances during delivery, restarted at once",
            ctx -> relays(ctx, 1),
            Drills::killNotifiers),
        new Drill(
            HOSTILE,
            "a plain producer puts hostile records onto the alert topic between the relay's"
                + " (non-JSON, NUL and control characters, lone surrogates, invalid UTF-8, BOM,"
                + " trailing garbage, empty, tombstone, oversize, unknown kind and version, a"
                + " delivered event id again with the same and another payload)",
            ctx -> relays(ctx, 1),
            Drills::hostileRecords),
        new Drill(
            RelayDrills.RELAY_FREEZE,
            "SIGSTOP of the streaming relay while a hot standby waits (a long GC pause, a frozen"
                + " VM); the standby must stream within 15 s; SIGCONT once events flow through it,"
                + " and the woken relay must write nothing",
            ctx -> relays(ctx, 2),
            RelayDrills::freezeStreamingRelay),
        new Drill(
            RelayDrills.OVERSIZED_TRANSACTION,
            "one COPY transaction far larger than the relay can put into one Kafka transaction"
                + " within its timeout (VIGIL_RELAY_TRANSACTION_TIMEOUT="
                + RelayDrills.SHORT_TRANSACTION_TIMEOUT
                + ") while the workload flows: after two timeouts it is published in chunks, at"
                + " least once; its rows may repeat on Kafka (counted), none may be lost, every"
                + " other event stays exactly-once",
            RelayDrills::shortTimeoutRelay,
            RelayDrills::oversizedTransaction),
        new Drill(
            InputSweepDrill.NAME,
            "hostile input (NUL, invalid UTF-8, surrogates, control characters, huge and wrong-typed"
                + " values, trailing bytes, duplicate keys) to every documented route of the running"
                + " monitor API, notifier admin API and receiver while the workload flows; every"
                + " answer must be a 4xx, never a 5xx",
            InputSweepDrill::prepare,
            InputSweepDrill::sweep),
        // It rewinds the whole database (receipts and the receiver's store included): after the
        // drills whose state it would rewind, before the Connect drills.
        new Drill(
            RelayDrills.DATABASE_RESTORE,
            "PostgreSQL's data folder copied while relaying, more rows relayed, everything stopped,"
                + " the copy restored, PostgreSQL and the relay started: the relay must refuse"
                + " (exit 3) rather than resume beyond the restored WAL; then the offsets are"
                + " deleted as the refusal says and it starts again. Counted: the events committed"
                + " after the restore, each must arrive once",
            ctx -> relays(ctx, 1),
            RelayDrills::restoreDatabase),
        // The Connect drills come last on the single server: the relays are stopped for them, and a
        // relay started again afterwards would send what the connector sent (its slot kept it).
        new Drill(
            CONNECT_WORKER_KILL,
            "the Kafka Connect deployment in place of the relays (the shipped connector JSON on a"
                + " ConnectDistributed worker process, exactly-once source); kill -9 of the worker"
                + " mid-stream, restarted at once",
            Drills::connectInsteadOfRelays,
            Drills::killConnectWorker),
        new Drill(
            CONNECT_KAFKA_RESTART,
            "the Kafka Connect deployment in place of the relays; Kafka broker stopped mid-stream,"
                + " started again after an outage",
            Drills::connectInsteadOfRelays,
            Drills::restartBroker),
        new Drill(
            POSTGRES_FAILOVER,
            "kill -9 of the PostgreSQL primary once the relay's failover slot is synchronised to the"
                + " synchronous standby; the standby is promoted and the database address moves to it",
            ctx -> relays(ctx, 1),
            Drills::failOverPostgres));
  }

  /** Needs PostgreSQL as primary and standby: the suite runs it last, on a stack of its own. */
  static final String POSTGRES_FAILOVER = "postgres-failover";

  private static final String HOSTILE = "hostile-records";

  static final String CONNECT_WORKER_KILL = "connect-worker-kill";

  static final String CONNECT_KAFKA_RESTART = "connect-kafka-restart";

  /**
   * Whether the drill itself puts copies of delivered events on the topic (the hostile drill's
   * plain producer does, committed): it cannot be held to "read_committed duplicates 0". Every
   * other drill is, with the exactly-once relay.
   */
  static boolean putsDuplicatesOnTheTopic(String drill) {
    return HOSTILE.equals(drill);
  }

  /**
   * Exactly {@code count} standard relays running (extra ones and every variant stopped
   * gracefully), one of them streaming.
   */
  static void relays(DrillContext ctx, int count) {
    for (ServiceProcess variant : ctx.stack.variantRelays()) {
      if (variant.isAlive()) {
        variant.stop();
      }
    }
    List<ServiceProcess> relays = ctx.stack.standardRelays();
    for (int i = 0; i < relays.size(); i++) {
      ServiceProcess relay = relays.get(i);
      if (i < count && !relay.isAlive()) {
        relay.start();
      } else if (i >= count && relay.isAlive()) {
        relay.stop();
      }
    }
    for (int i = relays.size(); i < count; i++) {
      ctx.stack.addRelay();
    }
    ctx.stack.awaitStreamingRelay(STARTUP);
    awaitAllHealthy(ctx.stack.relays());
  }

  /**
   * Waits until every running process of the list answers /health with 2xx: a relay standby is
   * ready to take over, a restarted notifier consumes again.
   */
  static void awaitAllHealthy(List<ServiceProcess> processes) {
    for (ServiceProcess process : processes) {
      if (process.wanted()) {
        Stack.awaitHealthy(process, STARTUP);
      }
    }
  }

  private static void killStreamingRelay(DrillContext ctx) {
    for (int i = 0; i < ctx.options.relayKills(); i++) {
      awaitAllHealthy(ctx.stack.relays());
      ServiceProcess active = ctx.stack.awaitStreamingRelay(STARTUP);
      ctx.awaitProgressThenPause("kafka", ctx.watch::kafkaDistinct, ctx.watch.kafkaDistinct());
      if (!isStreaming(ctx, active)) {
        active = ctx.stack.awaitStreamingRelay(STARTUP);
      }
      ctx.killAndRestart(active);
    }
  }

  /**
   * Each round commits {@link DrillOptions#bulkTransactionsPerRound()} COPY transactions back to
   * back (the engine's batches then end inside them) and kills the streaming relay once Kafka holds
   * about half of the round's rows: the kill lands inside a transaction, and the restarted relay
   * must not skip the rest of it.
   */
  private static void killRelayInsideBulkTransactions(DrillContext ctx) {
    int rows = ctx.options.bulkTransactionRows();
    for (int i = 0; i < ctx.options.bulkTransactionKills(); i++) {
      awaitAllHealthy(ctx.stack.relays());
      ServiceProcess active = ctx.stack.awaitStreamingRelay(STARTUP);
      ctx.awaitProgressThenPause("kafka", ctx.watch::kafkaDistinct, ctx.watch.kafkaDistinct());
      long before = ctx.watch.kafkaDistinct();
      int round = ctx.options.bulkTransactionsPerRound();
      for (int t = 0; t < round; t++) {
        ctx.workload.commitBulk(ctx.workload.currentDrill(), rows);
      }
      long inside = before + (long) rows * round / 2;
      Stack.await(
          "half of the bulk round on kafka", STARTUP, () -> ctx.watch.kafkaDistinct() >= inside);
      ctx.killAndRestart(active);
    }
  }

  /**
   * Every relay stopped gracefully (the active one stores its offsets and leaves its slot), then
   * the Connect worker running the shipped connector on a slot of its own. The previous drill was
   * drained, and the workload starts only once the connector's task runs, so the new slot (created
   * at the current WAL position) misses nothing of this drill.
   */
  static void connectInsteadOfRelays(DrillContext ctx) {
    for (ServiceProcess relay : ctx.stack.relays()) {
      if (relay.isAlive()) {
        relay.stop();
      }
    }
    ConnectWorker worker = ctx.stack.startConnectWorker();
    Stack.awaitHealthy(worker.process(), STARTUP);
    worker.register(STARTUP);
    worker.awaitRunning(STARTUP);
  }

  /**
   * kill -9 of the worker once Kafka moved on, restarted at once; before the next kill the
   * connector's task runs again (on the restarted worker, after the group noticed the dead one) and
   * delivers again. Each kill's recovery is noted in two parts: kill to worker up (the process
   * restarted and its {@code /health} answers 2xx: JVM started, internal topics read, group joined)
   * and worker up to delivering (the first event committed after the restart is on Kafka,
   * read_committed), with the task's RUNNING in between.
   */
  private static void killConnectWorker(DrillContext ctx) {
    ConnectWorker worker = ctx.stack.startConnectWorker();
    for (int i = 0; i < ctx.options.connectWorkerKills(); i++) {
      Stack.awaitHealthy(worker.process(), STARTUP);
      worker.awaitRunning(STARTUP);
      ctx.awaitProgressThenPause("kafka", ctx.watch::kafkaDistinct, ctx.watch.kafkaDistinct());
      ctx.killAndRestart(worker.process());
      noteConnectRecovery(ctx, worker, i + 1);
    }
  }

  private static void noteConnectRecovery(DrillContext ctx, ConnectWorker worker, int kill) {
    DrillContext.Injected fault = ctx.injected.getLast();
    long restarted = fault.healedNanos();
    Stack.awaitHealthy(worker.process(), STARTUP);
    long up = System.nanoTime();
    worker.awaitRunning(STARTUP);
    long running = System.nanoTime();
    String drill = ctx.workload.currentDrill();
    Stack.await(
        "an event committed after the worker restart on kafka",
        STARTUP,
        () -> ctx.watch.kafkaRecoveryMs(ctx.workload.committed(drill), restarted) >= 0);
    long delivering =
        restarted
            + ctx.watch.kafkaRecoveryMs(ctx.workload.committed(drill), restarted) * 1_000_000L;
    ctx.note(
        String.format(
            "kill %d: kill -9 → worker up (restarted, /health 2xx) %d ms (kill → restarted %d ms);"
                + " worker up → task RUNNING %d ms; worker up → delivering (first event committed"
                + " after the restart on Kafka) %d ms; kill → delivering %d ms",
            kill,
            (up - fault.atNanos()) / 1_000_000,
            (restarted - fault.atNanos()) / 1_000_000,
            Math.max(0, running - up) / 1_000_000,
            Math.max(0, delivering - up) / 1_000_000,
            (delivering - fault.atNanos()) / 1_000_000));
  }

  static boolean isStreaming(DrillContext ctx, ServiceProcess relay) {
    return ctx.stack.streamingRelay().map(r -> r == relay).orElse(false);
  }

  private static void restartBroker(DrillContext ctx) {
    for (int i = 0; i < ctx.options.brokerRestarts(); i++) {
      ctx.awaitProgressThenPause("kafka", ctx.watch::kafkaDistinct, ctx.watch.kafkaDistinct());
      long at = System.nanoTime();
      ctx.stack.infra().stopKafka();
      Stack.pause(ctx.options.brokerOutage().toMillis());
      ctx.stack.infra().startKafka();
      ctx.record("kafka broker stop/start", at, System.nanoTime(), -1);
    }
  }

  private static void restartPostgres(DrillContext ctx) {
    for (int i = 0; i < ctx.options.postgresRestarts(); i++) {
      ctx.awaitProgressThenPause(
          "receiver", ctx.watch::receiverDistinct, ctx.watch.receiverDistinct());
      long at = System.nanoTime();
      ctx.stack.infra().stopPostgres();
      Stack.pause(ctx.options.postgresOutage().toMillis());
      ctx.stack.infra().startPostgres();
      ctx.record("postgres stop/start", at, System.nanoTime(), -1);
    }
  }

  /**
   * One failover, while events flow: it waits until the relay's slot is synchronised to the standby
   * (a failover slot, {@code synced = true}), then kills the primary and promotes the standby.
   * Every process reconnects to the moved address by itself; the relay resumes from the synced slot
   * and the offsets in the promoted database.
   */
  private static void failOverPostgres(DrillContext ctx) {
    Infra infra = ctx.stack.infra();
    ctx.awaitProgressThenPause(
        "receiver", ctx.watch::receiverDistinct, ctx.watch.receiverDistinct());
    infra.awaitSyncedSlot(Stack.RELAY_SLOT, STARTUP);
    long at = System.nanoTime();
    infra.failOver();
    ctx.record(
        "postgres primary kill -9 (slot synced on the standby), standby promoted",
        at,
        System.nanoTime(),
        -1);
  }

  private static void killNotifiers(DrillContext ctx) {
    List<ServiceProcess> notifiers = ctx.stack.notifiers();
    for (int i = 0; i < ctx.options.notifierKills(); i++) {
      if (i == 0 || ctx.options.notifierKillsAwaitDelivery()) {
        awaitAllHealthy(notifiers);
        ctx.awaitProgressThenPause(
            "receiver", ctx.watch::receiverDistinct, ctx.watch.receiverDistinct());
      } else {
        Stack.pause(ctx.options.pauseBetweenFaults().toMillis());
      }
      ctx.killAndRestart(notifiers.get(i % notifiers.size()));
    }
  }

  /**
   * Produces the hostile set {@code hostileRounds} times while the workload flows; each round
   * passes only when the notifiers parked every hostile record (or saw it as a duplicate) and are
   * healthy. The reconciliation afterwards checks that every valid event was still delivered once,
   * in order.
   */
  private static void hostileRecords(DrillContext ctx) {
    try (HostileRecords hostile =
        new HostileRecords(ctx.stack.infra().bootstrapServers(), ctx.stack.options().topic())) {
      for (int i = 0; i < ctx.options.hostileRounds(); i++) {
        ctx.awaitProgressThenPause(
            "receiver", ctx.watch::receiverDistinct, ctx.watch.receiverDistinct());
        Delivered victim = awaitDelivered(ctx);
        List<String> services =
            ctx.workload.committed(HOSTILE).stream()
                .map(CommittedEvent::service)
                .distinct()
                .limit(8)
                .toList();
        long at = System.nanoTime();
        List<HostileRecords.Sent> sent =
            hostile.produce(services, victim.eventId(), victim.service(), victim.payload());
        long produced = System.nanoTime();
        try {
          Stack.await(
              "every hostile record parked or seen as a duplicate",
              Duration.ofSeconds(120),
              () -> unaccounted(ctx, hostile, sent).isEmpty());
        } catch (IllegalStateException e) {
          throw new IllegalStateException(
              "hostile records neither parked nor duplicates: " + unaccounted(ctx, hostile, sent),
              e);
        }
        awaitAllHealthy(ctx.stack.notifiers());
        ctx.record(sent.size() + " hostile records, each parked or a duplicate", at, produced, -1);
      }
    }
  }

  private record Delivered(UUID eventId, String service, String payload) {}

  /** A delivered event of this drill, with the payload the notifier stored for it. */
  private static Delivered awaitDelivered(DrillContext ctx) {
    Delivered[] found = new Delivered[1];
    Stack.await(
        "a delivered event of the drill",
        Duration.ofSeconds(120),
        () -> {
          UUID[] ids =
              ctx.workload.committed(HOSTILE).stream()
                  .map(CommittedEvent::eventId)
                  .toArray(UUID[]::new);
          try (Connection connection = ctx.stack.infra().connect(Infra.VIGIL_DB);
              PreparedStatement query =
                  connection.prepareStatement(
                      """
                      select event_id, service, payload from notifier_receipt
                       where status = 'DELIVERED' and event_id = any(?) order by seq desc limit 1
                      """)) {
            query.setArray(1, connection.createArrayOf("uuid", ids));
            try (ResultSet rows = query.executeQuery()) {
              if (rows.next()) {
                found[0] =
                    new Delivered(
                        rows.getObject(1, UUID.class), rows.getString(2), rows.getString(3));
              }
            }
          } catch (SQLException e) {
            return false;
          }
          return found[0] != null;
        });
    return found[0];
  }

  private static List<String> unaccounted(
      DrillContext ctx, HostileRecords hostile, List<HostileRecords.Sent> sent) {
    try (Connection connection = ctx.stack.infra().connect(Infra.VIGIL_DB)) {
      return hostile.unaccounted(connection, sent);
    } catch (SQLException e) {
      return List.of("database: " + e.getMessage());
    }
  }

  private static void misbehave(DrillContext ctx) {
    List<ChaosMode> modes =
        List.of(
            ChaosMode.UNAVAILABLE,
            ChaosMode.SLOW,
            ChaosMode.TOO_MANY_REQUESTS,
            ChaosMode.RESET_BEFORE,
            ChaosMode.RESET_AFTER);
    long phase = ctx.options.chaosPhase().toMillis();
    for (ChaosMode mode : modes) {
      ctx.awaitProgressThenPause(
          "receiver", ctx.watch::receiverDistinct, ctx.watch.receiverDistinct());
      String fault = "receiver " + mode.name().toLowerCase().replace('_', ' ');
      long before = ctx.proxy.counts().get(mode);
      long at = System.nanoTime();
      ctx.proxy.mode(mode);
      try {
        Stack.pause(phase);
        // Spaced by progress: the misbehaviour lasts until it hit at least one webhook request
        // (a phase on the clock alone can pass while the notifiers wait out a backoff). No
        // request within the bound is a fault of the drill, reported as its error.
        Stack.await(
            "a webhook request to the " + fault + " proxy",
            CHAOS_HIT_TIMEOUT,
            () -> ctx.proxy.counts().get(mode) > before);
      } finally {
        ctx.proxy.mode(ChaosMode.PASS);
        ctx.record(fault, at, System.nanoTime(), -1);
      }
      Stack.pause(phase);
    }
  }
}
