package dev.vigil.monitor.targets;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.vigil.contract.AlertEvent;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.monitor.alert.IncidentCloser;
import dev.vigil.monitor.alert.UnknownServiceException;
import dev.vigil.monitor.quiet.InvalidQuietException;
import dev.vigil.monitor.quiet.Window;
import dev.vigil.monitor.quiet.WindowForm;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Targets in the database, where every monitor instance sees them. Creating a target also creates
 * its {@code alert_state} row and its {@code probe_schedule} row (first probe spread over one
 * interval, so thousands of new targets do not all fire at once). Each call is one transaction.
 */
public final class TargetStore {
  private static final Logger LOG = LoggerFactory.getLogger(TargetStore.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final String UPSERT =
      """
      insert into targets (name, kind, url, method, interval_ms, timeout_ms, connect_timeout_ms,
                           accepted_status, failure_threshold, recovery_threshold,
                           follow_redirects, enabled, source, heartbeat_ms, checks,
                           remind_every_ms, maintenance, locations, quorum, retry_interval_ms,
                           depends_on, dependency_settle_ms, slo, slo_window_days)
      values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::jsonb, ?, ?, ?, ?, ?, ?,
              ?)
      on conflict (name) do update
         set kind = excluded.kind, url = excluded.url, method = excluded.method,
             interval_ms = excluded.interval_ms, timeout_ms = excluded.timeout_ms,
             connect_timeout_ms = excluded.connect_timeout_ms,
             accepted_status = excluded.accepted_status,
             failure_threshold = excluded.failure_threshold,
             recovery_threshold = excluded.recovery_threshold,
             follow_redirects = excluded.follow_redirects, enabled = excluded.enabled,
             source = excluded.source, heartbeat_ms = excluded.heartbeat_ms,
             checks = excluded.checks, remind_every_ms = excluded.remind_every_ms,
             maintenance = excluded.maintenance, locations = excluded.locations,
             quorum = excluded.quorum, retry_interval_ms = excluded.retry_interval_ms,
             depends_on = excluded.depends_on,
             dependency_settle_ms = excluded.dependency_settle_ms,
             slo = excluded.slo, slo_window_days = excluded.slo_window_days,
             updated_at = now()
      """;

  // One schedule row per listed location (first probe spread over one interval), and none for a
  // location no longer listed. Its probe_schedule row stays, unclaimed while locations are listed.
  private static final String SYNC_LOCATIONS =
      """
      with gone as (
          delete from location_schedule
           where target = ? and not (location = any(coalesce(?::text[], '{}')))
      )
      insert into location_schedule (target, location, next_due_at)
      select ?, l, now() + random() * make_interval(secs => ? / 1000.0)
        from unnest(coalesce(?::text[], '{}')) as l
      on conflict (target, location) do nothing
      """;

  // Every change of a target takes the service's alert_state row lock first, before any lock on
  // the targets row: the recorder holds that lock while its inserts take a key-share lock on the
  // targets row, so the other order could deadlock with a recording.
  private static final String LOCK_STATE = "select 1 from alert_state where service = ? for update";

  // A push target's heartbeat deadline starts one heartbeat from now (the database's clock).
  private static final String ARM_HEARTBEAT =
      """
      update probe_schedule s
         set next_due_at = now() + make_interval(secs => t.heartbeat_ms / 1000.0)
        from targets t
       where s.target = ? and t.name = s.target and t.kind = 'push'
         and t.heartbeat_ms is not null
      """;

  // Dependency edits are serialised (one transaction at a time checks the whole graph), so two
  // concurrent edits cannot each close half of a cycle.
  private static final String LOCK_GRAPH =
      "select pg_advisory_xact_lock(hashtext('vigil.dependsOn'))";

  private static final String EDGES =
      "select name, depends_on from targets where cardinality(depends_on) > 0";

  // A deleted target is no longer anyone's parent, in the same transaction.
  private static final String FORGET_PARENT =
      """
      update targets set depends_on = array_remove(depends_on, ?), updated_at = now()
       where depends_on @> array[?]::text[]
      """;

  /** The stored fields that decide whether a heartbeat deadline must start again. */
  private record Previous(String kind, Integer heartbeatMs, boolean enabled) {}

  private final DataSource dataSource;
  private final IncidentCloser closer;

  public TargetStore(DataSource dataSource) {
    this(dataSource, Tracing.none());
  }

  /**
   * @param tracing where the span of each RECOVERED written for a disabled or deleted target is
   *     started, whose traceparent is written with its outbox row
   */
  public TargetStore(DataSource dataSource, Tracing tracing) {
    this.dataSource = dataSource;
    this.closer = new IncidentCloser(tracing);
  }

  /** Where a definition came from; kept on the row for operators. */
  public enum Source {
    FILE,
    API
  }

  /**
   * Creates or replaces every target in one transaction (the file is applied all or nothing). A
   * target stored disabled has its open incident closed (RECOVERED, resolution "target disabled").
   */
  public void upsertAll(List<TargetSpec> targets, Source source) {
    List<AlertEvent> closed = new ArrayList<>();
    Database.inTransaction(
        dataSource,
        "storing " + targets.size() + " targets",
        connection -> {
          for (TargetSpec target : targets) {
            upsert(connection, target, source, closed);
          }
          afterChange(connection, targets, source == Source.FILE ? "targets file" : "request body");
          return null;
        });
    LOG.info("targets stored count={} source={}", targets.size(), source);
    logClosed(closed);
  }

  /**
   * Adds a new target.
   *
   * @return false if a target of that name already exists (nothing written)
   */
  public boolean add(TargetSpec target) {
    List<AlertEvent> closed = new ArrayList<>();
    boolean added =
        Database.inTransaction(
            dataSource,
            "adding target " + target.name(),
            connection -> {
              if (previous(connection, target.name()) != null) {
                return false;
              }
              upsert(connection, target, Source.API, closed);
              afterChange(connection, List.of(target), "request body");
              return true;
            });
    logClosed(closed);
    return added;
  }

  /**
   * Replaces an existing target's definition; when it is stored disabled, its open incident is
   * closed in the same transaction (RECOVERED, resolution "target disabled").
   *
   * @throws UnknownServiceException if there is no such target (nothing written)
   */
  public void update(TargetSpec target) {
    List<AlertEvent> closed = new ArrayList<>();
    Database.inTransaction(
        dataSource,
        "updating target " + target.name(),
        connection -> {
          lockState(connection, target.name());
          if (previous(connection, target.name()) == null) {
            throw new UnknownServiceException(target.name());
          }
          upsert(connection, target, Source.API, closed);
          afterChange(connection, List.of(target), "request body");
          return null;
        });
    logClosed(closed);
  }

  /**
   * What every change of targets checks and releases in its transaction: no dependency cycle among
   * all stored targets (refused naming the cycle), and incidents held back until a quiet period's
   * end are looked at again (the target's windows may have changed).
   */
  private static void afterChange(Connection connection, List<TargetSpec> changed, String source)
      throws SQLException {
    if (changed.size() == 1) {
      dev.vigil.monitor.quiet.QuietRules.recheckHeld(connection, changed.getFirst().name(), null);
    } else {
      dev.vigil.monitor.quiet.QuietRules.recheckHeld(connection, null, ""); // the file: every one
    }
    if (changed.stream().allMatch(t -> t.dependsOn().isEmpty())) {
      return; // a cycle through a changed target needs one of its own edges
    }
    try (PreparedStatement statement = connection.prepareStatement(LOCK_GRAPH)) {
      statement.executeQuery().close();
    }
    java.util.Map<String, List<String>> edges = new java.util.HashMap<>();
    try (PreparedStatement statement = connection.prepareStatement(EDGES);
        ResultSet rs = statement.executeQuery()) {
      while (rs.next()) {
        edges.put(rs.getString(1), List.of((String[]) rs.getArray(2).getArray()));
      }
    }
    var cycle = new DependencyGraph(edges).cycle();
    if (cycle.isPresent()) {
      throw new InvalidTargetException(
          source,
          "'" + cycle.get().getFirst() + "'",
          "dependsOn",
          "dependency cycle: " + DependencyGraph.show(cycle.get()));
    }
  }

  /**
   * Enables or disables a target; a disabled one is not probed and refuses pushed results.
   * Disabling closes an open incident in the same transaction with a RECOVERED whose resolution is
   * "target disabled"; enabling a push target starts its heartbeat deadline afresh.
   *
   * @return the RECOVERED written, if an incident was open
   * @throws UnknownServiceException if there is no such target (nothing written)
   */
  public Optional<AlertEvent> setEnabled(String name, boolean enabled) {
    Optional<AlertEvent> closed =
        Database.inTransaction(
            dataSource,
            (enabled ? "enabling" : "disabling") + " target " + name,
            connection -> {
              lockState(connection, name);
              Previous before = previous(connection, name);
              if (before == null) {
                throw new UnknownServiceException(name);
              }
              try (PreparedStatement statement =
                  connection.prepareStatement(
                      "update targets set enabled = ?, updated_at = now() where name = ?")) {
                statement.setBoolean(1, enabled);
                statement.setString(2, name);
                statement.executeUpdate();
              }
              if (enabled && !before.enabled()) {
                armHeartbeat(connection, name);
              }
              return enabled
                  ? Optional.<AlertEvent>empty()
                  : closer.closeOpen(connection, name, AlertEvent.RESOLUTION_TARGET_DISABLED);
            });
    logClosed(closed.stream().toList());
    return closed;
  }

  /**
   * Deletes a target with its state, history and incidents. An open incident is closed first, in
   * the same transaction, with a RECOVERED whose resolution is "target deleted" (outbox rows are
   * kept: they are what consumers were told).
   *
   * @return the RECOVERED written, if an incident was open
   * @throws UnknownServiceException if there is no such target (nothing written)
   */
  public Optional<AlertEvent> delete(String name) {
    Optional<AlertEvent> closed =
        Database.inTransaction(
            dataSource,
            "deleting target " + name,
            connection -> {
              lockState(connection, name);
              if (previous(connection, name) == null) {
                throw new UnknownServiceException(name);
              }
              Optional<AlertEvent> event =
                  closer.closeOpen(connection, name, AlertEvent.RESOLUTION_TARGET_DELETED);
              for (String table :
                  List.of(
                      "check_history",
                      "health_status",
                      "alert_state",
                      "incidents",
                      "probe_schedule",
                      "location_schedule",
                      "location_state")) {
                String column = table.endsWith("_schedule") ? "target" : "service";
                try (PreparedStatement statement =
                    connection.prepareStatement(
                        "delete from " + table + " where " + column + " = ?")) {
                  statement.setString(1, name);
                  statement.executeUpdate();
                }
              }
              try (PreparedStatement statement =
                  connection.prepareStatement("delete from targets where name = ?")) {
                statement.setString(1, name);
                statement.executeUpdate();
              }
              try (PreparedStatement statement = connection.prepareStatement(FORGET_PARENT)) {
                statement.setString(1, name);
                statement.setString(2, name);
                statement.executeUpdate();
              }
              return event;
            });
    LOG.info("target deleted service={}", name);
    logClosed(closed.stream().toList());
    return closed;
  }

  public Optional<TargetSpec> find(String name) {
    List<TargetSpec> found = query("select * from targets where name = ?", name);
    return found.stream().findFirst();
  }

  /** Those of {@code names} that are not targets, in the order given. */
  public List<String> unknown(List<String> names) {
    return Database.inTransaction(
        dataSource,
        "reading parents",
        connection -> {
          List<String> known = new ArrayList<>();
          try (PreparedStatement statement =
              connection.prepareStatement("select name from targets where name = any(?::text[])")) {
            statement.setArray(1, connection.createArrayOf("text", names.toArray()));
            try (ResultSet rs = statement.executeQuery()) {
              while (rs.next()) {
                known.add(rs.getString(1));
              }
            }
          }
          return names.stream().filter(n -> !known.contains(n)).toList();
        });
  }

  public List<TargetSpec> list() {
    return query("select * from targets order by name", null);
  }

  private List<TargetSpec> query(String sql, String name) {
    return Database.inTransaction(
        dataSource,
        "reading targets",
        connection -> {
          List<TargetSpec> targets = new ArrayList<>();
          try (PreparedStatement statement = connection.prepareStatement(sql)) {
            if (name != null) {
              statement.setString(1, name);
            }
            try (ResultSet rs = statement.executeQuery()) {
              while (rs.next()) {
                targets.add(fromRow(rs));
              }
            }
          }
          return targets;
        });
  }

  private static void lockState(Connection connection, String name) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(LOCK_STATE)) {
      statement.setString(1, name);
      statement.executeQuery().close();
    }
  }

  /** The stored target's row, locked, or null when there is none. */
  private static Previous previous(Connection connection, String name) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            "select kind, heartbeat_ms, enabled from targets where name = ? for update")) {
      statement.setString(1, name);
      try (ResultSet rs = statement.executeQuery()) {
        return rs.next()
            ? new Previous(rs.getString(1), rs.getObject(2, Integer.class), rs.getBoolean(3))
            : null;
      }
    }
  }

  private static void armHeartbeat(Connection connection, String name) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(ARM_HEARTBEAT)) {
      statement.setString(1, name);
      statement.executeUpdate();
    }
  }

  private static void logClosed(List<AlertEvent> closed) {
    for (AlertEvent event : closed) {
      LOG.info(
          "incident closed without recovery service={} incident_id={} event_id={} resolution={}",
          event.service(),
          event.incidentId(),
          event.eventId(),
          event.resolution());
    }
  }

  private void upsert(
      Connection connection, TargetSpec target, Source source, List<AlertEvent> closed)
      throws SQLException {
    lockState(connection, target.name());
    Previous before = previous(connection, target.name());
    try (PreparedStatement statement = connection.prepareStatement(UPSERT)) {
      statement.setString(1, target.name());
      statement.setString(2, target.kind().column());
      statement.setString(3, target.url() == null ? null : target.url().toString());
      statement.setString(4, target.method());
      statement.setInt(5, (int) target.interval().toMillis());
      statement.setInt(6, (int) target.timeout().toMillis());
      statement.setInt(7, (int) target.connectTimeout().toMillis());
      statement.setString(8, target.acceptedStatus().spec());
      statement.setInt(9, target.failureThreshold());
      statement.setInt(10, target.recoveryThreshold());
      statement.setBoolean(11, target.followRedirects());
      statement.setBoolean(12, target.enabled());
      statement.setString(13, source == Source.FILE ? "file" : "api");
      if (target.heartbeat() == null) {
        statement.setNull(14, java.sql.Types.INTEGER);
      } else {
        statement.setInt(14, (int) target.heartbeat().toMillis());
      }
      statement.setString(15, CheckForm.write(target.checks(), false).toString());
      if (target.remindEvery() == null) {
        statement.setNull(16, java.sql.Types.BIGINT);
      } else {
        statement.setLong(16, target.remindEvery().toMillis());
      }
      statement.setString(17, maintenanceJson(target.maintenance()).toString());
      java.sql.Array locations =
          target.located() ? connection.createArrayOf("text", target.locations().toArray()) : null;
      statement.setArray(18, locations);
      statement.setObject(19, target.quorum(), java.sql.Types.INTEGER);
      statement.setObject(
          20,
          target.retryInterval() == null ? null : (int) target.retryInterval().toMillis(),
          java.sql.Types.INTEGER);
      statement.setArray(21, connection.createArrayOf("text", target.dependsOn().toArray()));
      statement.setObject(
          22,
          target.dependencySettle() == null ? null : (int) target.dependencySettle().toMillis(),
          java.sql.Types.INTEGER);
      statement.setBigDecimal(23, target.slo());
      statement.setInt(24, target.sloWindowDays());
      statement.executeUpdate();
    }
    try (PreparedStatement statement = connection.prepareStatement(SYNC_LOCATIONS)) {
      java.sql.Array locations = connection.createArrayOf("text", target.locations().toArray());
      statement.setString(1, target.name());
      statement.setArray(2, locations);
      statement.setString(3, target.name());
      statement.setInt(4, (int) target.interval().toMillis());
      statement.setArray(5, locations);
      statement.executeUpdate();
    }
    try (PreparedStatement statement =
        connection.prepareStatement(
            "insert into alert_state (service) values (?) on conflict (service) do nothing")) {
      statement.setString(1, target.name());
      statement.executeUpdate();
    }
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            insert into probe_schedule (target, next_due_at)
            values (?, now() + random() * make_interval(secs => ? / 1000.0))
            on conflict (target) do nothing
            """)) {
      statement.setString(1, target.name());
      statement.setInt(2, (int) target.interval().toMillis());
      statement.executeUpdate();
    }
    // A new heartbeat, a changed one, or a target that was not watched before starts a fresh
    // deadline; re-storing the same definition (e.g. the file at every start) keeps the running
    // one.
    if (target.heartbeat() != null
        && target.enabled()
        && (before == null
            || !before.kind().equals(target.kind().column())
            || !before.enabled()
            || before.heartbeatMs() == null
            || before.heartbeatMs() != target.heartbeat().toMillis())) {
      armHeartbeat(connection, target.name());
    }
    if (!target.enabled()) {
      closer
          .closeOpen(connection, target.name(), AlertEvent.RESOLUTION_TARGET_DISABLED)
          .ifPresent(closed::add);
    }
  }

  /**
   * The target in the current row of {@code rs}, which has every column of {@code targets} (e.g.
   * {@code select t.*}); the stored checks pass the same validation as a new definition.
   */
  public static TargetSpec fromRow(ResultSet rs) throws SQLException {
    String name = rs.getString("name");
    String url = rs.getString("url");
    TargetKind kind = TargetKind.fromColumn(rs.getString("kind"));
    URI uri = url == null ? null : URI.create(url);
    Duration timeout = Duration.ofMillis(rs.getInt("timeout_ms"));
    JsonNode stored;
    try {
      stored = JSON.readTree(rs.getString("checks"));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored checks of target " + name + " are not JSON", e);
    }
    return TargetSpec.builder(name, kind)
        .url(uri)
        .method(rs.getString("method"))
        .interval(Duration.ofMillis(rs.getInt("interval_ms")))
        .timeout(timeout)
        .connectTimeout(Duration.ofMillis(rs.getInt("connect_timeout_ms")))
        .acceptedStatus(new StatusCodes(rs.getString("accepted_status")))
        .thresholds(rs.getInt("failure_threshold"), rs.getInt("recovery_threshold"))
        .followRedirects(rs.getBoolean("follow_redirects"))
        .enabled(rs.getBoolean("enabled"))
        .heartbeat(
            rs.getObject("heartbeat_ms") == null
                ? null
                : Duration.ofMillis(rs.getInt("heartbeat_ms")))
        .checks(TargetParser.storedChecks(name, stored, kind, rs.getString("method"), uri, timeout))
        .remindEvery(
            rs.getObject("remind_every_ms") == null
                ? null
                : Duration.ofMillis(rs.getLong("remind_every_ms")))
        .maintenance(storedWindows(name, rs.getString("maintenance")))
        .locations(storedLocations(rs.getArray("locations")), rs.getObject("quorum", Integer.class))
        .retryInterval(
            rs.getObject("retry_interval_ms") == null
                ? null
                : Duration.ofMillis(rs.getInt("retry_interval_ms")))
        .dependsOn(
            List.of((String[]) rs.getArray("depends_on").getArray()),
            rs.getObject("dependency_settle_ms") == null
                ? null
                : Duration.ofMillis(rs.getInt("dependency_settle_ms")))
        .slo(storedSlo(rs.getBigDecimal("slo")), rs.getInt("slo_window_days"))
        .build();
  }

  // numeric(7, 4) reads back with four decimals: the objective as written (99.9, not 99.9000).
  private static java.math.BigDecimal storedSlo(java.math.BigDecimal stored) {
    return stored == null ? null : stored.stripTrailingZeros();
  }

  private static List<String> storedLocations(java.sql.Array stored) throws SQLException {
    return stored == null ? List.of() : List.of((String[]) stored.getArray());
  }

  /** The written form of a target's windows (what the definition and the column hold). */
  public static com.fasterxml.jackson.databind.node.ArrayNode maintenanceJson(
      List<Window> windows) {
    var array = JSON.createArrayNode();
    windows.forEach(window -> array.add(WindowForm.write(window)));
    return array;
  }

  private static List<Window> storedWindows(String name, String stored) {
    try {
      List<Window> windows = new ArrayList<>();
      for (JsonNode element : JSON.readTree(stored)) {
        windows.add(WindowForm.read(element, "", java.util.Set.of()));
      }
      return windows;
    } catch (JsonProcessingException | InvalidQuietException e) {
      throw new IllegalStateException("stored maintenance of target " + name + " is invalid", e);
    }
  }
}
