package dev.vigil.drills.falsepage;

import dev.vigil.drills.stack.Infra;
import dev.vigil.drills.stack.ServiceProcess;
import dev.vigil.drills.stack.Stack;
import dev.vigil.drills.stack.StackOptions;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.postgresql.ds.PGSimpleDataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one false-page drill: PostgreSQL and Kafka in this JVM; the receiver, a relay, a notifier
 * and one monitor per location as OS processes; the targets in this JVM behind one TCP path per
 * location. The single-location faults of the {@link FaultPlan} run one after another on this
 * thread, the real outages on a thread of their own at their times. Afterwards everything is
 * healed, the drill waits until every location sees every target up again and the receiver holds
 * every event the monitors committed, and counts the pages.
 */
public final class FalsePageDrill {
  private static final Logger LOG = LoggerFactory.getLogger(FalsePageDrill.class);
  private static final Duration STARTUP = Duration.ofMinutes(5);
  private static final Duration SETTLE = Duration.ofMinutes(3);

  private final FalsePageOptions options;
  private final List<FalsePageResult.Executed> executed =
      Collections.synchronizedList(new ArrayList<>());
  private long startNanos;

  private FalsePageDrill(FalsePageOptions options) {
    this.options = options;
  }

  /** Runs the drill with its databases, broker data and logs under {@code workDir}. */
  public static FalsePageResult run(FalsePageOptions options, Path workDir) {
    return new FalsePageDrill(options).run(workDir);
  }

  static String targetName(int target) {
    return "fp-%03d".formatted(target);
  }

  private FalsePageResult run(Path workDir) {
    FaultPlan plan = FaultPlan.of(options);
    Set<String> outageTargets = new HashSet<>();
    plan.outages().forEach(o -> outageTargets.add(targetName(o.target())));
    StackOptions stackOptions = StackOptions.defaults(workDir.resolve("logs"));
    String error = null;
    long drillStarted = 0;
    long probes = 0;
    long warmup = -1;
    PageCount atReceiver = null;
    PageCount atOutbox = null;
    try (Infra infra = Infra.start(workDir);
        Stack stack = new Stack(infra, stackOptions);
        TargetFarm farm = TargetFarm.start();
        LocationPaths paths = LocationPaths.start(options.locations(), farm.port())) {
      ServiceProcess receiver = stack.startReceiver();
      stack.addRelay();
      stack.addNotifier(stack.receiverBaseUrl() + Stack.RECEIVER_WEBHOOK_PATH);
      // The relay streams what is committed after its slot exists: it must stream before the
      // monitors can commit anything.
      Stack.awaitHealthy(receiver, STARTUP);
      stack.awaitStreamingRelay(STARTUP);
      stack.notifiers().forEach(n -> Stack.awaitHealthy(n, STARTUP));
      PGSimpleDataSource data = new PGSimpleDataSource();
      data.setUrl(infra.jdbcUrl(Infra.VIGIL_DB));
      data.setUser(infra.dbUser());
      new TargetStore(data).upsertAll(targets(paths), TargetStore.Source.API);
      Map<String, ServiceProcess> monitors = new LinkedHashMap<>();
      for (String location : options.locations()) {
        Path hosts = workDir.resolve(location + ".hosts");
        writeHosts(hosts, paths.address(location));
        monitors.put(
            location, stack.addLocatedMonitor(location, List.of("-Djdk.net.hosts.file=" + hosts)));
      }
      monitors.values().forEach(m -> Stack.awaitHealthy(m, STARTUP));
      long pairs = (long) options.targets() * options.locations().size();
      Stack.await("every location reports every target up", STARTUP, () -> upPairs(infra) >= pairs);
      LOG.info(
          "false-page drill start targets={} locations={} quorum={} duration={} faults={}"
              + " outages={}",
          options.targets(),
          options.locations(),
          options.effectiveQuorum(),
          options.duration(),
          plan.faults().size(),
          plan.outages().size());
      // Events of the start-up (three JVMs starting on a loaded machine can time probes out) are
      // reported apart: the verdict counts what the monitors decided once the faults began.
      long startSeq = count(infra, Infra.VIGIL_DB, "select coalesce(max(seq), 0) from outbox");
      warmup = count(infra, Infra.VIGIL_DB, "select count(*) from outbox");
      drillStarted = System.nanoTime();
      startNanos = drillStarted;
      Thread outages =
          Thread.ofPlatform().name("false-page-outages").start(() -> outages(plan, farm));
      try {
        for (FaultPlan.Fault fault : plan.faults()) {
          inject(fault, paths, monitors);
        }
        outages.join();
      } finally {
        outages.interrupt();
        paths.healAll();
        plan.outages().forEach(o -> farm.up(o.target()));
      }
      for (ServiceProcess monitor : monitors.values()) {
        if (!monitor.isAlive()) {
          monitor.start();
        }
        Stack.awaitHealthy(monitor, STARTUP);
      }
      Stack.await(
          "every location sees every target up again", SETTLE, () -> upPairs(infra) >= pairs);
      Stack.await(
          "the receiver holds every event committed since the faults began",
          SETTLE,
          () -> delivered(infra));
      atReceiver =
          PageCount.of(received(infra, Infra.RECEIVER_DB, RECEIVED, startSeq), outageTargets);
      atOutbox = PageCount.of(received(infra, Infra.VIGIL_DB, OUTBOX, startSeq), outageTargets);
      probes = farm.requests();
    } catch (RuntimeException | SQLException | InterruptedException e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      error = e.getClass().getSimpleName() + ": " + e.getMessage();
      LOG.error("false-page drill failed error={}", error, e);
    }
    long durationMs = drillStarted == 0 ? 0 : (System.nanoTime() - drillStarted) / 1_000_000;
    FalsePageResult result =
        new FalsePageResult(
            options,
            options.effectiveQuorum(),
            atReceiver,
            atOutbox,
            List.copyOf(executed),
            probes,
            warmup,
            durationMs,
            error);
    LOG.info(
        "false-page drill done passed={} receiver={} outbox={}",
        result.passed(),
        atReceiver,
        atOutbox);
    return result;
  }

  private List<TargetSpec> targets(LocationPaths paths) {
    List<TargetSpec> targets = new ArrayList<>();
    for (int i = 0; i < options.targets(); i++) {
      targets.add(
          TargetSpec.builder(targetName(i), TargetKind.HTTP)
              .url(
                  URI.create(
                      "http://" + LocationPaths.HOST + ":" + paths.port() + TargetFarm.path(i)))
              .interval(options.interval())
              .timeout(options.timeout())
              .connectTimeout(options.timeout().dividedBy(2))
              .thresholds(options.failureThreshold(), 1)
              .locations(options.locations(), options.quorum())
              .build());
    }
    return targets;
  }

  private static void writeHosts(Path hosts, String address) {
    try {
      Files.writeString(hosts, "127.0.0.1 localhost\n" + address + " " + LocationPaths.HOST + "\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + hosts, e);
    }
  }

  private void inject(
      FaultPlan.Fault fault, LocationPaths paths, Map<String, ServiceProcess> monitors) {
    waitUntil(fault.at());
    long at = System.nanoTime();
    int exit = -1;
    switch (fault.kind()) {
      case CUT, BLIP -> {
        paths.cut(fault.location());
        Stack.pause(fault.length().toMillis());
        paths.heal(fault.location());
      }
      case KILL -> {
        ServiceProcess monitor = monitors.get(fault.location());
        exit = monitor.kill9();
        Stack.pause(fault.length().toMillis());
        monitor.start();
        Stack.awaitHealthy(monitor, STARTUP);
      }
      case OUTAGE -> throw new IllegalStateException("outages run on their own thread");
    }
    record(fault.describe(), at, exit);
  }

  private void outages(FaultPlan plan, TargetFarm farm) {
    try {
      for (FaultPlan.Fault outage : plan.outages()) {
        waitUntil(outage.at());
        long at = System.nanoTime();
        farm.down(outage.target());
        LOG.info("real outage start target={}", targetName(outage.target()));
        Stack.pause(outage.length().toMillis());
        farm.up(outage.target());
        record("outage " + targetName(outage.target()), at, -1);
      }
    } catch (IllegalStateException e) {
      LOG.info("outages interrupted: {}", e.getMessage());
    }
  }

  private void record(String fault, long atNanos, int exit) {
    long lengthMs = (System.nanoTime() - atNanos) / 1_000_000;
    executed.add(
        new FalsePageResult.Executed(fault, (atNanos - startNanos) / 1_000_000, lengthMs, exit));
    LOG.info("fault done fault=\"{}\" lengthMs={} exit={}", fault, lengthMs, exit);
  }

  private void waitUntil(Duration at) {
    long wait = startNanos + at.toNanos() - System.nanoTime();
    if (wait > 0) {
      Stack.pause(wait / 1_000_000);
    }
  }

  /** (target, location) pairs whose latest result is fresh and up. */
  private long upPairs(Infra infra) {
    long fresh = options.staleAfter().toMillis();
    return count(
        infra,
        Infra.VIGIL_DB,
        "select count(*) from location_state where last_status = 'UP' and not failing"
            + " and recorded_at > now() - interval '"
            + fresh
            + " milliseconds'");
  }

  /**
   * True when the receiver stored as many distinct events as the outbox holds. The monitors start
   * only once the relay streams, so every outbox row is relayed; counts keep this poll cheap when a
   * quorum-1 run commits tens of thousands of events.
   */
  private static boolean delivered(Infra infra) {
    long committed = count(infra, Infra.VIGIL_DB, "select count(*) from outbox");
    long stored =
        count(infra, Infra.RECEIVER_DB, "select count(distinct event_id) from received_webhook");
    return committed >= 0 && stored >= committed;
  }

  private static Set<String> ids(Infra infra, String database, String sql) throws SQLException {
    Set<String> ids = new HashSet<>();
    try (Connection connection = infra.connect(database);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      while (rows.next()) {
        ids.add(rows.getString(1));
      }
    }
    return ids;
  }

  private static long count(Infra infra, String database, String sql) {
    try (Connection connection = infra.connect(database);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getLong(1);
    } catch (SQLException e) {
      LOG.debug("count failed database={} error={}", database, e.getMessage());
      return -1;
    }
  }

  /** The receiver's webhooks of events committed after the start sequence, in arrival order. */
  private static final String RECEIVED =
      "select service, kind from received_webhook where event_id::text = any(?) order by seq";

  private static final String OUTBOX =
      "select aggregateid, type from outbox where id::text = any(?) order by seq";

  private static List<PageCount.Received> received(
      Infra infra, String database, String sql, long startSeq) throws SQLException {
    String[] since =
        ids(infra, Infra.VIGIL_DB, "select id from outbox where seq > " + startSeq)
            .toArray(String[]::new);
    List<PageCount.Received> received = new ArrayList<>();
    try (Connection connection = infra.connect(database);
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setArray(1, connection.createArrayOf("text", since));
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          received.add(new PageCount.Received(rows.getString(1), rows.getString(2)));
        }
      }
    }
    return received;
  }
}
