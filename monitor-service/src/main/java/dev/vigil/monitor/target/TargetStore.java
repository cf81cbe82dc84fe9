package dev.vigil.monitor.target;

import dev.vigil.kit.db.Database;
import dev.vigil.monitor.alert.UnknownServiceException;
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

  private static final String UPSERT =
      """
      insert into targets (name, kind, url, method, interval_ms, timeout_ms, connect_timeout_ms,
                           accepted_status, failure_threshold, recovery_threshold,
                           follow_redirects, enabled, source)
      values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
      on conflict (name) do update
         set kind = excluded.kind, url = excluded.url, method = excluded.method,
             interval_ms = excluded.interval_ms, timeout_ms = excluded.timeout_ms,
             connect_timeout_ms = excluded.connect_timeout_ms,
             accepted_status = excluded.accepted_status,
             failure_threshold = excluded.failure_threshold,
             recovery_threshold = excluded.recovery_threshold,
             follow_redirects = excluded.follow_redirects, enabled = excluded.enabled,
             source = excluded.source, updated_at = now()
      """;

  private final DataSource dataSource;

  public TargetStore(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /** Where a definition came from; kept on the row for operators. */
  public enum Source {
    FILE,
    API
  }

  /** Creates or replaces every target in one transaction (the file is applied all or nothing). */
  public void upsertAll(List<TargetSpec> targets, Source source) {
    Database.inTransaction(
        dataSource,
        "storing " + targets.size() + " targets",
        connection -> {
          for (TargetSpec target : targets) {
            upsert(connection, target, source);
          }
          return null;
        });
    LOG.info("targets stored count={} source={}", targets.size(), source);
  }

  /**
   * Adds a new target.
   *
   * @return false if a target of that name already exists (nothing written)
   */
  public boolean add(TargetSpec target) {
    return Database.inTransaction(
        dataSource,
        "adding target " + target.name(),
        connection -> {
          if (exists(connection, target.name(), true)) {
            return false;
          }
          upsert(connection, target, Source.API);
          return true;
        });
  }

  /**
   * Replaces an existing target's definition.
   *
   * @throws UnknownServiceException if there is no such target (nothing written)
   */
  public void update(TargetSpec target) {
    Database.inTransaction(
        dataSource,
        "updating target " + target.name(),
        connection -> {
          if (!exists(connection, target.name(), true)) {
            throw new UnknownServiceException(target.name());
          }
          upsert(connection, target, Source.API);
          return null;
        });
  }

  /**
   * Enables or disables a target; a disabled one is not probed and refuses pushed results.
   *
   * @throws UnknownServiceException if there is no such target
   */
  public void setEnabled(String name, boolean enabled) {
    Database.inTransaction(
        dataSource,
        "enabling/disabling target " + name,
        connection -> {
          try (PreparedStatement statement =
              connection.prepareStatement(
                  "update targets set enabled = ?, updated_at = now() where name = ?")) {
            statement.setBoolean(1, enabled);
            statement.setString(2, name);
            if (statement.executeUpdate() == 0) {
              throw new UnknownServiceException(name);
            }
          }
          return null;
        });
  }

  public Optional<TargetSpec> find(String name) {
    List<TargetSpec> found = query("select * from targets where name = ?", name);
    return found.stream().findFirst();
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

  private static boolean exists(Connection connection, String name, boolean lock)
      throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            "select 1 from targets where name = ?" + (lock ? " for update" : ""))) {
      statement.setString(1, name);
      try (ResultSet rs = statement.executeQuery()) {
        return rs.next();
      }
    }
  }

  private static void upsert(Connection connection, TargetSpec target, Source source)
      throws SQLException {
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
  }

  private static TargetSpec fromRow(ResultSet rs) throws SQLException {
    String url = rs.getString("url");
    return new TargetSpec(
        rs.getString("name"),
        TargetKind.fromColumn(rs.getString("kind")),
        url == null ? null : URI.create(url),
        rs.getString("method"),
        Duration.ofMillis(rs.getInt("interval_ms")),
        Duration.ofMillis(rs.getInt("timeout_ms")),
        Duration.ofMillis(rs.getInt("connect_timeout_ms")),
        new StatusCodes(rs.getString("accepted_status")),
        rs.getInt("failure_threshold"),
        rs.getInt("recovery_threshold"),
        rs.getBoolean("follow_redirects"),
        rs.getBoolean("enabled"));
  }
}
