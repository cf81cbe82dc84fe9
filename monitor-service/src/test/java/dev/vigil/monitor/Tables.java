package dev.vigil.monitor;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/** Test helper: reads the monitor's tables as text, to prove "nothing was written". */
public final class Tables {
  public static final List<String> MONITOR_TABLES =
      List.of(
          "targets",
          "alert_state",
          "health_status",
          "check_history",
          "incidents",
          "outbox",
          "probe_schedule",
          "location_state",
          "location_schedule");

  private Tables() {}

  /** Every row of every monitor table, in a stable order. */
  public static Map<String, List<String>> snapshot(DataSource dataSource) {
    Map<String, List<String>> snapshot = new LinkedHashMap<>();
    try (Connection connection = dataSource.getConnection()) {
      for (String table : MONITOR_TABLES) {
        snapshot.put(table, rows(connection, "select * from " + table + " order by 1"));
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    return snapshot;
  }

  public static List<String> rows(Connection connection, String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      ResultSetMetaData meta = rs.getMetaData();
      while (rs.next()) {
        StringBuilder row = new StringBuilder();
        for (int i = 1; i <= meta.getColumnCount(); i++) {
          row.append(i == 1 ? "" : " | ").append(rs.getString(i));
        }
        rows.add(row.toString());
      }
    }
    return rows;
  }

  /** Runs {@code sql} (a statement that returns no rows) on its own connection. */
  public static void execute(DataSource dataSource, String sql) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot run: " + sql, e);
    }
  }

  public static long count(DataSource dataSource, String sql) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  /** The first column of the first row as text (null for SQL null). */
  public static String text(DataSource dataSource, String sql) {
    try (Connection connection = dataSource.getConnection();
        Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }
}
