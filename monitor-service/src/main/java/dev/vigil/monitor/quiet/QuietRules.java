package dev.vigil.monitor.quiet;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;

/**
 * Reads the windows and silences that apply to one service, on the caller's connection (inside the
 * recording or announcing transaction), and decides with {@link Quiet#at} at the instant given,
 * which is the database's clock read under the service's row lock.
 */
public final class QuietRules {
  private static final ObjectMapper JSON = new ObjectMapper();

  // starts_with, not LIKE: '_' in a prefix is a plain character, not a wildcard.
  private static final String WINDOWS =
      """
      select maintenance::text from targets where name = ?
      union all
      select definition::text from maintenance_windows where starts_with(?, prefix)
      """;

  private static final String SILENCES =
      """
      select id, service, prefix, created_by, reason, created_at, ends_at
        from silences
       where ends_at > ? and (service = ? or starts_with(?, prefix))
      """;

  // Incidents held back until a quiet period's end (not while a parent is down: 'infinity').
  private static final String RECHECK =
      """
      update incidents set not_before = clock_timestamp()
       where closed_at is null and not_before > clock_timestamp() and not_before <> 'infinity'
         and (service = ? or starts_with(service, ?))
      """;

  /**
   * Makes the incidents of {@code service} (or of every service starting with {@code prefix}; null
   * for either: none by it) held back until the end of a quiet period due now, in the caller's
   * transaction: called when a window or silence is removed or a target's windows change, since a
   * quiet period may end earlier than the announcer was told. The announcer decides again under
   * each service's lock (and holds the still-quiet ones back until their new end).
   */
  public static void recheckHeld(Connection connection, String service, String prefix)
      throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(RECHECK)) {
      statement.setString(1, service);
      statement.setString(2, prefix);
      statement.executeUpdate();
    }
  }

  /** The quiet period of {@code service} at {@code now}, or empty. */
  public Optional<Quiet> at(Connection connection, String service, Instant now)
      throws SQLException {
    return Quiet.at(service, windows(connection, service), silences(connection, service, now), now);
  }

  /** The target's own windows and those of every prefix its name starts with. */
  public static List<Window> windows(Connection connection, String service) throws SQLException {
    List<Window> windows = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(WINDOWS)) {
      statement.setString(1, service);
      statement.setString(2, service);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          windows.addAll(stored(rs.getString(1)));
        }
      }
    }
    return windows;
  }

  private static List<Silence> silences(Connection connection, String service, Instant now)
      throws SQLException {
    List<Silence> silences = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(SILENCES)) {
      statement.setTimestamp(1, Timestamp.from(now));
      statement.setString(2, service);
      statement.setString(3, service);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          silences.add(silence(rs));
        }
      }
    }
    return silences;
  }

  /** Windows stored as written: one window object or an array of them (a target's column). */
  public static List<Window> stored(String json) {
    JsonNode stored = parse(json);
    List<Window> windows = new ArrayList<>();
    if (stored.isArray()) {
      stored.forEach(element -> windows.add(stored(element)));
    } else {
      windows.add(stored(stored));
    }
    return windows;
  }

  /** The silence in the current row of {@code rs} (every column of {@code silences}). */
  public static Silence silence(ResultSet rs) throws SQLException {
    return new Silence(
        rs.getObject("id", UUID.class),
        rs.getString("service"),
        rs.getString("prefix"),
        rs.getString("created_by"),
        rs.getString("reason"),
        rs.getTimestamp("created_at").toInstant(),
        rs.getTimestamp("ends_at").toInstant());
  }

  private static Window stored(JsonNode node) {
    try {
      return WindowForm.read(node, "", Set.of());
    } catch (InvalidQuietException e) {
      throw new IllegalStateException("a stored maintenance window is invalid: " + e.getMessage());
    }
  }

  private static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored maintenance windows are not JSON", e);
    }
  }
}
