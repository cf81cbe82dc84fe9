package dev.vigil.relay.stream;

import dev.vigil.relay.config.RelayConfig;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Properties;

/**
 * Which PostgreSQL cluster and history the relay streams from: the system identifier (new for every
 * {@code initdb}, kept by copies, restores and standbys), the timeline (one more at every promotion
 * or point-in-time recovery) and the server's current WAL position, as the replication protocol's
 * {@code IDENTIFY_SYSTEM} reports them.
 *
 * @param systemId the cluster's system identifier
 * @param timeline the server's current timeline
 * @param walPosition the server's current WAL flush position (LSN)
 */
record ServerIdentity(String systemId, int timeline, long walPosition) {
  ServerIdentity {
    Objects.requireNonNull(systemId, "systemId");
    if (timeline < 1) {
      throw new IllegalArgumentException("timeline must be positive, was " + timeline);
    }
  }

  /** Asks the server named by the relay's settings ({@code IDENTIFY_SYSTEM}). */
  static ServerIdentity read(RelayConfig config) throws SQLException {
    try (Connection replication = replicationConnection(config);
        Statement statement = replication.createStatement();
        ResultSet rs = statement.executeQuery("IDENTIFY_SYSTEM")) {
      rs.next();
      return new ServerIdentity(rs.getString(1), rs.getInt(2), parseLsn(rs.getString(3)));
    }
  }

  /**
   * Where timeline {@code ancestor} ended in the history of this server's timeline: the LSN from
   * which WAL of {@code ancestor} was never part of this server's history. Empty when {@code
   * ancestor} is not in that history (a different branch).
   */
  OptionalLong switchpoint(RelayConfig config, int ancestor) throws SQLException {
    String history;
    try (Connection replication = replicationConnection(config);
        Statement statement = replication.createStatement();
        // The timeline is an int read from the server: safe to inline.
        ResultSet rs = statement.executeQuery("TIMELINE_HISTORY " + timeline)) {
      rs.next();
      history = new String(rs.getBytes(2), StandardCharsets.UTF_8);
    }
    return switchpoint(history, ancestor);
  }

  /**
   * The switch point of {@code ancestor} in a timeline history file's text: lines of {@code
   * <timeline> <switch LSN> <reason>}, tab-separated, {@code #} comments.
   */
  static OptionalLong switchpoint(String history, int ancestor) {
    for (String line : history.split("\n")) {
      String trimmed = line.strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#")) {
        continue;
      }
      String[] fields = trimmed.split("\\s+");
      if (fields.length >= 2 && fields[0].equals(Integer.toString(ancestor))) {
        return OptionalLong.of(parseLsn(fields[1]));
      }
    }
    return OptionalLong.empty();
  }

  /** {@code 16/B374D848} as a number. */
  static long parseLsn(String text) {
    int slash = text.indexOf('/');
    if (slash < 0) {
      throw new IllegalArgumentException("not an LSN: " + text);
    }
    return (Long.parseLong(text.substring(0, slash), 16) << 32)
        | Long.parseLong(text.substring(slash + 1), 16);
  }

  /** An LSN as PostgreSQL writes it ({@code 16/B374D848}). */
  static String lsn(long value) {
    return String.format("%X/%X", value >>> 32, value & 0xFFFFFFFFL);
  }

  private static Connection replicationConnection(RelayConfig config) throws SQLException {
    Properties properties = config.connectionProperties();
    properties.setProperty("replication", "database");
    properties.setProperty("preferQueryMode", "simple");
    properties.setProperty("assumeMinServerVersion", "10");
    properties.setProperty("ApplicationName", "vigil-relay-identity");
    return DriverManager.getConnection(config.dbUrl(), properties);
  }
}
