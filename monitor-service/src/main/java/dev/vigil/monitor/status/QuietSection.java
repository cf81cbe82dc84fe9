package dev.vigil.monitor.status;

import dev.vigil.kit.db.Database;
import dev.vigil.monitor.quiet.PrefixWindows;
import dev.vigil.monitor.quiet.QuietRules;
import dev.vigil.monitor.quiet.Silence;
import dev.vigil.monitor.quiet.Window;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.format.TextStyle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.sql.DataSource;

/**
 * The status page's "Maintenance windows and silences" section: every recurring window (a target's
 * own and those by name prefix) and every silence that has not ended, each marked when it is in
 * effect now (the database's clock). On a service's page, only those that apply to it.
 */
final class QuietSection {
  /** The section's scope; {@code none}: nothing to list. */
  record View(List<Entry> entries, boolean none) {}

  /** One window or silence as shown. */
  record Entry(
      String scope,
      String kind,
      String description,
      boolean active,
      String until,
      String untilIso) {}

  private final DataSource dataSource;
  private final PrefixWindows prefixWindows;

  QuietSection(DataSource dataSource) {
    this.dataSource = dataSource;
    this.prefixWindows = new PrefixWindows(dataSource);
  }

  /** The section for every service ({@code service} null) or for one, with every detail. */
  View read(String service) {
    return read(service, true);
  }

  /**
   * The section for every service ({@code service} null) or for one; without {@code details} a
   * silence shows neither its reason nor who set it.
   */
  View read(String service, boolean details) {
    List<Entry> entries =
        Database.inTransaction(
            dataSource,
            "reading windows and silences",
            connection -> entries(connection, service, details));
    return new View(entries, entries.isEmpty());
  }

  private List<Entry> entries(Connection connection, String service, boolean details)
      throws SQLException {
    Instant now = now(connection);
    List<Entry> entries = new ArrayList<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            select name, maintenance::text from targets
             where maintenance <> '[]'::jsonb and (?::text is null or name = ?)
             order by name limit 500
            """)) {
      statement.setString(1, service);
      statement.setString(2, service);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          for (Window window : QuietRules.stored(rs.getString(2))) {
            entries.add(window(rs.getString(1), window, now));
          }
        }
      }
    }
    for (PrefixWindows.Entry entry : prefixWindows.list()) {
      if (service == null || service.startsWith(entry.prefix())) {
        entries.add(window(entry.prefix() + "*", entry.window(), now));
      }
    }
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            select * from silences
             where ends_at > ? and (?::text is null or service = ? or starts_with(?, prefix))
             order by ends_at, id limit 500
            """)) {
      statement.setTimestamp(1, java.sql.Timestamp.from(now));
      statement.setString(2, service);
      statement.setString(3, service);
      statement.setString(4, service);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          entries.add(silence(QuietRules.silence(rs), now, details));
        }
      }
    }
    return entries;
  }

  private static Entry window(String scope, Window window, Instant now) {
    String days =
        window.days().stream()
            .sorted()
            .map(d -> d.getDisplayName(TextStyle.SHORT, Locale.ENGLISH))
            .collect(Collectors.joining(", "));
    String description =
        days
            + " "
            + window.start()
            + " for "
            + Format.duration(window.length())
            + " ("
            + window.zone().getId()
            + ")";
    Optional<Instant> end = window.coveringEnd(now);
    return new Entry(
        scope,
        "window",
        description,
        end.isPresent(),
        end.map(Format::time).orElse(""),
        end.map(Format::iso).orElse(""));
  }

  private static Entry silence(Silence silence, Instant now, boolean details) {
    String scope = silence.service() != null ? silence.service() : silence.prefix() + "*";
    String description =
        details
            ? Format.text(silence.reason(), Format.MAX_ERROR)
                + " — by "
                + Format.text(silence.createdBy(), 100)
            : "silenced";
    return new Entry(
        scope,
        "silence",
        description,
        !now.isBefore(silence.createdAt()),
        Format.time(silence.endsAt()),
        Format.iso(silence.endsAt()));
  }

  private static Instant now(Connection connection) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("select clock_timestamp()");
        ResultSet rs = statement.executeQuery()) {
      rs.next();
      return rs.getTimestamp(1).toInstant();
    }
  }
}
