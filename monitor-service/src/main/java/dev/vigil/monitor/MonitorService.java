package dev.vigil.monitor;

import static dev.vigil.monitor.MonitorConfig.ANNOUNCE_INTERVAL;
import static dev.vigil.monitor.MonitorConfig.API_TOKEN;
import static dev.vigil.monitor.MonitorConfig.CLAIM_BATCH;
import static dev.vigil.monitor.MonitorConfig.CLAIM_POLL_INTERVAL;
import static dev.vigil.monitor.MonitorConfig.HEARTBEAT_GRACE;
import static dev.vigil.monitor.MonitorConfig.HISTORY_RETENTION;
import static dev.vigil.monitor.MonitorConfig.LEASE;
import static dev.vigil.monitor.MonitorConfig.LOCATION;
import static dev.vigil.monitor.MonitorConfig.MAX_IN_FLIGHT;
import static dev.vigil.monitor.MonitorConfig.OUTBOX_RETENTION;
import static dev.vigil.monitor.MonitorConfig.PUBLIC_DETAILS;
import static dev.vigil.monitor.MonitorConfig.RECORD_BATCH;
import static dev.vigil.monitor.MonitorConfig.RECORD_WORKERS;
import static dev.vigil.monitor.MonitorConfig.REPLAY_CHUNK_ROWS;
import static dev.vigil.monitor.MonitorConfig.REPLAY_MAX_ROWS;
import static dev.vigil.monitor.MonitorConfig.RETENTION_BATCH;
import static dev.vigil.monitor.MonitorConfig.RETENTION_INTERVAL;
import static dev.vigil.monitor.MonitorConfig.SCHEDULER_ENABLED;
import static dev.vigil.monitor.MonitorConfig.STATUS_PAGE_ACCESS;
import static dev.vigil.monitor.MonitorConfig.STATUS_PAGE_REFRESH;
import static dev.vigil.monitor.MonitorConfig.STATUS_ROLLUP_INTERVAL;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.lifecycle.Closer;
import dev.vigil.kit.lifecycle.StartClock;
import dev.vigil.kit.metrics.ServiceMetrics;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.monitor.alert.Announcer;
import dev.vigil.monitor.alert.LocationReads;
import dev.vigil.monitor.alert.RecordQueue;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.api.HttpApi;
import dev.vigil.monitor.history.RetentionJob;
import dev.vigil.monitor.probe.MissedHeartbeats;
import dev.vigil.monitor.probe.ProbeScheduler;
import dev.vigil.monitor.probe.Prober;
import dev.vigil.monitor.probe.SchedulerSettings;
import dev.vigil.monitor.quiet.PrefixWindows;
import dev.vigil.monitor.replay.OutboxReplay;
import dev.vigil.monitor.status.StatusAccess;
import dev.vigil.monitor.status.StatusPage;
import dev.vigil.monitor.status.UptimeRollup;
import dev.vigil.monitor.targets.InvalidTargetException;
import dev.vigil.monitor.targets.TargetFile;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.Gauge;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running monitor: connection pool, schema, targets from the file, recorder, prober, scheduler,
 * announcer (deferred FAILEDs, reminders), history retention and the HTTP API, wired by constructor
 * and stopped in reverse order.
 */
public final class MonitorService implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(MonitorService.class);

  private final Closer parts;
  private final HttpApi api;
  private final Recorder recorder;
  private final TargetStore targets;
  private final DataSource dataSource;

  private MonitorService(
      Closer parts, HttpApi api, Recorder recorder, TargetStore targets, DataSource dataSource) {
    this.parts = parts;
    this.api = api;
    this.recorder = recorder;
    this.targets = targets;
    this.dataSource = dataSource;
  }

  /**
   * Builds and starts every part. A bad targets file stops startup before anything is stored.
   *
   * @throws ConfigException if the targets file is invalid (message names file, target and field)
   */
  public static MonitorService start(MonitorConfig config) {
    return start(config, Clock.systemUTC());
  }

  /**
   * Starts with {@code clock} as this host's clock (probe start times, push validation, retention
   * cut-offs). Nothing is ordered by it: results and outbox rows are ordered by the database.
   */
  public static MonitorService start(MonitorConfig config, Clock clock) {
    return start(config, clock, null);
  }

  /**
   * Starts with {@code tracing} (kept and closed by the caller) for the spans of probes and pushed
   * results; null: a tracer of the service's own, from {@code VIGIL_TRACING_*}.
   */
  public static MonitorService start(MonitorConfig config, Clock clock, Tracing given) {
    StartClock startClock = new StartClock();
    Closer parts = new Closer("monitor");
    try {
      // Registered first, so it runs last: after every part has stopped.
      parts.add("stopped log", () -> LOG.info("monitor stopped instance={}", config.instanceId()));
      // Closed after every part that starts spans: it exports what they ended.
      Tracing tracing =
          given != null ? given : parts.add("tracing", Tracing.start("vigil-monitor", config));
      List<TargetSpec> fileTargets = loadTargets(config);
      List<PrefixWindows.Entry> fileWindows = loadWindows(config);
      ServiceMetrics metrics = parts.add("metrics", ServiceMetrics.create("monitor"));
      // The prober needs no database: it is built on a second thread while the pool opens and
      // Flyway migrates (its TLS trust store and HTTP client are a third of the start-up).
      CompletableFuture<Prober> proberReady =
          CompletableFuture.supplyAsync(
              () -> new Prober("vigil-monitor/" + config.instanceId(), clock, metrics.registry()),
              task -> Thread.ofPlatform().name("monitor-start-prober").start(task));
      parts.add("prober", () -> closeWhenBuilt(proberReady));
      Database database =
          Database.open(
              config.database(
                  config.dbPoolSize(),
                  "vigil-monitor",
                  MonitorSchema.LOCATION,
                  MonitorSchema.HISTORY_TABLE));
      parts.add(database);
      startClock.step("database");
      DataSource pool = database.dataSource();
      TargetStore targets = new TargetStore(pool, tracing);
      if (!fileTargets.isEmpty()) {
        targets.upsertAll(fileTargets, TargetStore.Source.FILE);
      }
      if (config.targetsFile() != null) {
        new PrefixWindows(pool).replaceFromFile(fileWindows);
      }
      metrics.bindPool(pool);
      Gauge.builder(metrics.name("incidents.open"), pool, MonitorService::openIncidents)
          .description("Incidents currently open")
          .register(metrics.registry());
      LocationReads locationReads = new LocationReads(pool);
      Gauge.builder(
              metrics.name("targets.degraded"), locationReads, MonitorService::degradedTargets)
          .description(
              "Targets probed from several locations with fewer fresh locations than their quorum"
                  + " (an outage there cannot open an incident)")
          // Held by nothing else: without a strong reference the gauge reads NaN once collected.
          .strongReference(true)
          .register(metrics.registry());
      Recorder recorder = new Recorder(pool, metrics.registry(), config.get(RECORD_BATCH));
      // Closed after the scheduler (registered before it): it records what the probes queued.
      RecordQueue recordQueue =
          config.get(RECORD_BATCH) > 1
              ? parts.add(
                  "record queue",
                  new RecordQueue(recorder, config.get(RECORD_WORKERS), config.get(RECORD_BATCH)))
              : null;
      Prober prober = built(proberReady);
      startClock.step("prober");
      if (config.get(SCHEDULER_ENABLED)) {
        SchedulerSettings schedulerSettings =
            new SchedulerSettings(
                config.instanceId(),
                config.get(LEASE),
                config.get(CLAIM_BATCH),
                config.get(CLAIM_POLL_INTERVAL),
                config.get(MAX_IN_FLIGHT),
                config.get(LOCATION));
        ProbeScheduler scheduler =
            new ProbeScheduler(
                pool,
                recorder,
                recordQueue,
                prober,
                schedulerSettings,
                metrics.registry(),
                tracing);
        scheduler.start();
        parts.add(scheduler);
        MissedHeartbeats heartbeats =
            new MissedHeartbeats(
                pool, recorder, schedulerSettings, config.get(HEARTBEAT_GRACE), tracing);
        heartbeats.start();
        parts.add(heartbeats);
      }
      RetentionJob retention =
          new RetentionJob(
              pool,
              clock,
              List.of(
                  RetentionJob.Trim.history(config.get(HISTORY_RETENTION)),
                  RetentionJob.Trim.outbox(config.get(OUTBOX_RETENTION))),
              config.get(RETENTION_BATCH),
              config.get(RETENTION_INTERVAL));
      retention.start();
      parts.add(retention);
      parts.add(
          new Announcer(pool, config.get(ANNOUNCE_INTERVAL), 500, metrics.registry(), tracing)
              .start());
      parts.add(new UptimeRollup(pool, config.get(STATUS_ROLLUP_INTERVAL)).start());
      startClock.step("jobs");
      StatusPage statusPage =
          new StatusPage(
              pool,
              StatusAccess.of(
                  config.get(STATUS_PAGE_ACCESS),
                  config.get(API_TOKEN),
                  config.get(PUBLIC_DETAILS).equals("all")),
              config.get(STATUS_PAGE_REFRESH));
      HttpApi api =
          new HttpApi(
                  pool,
                  targets,
                  recorder,
                  metrics,
                  config.get(API_TOKEN),
                  config.get(PUBLIC_DETAILS).equals("all"),
                  clock,
                  statusPage,
                  new OutboxReplay(
                      pool,
                      config.get(REPLAY_MAX_ROWS),
                      config.get(REPLAY_CHUNK_ROWS),
                      metrics.registry()),
                  tracing)
              .start(config.httpPort());
      parts.add(api);
      startClock.step("api");
      LOG.info(
          "monitor started instance={} location={} port={} scheduler={} file_targets={} {}",
          config.instanceId(),
          config.get(LOCATION),
          api.port(),
          config.get(SCHEDULER_ENABLED),
          fileTargets.size(),
          startClock.summary());
      return new MonitorService(parts, api, recorder, targets, pool);
    } catch (RuntimeException e) {
      throw parts.closeAfter(e);
    } catch (Error e) {
      throw parts.closeAfter(e);
    }
  }

  /** The prober once built; what building it threw, unwrapped. */
  private static Prober built(CompletableFuture<Prober> proberReady) {
    try {
      return proberReady.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof RuntimeException cause) {
        throw cause;
      }
      if (e.getCause() instanceof Error cause) {
        throw cause;
      }
      throw e;
    }
  }

  /** Closes the prober, waiting for it to be built if a failed start-up did not wait. */
  private static void closeWhenBuilt(CompletableFuture<Prober> proberReady) {
    Prober prober;
    try {
      prober = proberReady.join();
    } catch (CompletionException e) {
      return; // never built: nothing to close (the start-up failure says why)
    }
    prober.close();
  }

  private static List<TargetSpec> loadTargets(MonitorConfig config) {
    if (config.targetsFile() == null) {
      return List.of();
    }
    try {
      return TargetFile.load(config.targetsFile());
    } catch (InvalidTargetException e) {
      throw new ConfigException("VIGIL_MONITOR_TARGETS_FILE is invalid: " + e.getMessage());
    }
  }

  private static List<PrefixWindows.Entry> loadWindows(MonitorConfig config) {
    if (config.targetsFile() == null) {
      return List.of();
    }
    try {
      return TargetFile.loadWindows(config.targetsFile());
    } catch (InvalidTargetException e) {
      throw new ConfigException("VIGIL_MONITOR_TARGETS_FILE is invalid: " + e.getMessage());
    }
  }

  private static double degradedTargets(LocationReads reads) {
    try {
      return reads.degraded().size();
    } catch (RuntimeException e) {
      return Double.NaN;
    }
  }

  private static double openIncidents(DataSource dataSource) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery("select count(*) from incidents where closed_at is null")) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      return Double.NaN;
    }
  }

  /** The HTTP port actually bound. */
  public int httpPort() {
    return api.port();
  }

  /** The recorder every result goes through (for in-process callers such as tests). */
  public Recorder recorder() {
    return recorder;
  }

  /** The target store (for in-process callers). */
  public TargetStore targets() {
    return targets;
  }

  /** The service's connection pool (for in-process callers). */
  public DataSource dataSource() {
    return dataSource;
  }

  /**
   * Stops the API, retention, scheduler (handing back its leases), pool and prober, in that order.
   */
  @Override
  public void close() {
    parts.close();
  }
}
