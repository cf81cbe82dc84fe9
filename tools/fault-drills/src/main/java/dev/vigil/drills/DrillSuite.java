package dev.vigil.drills;

import dev.vigil.drills.chaos.ChaosMode;
import dev.vigil.drills.chaos.ChaosProxy;
import dev.vigil.drills.reconcile.DownstreamWatch;
import dev.vigil.drills.reconcile.DrillCounts;
import dev.vigil.drills.reconcile.FaultRecord;
import dev.vigil.drills.reconcile.KcatCheck;
import dev.vigil.drills.reconcile.Observed;
import dev.vigil.drills.reconcile.Reconciler;
import dev.vigil.drills.reconcile.Snapshots;
import dev.vigil.drills.stack.Infra;
import dev.vigil.drills.stack.ServiceProcess;
import dev.vigil.drills.stack.Stack;
import dev.vigil.drills.stack.StackOptions;
import dev.vigil.drills.workload.CommittedEvent;
import dev.vigil.drills.workload.OutboxWorkload;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the drills one after another on one stack: PostgreSQL and Kafka in this JVM, the receiver,
 * relays and two notifier instances as OS processes, the chaos proxy between notifier and receiver.
 * After each drill it heals whatever is still broken, waits until the receiver holds every
 * committed event (or stops making progress), and reconciles.
 */
public final class DrillSuite {
  private static final Logger LOG = LoggerFactory.getLogger(DrillSuite.class);
  // Generous: on a machine shared with other builds the first relay waits minutes for the broker's
  // transaction coordinator (InitProducerId), and a Connect worker for its group; the wait ends as
  // soon as the process is ready.
  private static final Duration STARTUP = Duration.ofMinutes(5);

  private DrillSuite() {}

  /**
   * Runs the suite with its infrastructure and processes under {@code workDir}; {@code
   * afterEachDrill} sees the results so far after every drill (so a long run leaves figures even if
   * it is cut short).
   */
  public static List<DrillResult> run(
      DrillOptions options, Path workDir, Consumer<List<DrillResult>> afterEachDrill) {
    List<String> selected =
        Drills.all().stream()
            .map(Drills.Drill::name)
            .filter(name -> options.drills().isEmpty() || options.drills().contains(name))
            .toList();
    List<String> onOneServer =
        selected.stream().filter(name -> !name.equals(Drills.POSTGRES_FAILOVER)).toList();
    List<DrillResult> results = new ArrayList<>();
    if (!onOneServer.isEmpty()) {
      runOn(false, options.onlyDrills(onOneServer), workDir, results, afterEachDrill);
    }
    // The failover drill needs PostgreSQL as a primary and a standby; the other drills keep the
    // single server they were measured on, so it gets a stack of its own, after them.
    if (selected.contains(Drills.POSTGRES_FAILOVER)) {
      runOn(
          true,
          options.onlyDrills(List.of(Drills.POSTGRES_FAILOVER)),
          workDir.resolve(Drills.POSTGRES_FAILOVER),
          results,
          afterEachDrill);
    }
    return results;
  }

  private static void runOn(
      boolean replicated,
      DrillOptions options,
      Path workDir,
      List<DrillResult> results,
      Consumer<List<DrillResult>> afterEachDrill) {
    StackOptions stackOptions = StackOptions.defaults(workDir.resolve("logs"));
    try (Infra infra = replicated ? Infra.startReplicated(workDir) : Infra.start(workDir);
        Stack stack = new Stack(infra, stackOptions)) {
      // Start-up in parallel: the processes boot while the others do; then wait for all of them.
      ServiceProcess receiver = stack.startReceiver();
      stack.addRelay();
      try (ChaosProxy proxy = ChaosProxy.start(URI.create(stack.receiverBaseUrl()));
          DownstreamWatch watch =
              new DownstreamWatch(
                  infra.bootstrapServers(),
                  stackOptions.topic(),
                  infra.jdbcUrl(Infra.RECEIVER_DB),
                  infra.dbUser())) {
        proxy.slowDelay(Stack.WEBHOOK_READ_TIMEOUT.multipliedBy(2));
        String webhookUrl = "http://127.0.0.1:" + proxy.port() + Stack.RECEIVER_WEBHOOK_PATH;
        stack.addNotifier(webhookUrl);
        stack.addNotifier(webhookUrl);
        Stack.awaitHealthy(receiver, STARTUP);
        stack.awaitStreamingRelay(STARTUP);
        for (ServiceProcess notifier : stack.notifiers()) {
          Stack.awaitHealthy(notifier, STARTUP);
        }
        OutboxWorkload workload =
            new OutboxWorkload(
                infra.jdbcUrl(Infra.VIGIL_DB),
                infra.dbUser(),
                options.services(),
                options.writerThreads());
        for (Drills.Drill drill : Drills.all()) {
          if (!options.drills().isEmpty() && !options.drills().contains(drill.name())) {
            continue;
          }
          DrillContext ctx = new DrillContext(options, stack, proxy, workload, watch, webhookUrl);
          DrillResult result = runOne(drill, ctx);
          results.add(result);
          LOG.info("drill done {}", Report.line(result));
          afterEachDrill.accept(List.copyOf(results));
        }
      }
    }
  }

  private static DrillResult runOne(Drills.Drill drill, DrillContext ctx) {
    LOG.info("drill start name={} description=\"{}\"", drill.name(), drill.description());
    String error = null;
    Map<ChaosMode, Long> chaosBefore = ctx.proxy.counts();
    long writeErrorsBefore = ctx.workload.writeErrors();
    long started = System.nanoTime();
    try {
      drill.prepare().accept(ctx);
      ctx.workload.start(drill.name(), ctx.options.eventsPerSecond());
      try {
        drill.inject().accept(ctx);
        awaitRecoveredFromLastFault(ctx, drill.name());
      } finally {
        ctx.workload.finish(ctx.options.minEventsPerDrill());
      }
    } catch (RuntimeException e) {
      error = e.getClass().getSimpleName() + ": " + e.getMessage();
      LOG.error("drill failed name={} error={}", drill.name(), error, e);
    }
    long lastCommit = Math.max(ctx.workload.lastCommitNanos(), started);
    List<CommittedEvent> committed = ctx.workload.committed(drill.name());
    heal(ctx);
    long drainMs = drain(ctx, committed, lastCommit);
    DrillCounts counts = null;
    try {
      boolean exactlyOnce =
          !Drills.putsDuplicatesOnTheTopic(drill.name()) && ctx.atLeastOnce.isEmpty();
      Snapshot snapshot = snapshot(ctx);
      counts = snapshot.reconcile(committed, exactlyOnce);
      String outside = exactlyOnceOutsideChunks(ctx, snapshot, committed);
      if (outside != null) {
        error = (error == null ? "" : error + "; ") + outside;
      }
      String disagreement = kcatCrossCheck(ctx, committed, counts);
      if (disagreement != null) {
        error = (error == null ? "" : error + "; ") + disagreement;
      }
    } catch (RuntimeException | SQLException e) {
      error = (error == null ? "" : error + "; ") + "reconcile failed: " + e;
      LOG.error("reconcile failed name={}", drill.name(), e);
    }
    List<FaultRecord> faults = new ArrayList<>();
    for (DrillContext.Injected fault : ctx.injected) {
      faults.add(
          new FaultRecord(
              fault.fault(),
              (fault.atNanos() - ctx.startNanos) / 1_000_000,
              (fault.healedNanos() - fault.atNanos()) / 1_000_000,
              fault.exitCode(),
              ctx.watch.kafkaRecoveryMs(committed, fault.healedNanos()),
              ctx.watch.receiverRecoveryMs(committed, fault.healedNanos())));
    }
    Map<String, Long> chaos = new LinkedHashMap<>();
    ctx.proxy
        .counts()
        .forEach(
            (mode, count) -> {
              long during = count - chaosBefore.getOrDefault(mode, 0L);
              if (during > 0) {
                chaos.put(mode.name(), during);
              }
            });
    return new DrillResult(
        drill.name(),
        drill.description(),
        counts,
        faults,
        ctx.workload.writeErrors() - writeErrorsBefore,
        (System.nanoTime() - started) / 1_000_000,
        drainMs,
        chaos,
        List.copyOf(ctx.notes),
        error);
  }

  /**
   * Keeps the workload writing until an event committed after the last fault was healed reached the
   * receiver, so the recovery time of every fault is measured while events still flow.
   */
  private static void awaitRecoveredFromLastFault(DrillContext ctx, String drill) {
    if (ctx.injected.isEmpty()) {
      return;
    }
    long healed = ctx.injected.getLast().healedNanos();
    Stack.await(
        "events flowing to the receiver after the last fault",
        Duration.ofMinutes(3),
        () -> ctx.watch.receiverRecoveryMs(ctx.workload.committed(drill), healed) >= 0);
  }

  /** Puts everything back: proxy passes, broker and database up, every wanted process running. */
  private static void heal(DrillContext ctx) {
    ctx.proxy.mode(ChaosMode.PASS);
    ctx.stack.infra().startKafka();
    ctx.stack.infra().startPostgres();
    for (ServiceProcess process : ctx.stack.processes()) {
      if (process.wanted() && !process.isAlive()) {
        ctx.note(
            process.name()
                + " had exited by itself (exit "
                + process.exitCode()
                + "); restarted by the drill");
        process.start();
      }
    }
  }

  /**
   * Waits until the receiver stored every committed event of the drill; gives up when the count has
   * not moved for the drain timeout.
   *
   * @return milliseconds from the last commit until the receiver held everything, or -1 when it
   *     gave up
   */
  private static long drain(DrillContext ctx, List<CommittedEvent> committed, long lastCommit) {
    UUID[] ids = committed.stream().map(CommittedEvent::eventId).toArray(UUID[]::new);
    long lastCount = -1;
    long lastChange = System.nanoTime();
    while (true) {
      // The watch is cheap to ask; the database confirms once the watch has seen everything.
      long seen = ctx.watch.receiverSeen(committed);
      if (seen >= ids.length && storedCount(ctx, ids) >= ids.length) {
        return (System.nanoTime() - lastCommit) / 1_000_000;
      }
      if (seen != lastCount) {
        lastCount = seen;
        lastChange = System.nanoTime();
      } else if (System.nanoTime() - lastChange > ctx.options.drainTimeout().toNanos()) {
        long stored = storedCount(ctx, ids);
        if (stored >= ids.length) {
          return (System.nanoTime() - lastCommit) / 1_000_000;
        }
        LOG.warn("drain gave up stored={} expected={}", stored, ids.length);
        return -1;
      }
      Stack.pause(500);
    }
  }

  private static long storedCount(DrillContext ctx, UUID[] ids) {
    try (Connection connection = ctx.stack.infra().connect(Infra.RECEIVER_DB);
        PreparedStatement query =
            connection.prepareStatement(
                "select count(distinct event_id) from received_webhook where event_id = any(?)")) {
      Array array = connection.createArrayOf("uuid", ids);
      query.setArray(1, array);
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    } catch (SQLException e) {
      LOG.debug("receiver count failed: {}", e.getMessage());
      return -1;
    }
  }

  /**
   * Reads the topic once more with kcat, read_committed, as the README tells consumer teams to: its
   * count of the drill's records and of their copies must be the Java reader's. Returns what is
   * wrong, or null; where kcat is not installed that is noted, and the drill does not fail for it.
   */
  private static String kcatCrossCheck(
      DrillContext ctx, List<CommittedEvent> committed, DrillCounts counts) {
    Optional<Path> kcat = KcatCheck.executable();
    if (kcat.isEmpty()) {
      ctx.note("kcat is not installed: the topic was not read a second time with it");
      return null;
    }
    Set<UUID> ids = new HashSet<>();
    committed.forEach(e -> ids.add(e.eventId()));
    try {
      KcatCheck.Seen seen =
          KcatCheck.readCommitted(
              kcat.get(), ctx.stack.infra().bootstrapServers(), ctx.stack.options().topic(), ids);
      ctx.note(
          String.format(
              "kcat -X isolation.level=read_committed: %d records of the drill's %d events,"
                  + " %d distinct, %d duplicates (the Java reader: %d records, %d duplicates)",
              seen.records(),
              ids.size(),
              seen.distinct(),
              seen.duplicates(),
              counts.kafkaRecords(),
              counts.kafkaDuplicates()));
      if (seen.records() != counts.kafkaRecords()
          || seen.duplicates() != counts.kafkaDuplicates()) {
        return "kcat read_committed disagrees with the Java reader: "
            + seen
            + " vs records="
            + counts.kafkaRecords()
            + " duplicates="
            + counts.kafkaDuplicates();
      }
      return null;
    } catch (IOException e) {
      return "kcat failed: " + e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted while kcat read the topic";
    }
  }

  /**
   * For a drill with events published at least once by design ({@link DrillContext#atLeastOnce}):
   * notes their read_committed duplicates, and returns what is wrong if any other event of the
   * drill has one (those stay exactly-once), else null.
   */
  private static String exactlyOnceOutsideChunks(
      DrillContext ctx, Snapshot snapshot, List<CommittedEvent> committed) {
    if (ctx.atLeastOnce.isEmpty()) {
      return null;
    }
    List<CommittedEvent> chunked = new ArrayList<>();
    List<CommittedEvent> others = new ArrayList<>();
    for (CommittedEvent event : committed) {
      (ctx.atLeastOnce.contains(event.eventId()) ? chunked : others).add(event);
    }
    DrillCounts inChunks = snapshot.reconcile(chunked, false);
    DrillCounts rest = snapshot.reconcile(others, true);
    ctx.note(
        "read_committed duplicates: %d of the %d rows published in chunks (at least once, allowed),"
                .formatted(inChunks.kafkaDuplicates(), chunked.size())
            + " %d of the other %d events (exactly-once: must be 0); stored twice at the receiver: %d"
                .formatted(
                    rest.kafkaDuplicates(),
                    others.size(),
                    inChunks.storedTwice() + rest.storedTwice()));
    return rest.passed()
        ? null
        : "events outside the chunked transaction not exactly-once: " + rest;
  }

  /** Every stage's full state after a drill, read once. */
  private record Snapshot(
      Set<UUID> outbox,
      Map<UUID, String> receipts,
      List<Observed> stored,
      List<Observed> topic,
      List<Observed> uncommitted) {

    DrillCounts reconcile(List<CommittedEvent> committed, boolean exactlyOnce) {
      return Reconciler.reconcile(
          committed, outbox, topic, uncommitted, receipts, stored, exactlyOnce);
    }
  }

  private static Snapshot snapshot(DrillContext ctx) throws SQLException {
    Infra infra = ctx.stack.infra();
    Set<UUID> outbox;
    Map<UUID, String> receipts;
    try (Connection vigil = infra.connect(Infra.VIGIL_DB)) {
      outbox = Snapshots.outboxIds(vigil);
      receipts = Snapshots.receipts(vigil);
    }
    List<Observed> stored;
    try (Connection receiver = infra.connect(Infra.RECEIVER_DB)) {
      stored = Snapshots.receiverStore(receiver);
    }
    String name = ctx.stack.options().topic();
    List<Observed> topic = Snapshots.topic(infra.bootstrapServers(), name, "read_committed");
    List<Observed> uncommitted =
        Snapshots.topic(infra.bootstrapServers(), name, "read_uncommitted");
    return new Snapshot(outbox, receipts, stored, topic, uncommitted);
  }
}
