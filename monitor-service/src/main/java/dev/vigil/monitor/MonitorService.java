package dev.vigil.monitor;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.lifecycle.Closer;
import dev.vigil.kit.metrics.ServiceMetrics;
import dev.vigil.monitor.alert.Recorder;
import dev.vigil.monitor.api.HttpApi;
import dev.vigil.monitor.history.RetentionJob;
import dev.vigil.monitor.probe.ProbeScheduler;
import dev.vigil.monitor.probe.Prober;
import dev.vigil.monitor.probe.SchedulerSettings;
import dev.vigil.monitor.target.InvalidTargetException;
import dev.vigil.monitor.target.TargetFile;
import dev.vigil.monitor.target.TargetSpec;
import dev.vigil.monitor.target.TargetStore;
import io.micrometer.core.instrument.Gauge;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.List;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running monitor: connection pool, schema, targets from the file, recorder, prober, scheduler,
 * history retention and the HTTP API, wired by constructor and stopped in reverse order.
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
    Closer parts = new Closer("monitor");
    try {
      // Registered first, so it runs last: after every part has stopped.
      parts.add("stopped log", () -> LOG.info("monitor stopped instance={}", config.instanceId()));
      List<TargetSpec> fileTargets = loadTargets(config);
      Database database =
          Database.open(
              new Database.Options(
                  config.dbUrl(),
                  config.dbUser(),
                  config.dbPassword(),
                  config.dbPoolSize(),
                  "vigil-monitor",
                  MonitorSchema.LOCATION,
                  MonitorSchema.HISTORY_TABLE));
      parts.add(database);
      DataSource pool = database.dataSource();
      TargetStore targets = new TargetStore(pool);
      if (!fileTargets.isEmpty()) {
        targets.upsertAll(fileTargets, TargetStore.Source.FILE);
      }
      Clock clock = Clock.systemUTC();
      ServiceMetrics metrics = parts.add("metrics", ServiceMetrics.create("monitor"));
      metrics.bindPool(pool);
      Gauge.builder(metrics.name("incidents.open"), pool, MonitorService::openIncidents)
          .description("Incidents currently open")
          .register(metrics.registry());
      Recorder recorder = new Recorder(pool, clock, metrics.registry());
      Prober prober = new Prober("vigil-monitor/" + config.instanceId(), clock, metrics.registry());
      parts.add(prober);
      if (config.schedulerEnabled()) {
        ProbeScheduler scheduler =
            new ProbeScheduler(
                pool,
                recorder,
                prober,
                new SchedulerSettings(
                    config.instanceId(),
                    config.lease(),
                    config.claimBatch(),
                    config.claimPollInterval(),
                    config.maxInFlight()),
                metrics.registry());
        scheduler.start();
        parts.add(scheduler);
      }
      RetentionJob retention =
          new RetentionJob(
              pool,
              clock,
              List.of(
                  RetentionJob.Trim.history(config.historyRetention()),
                  RetentionJob.Trim.outbox(config.outboxRetention())),
              config.retentionBatch(),
              config.retentionInterval());
      retention.start();
      parts.add(retention);
      HttpApi api =
          new HttpApi(pool, targets, recorder, metrics, config.apiToken(), clock)
              .start(config.httpPort());
      parts.add(api);
      LOG.info(
          "monitor started instance={} port={} scheduler={} file_targets={}",
          config.instanceId(),
          api.port(),
          config.schedulerEnabled(),
          fileTargets.size());
      return new MonitorService(parts, api, recorder, targets, pool);
    } catch (RuntimeException e) {
      throw parts.closeAfter(e);
    } catch (Error e) {
      throw parts.closeAfter(e);
    }
  }

  private static List<TargetSpec> loadTargets(MonitorConfig config) {
    if (config.targetsFile() == null) {
      return List.of();
    }
    try {
      return TargetFile.load(config.targetsFile());
    } catch (InvalidTargetException e) {
      throw new ConfigException("VIGIL_TARGETS_FILE is invalid: " + e.getMessage());
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
   * Stops the API, retention, scheduler (handing back its leases), prober and pool, in that order.
   */
  @Override
  public void close() {
    parts.close();
  }
}
