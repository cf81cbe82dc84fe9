package dev.vigil.monitor.alert;

import dev.vigil.monitor.quiet.Quiet;
import dev.vigil.monitor.quiet.QuietRules;
import dev.vigil.monitor.quiet.Silence;
import dev.vigil.monitor.quiet.Window;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The quiet periods of the services whose incident a recording opens, looked up once for all of
 * them (one service or many) at the recording's database time, with two statements whatever their
 * number: the same windows and silences {@link QuietRules#at} reads for one service, decided by the
 * same {@link Quiet#at}.
 */
final class QuietLookup {
  // starts_with, not LIKE: '_' in a prefix is a plain character, not a wildcard.
  private static final String WINDOWS =
      """
      select t.name, t.maintenance::text from targets t where t.name = any(?::text[])
      union all
      select s.name, w.definition::text
        from unnest(?::text[]) as s(name)
        join maintenance_windows w on starts_with(s.name, w.prefix)
      """;

  private static final String SILENCES =
      """
      select s.name, x.id, x.service, x.prefix, x.created_by, x.reason, x.created_at, x.ends_at
        from unnest(?::text[]) as s(name)
        join silences x on x.service = s.name or starts_with(s.name, x.prefix)
       where x.ends_at > ?
      """;

  /** The quiet period of each of {@code services} at {@code now} (empty when not quiet). */
  Map<String, Optional<Quiet>> at(Connection connection, List<String> services, Instant now)
      throws SQLException {
    Map<String, List<Window>> windows = new HashMap<>();
    Map<String, List<Silence>> silences = new HashMap<>();
    Array names = connection.createArrayOf("text", services.toArray());
    try (PreparedStatement statement = connection.prepareStatement(WINDOWS)) {
      statement.setArray(1, names);
      statement.setArray(2, names);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          windows
              .computeIfAbsent(rs.getString(1), s -> new ArrayList<>())
              .addAll(QuietRules.stored(rs.getString(2)));
        }
      }
    }
    try (PreparedStatement statement = connection.prepareStatement(SILENCES)) {
      statement.setArray(1, names);
      statement.setObject(2, OffsetDateTime.ofInstant(now, ZoneOffset.UTC));
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          silences
              .computeIfAbsent(rs.getString(1), s -> new ArrayList<>())
              .add(QuietRules.silence(rs));
        }
      }
    }
    Map<String, Optional<Quiet>> quiet = HashMap.newHashMap(services.size());
    for (String service : services) {
      quiet.put(
          service,
          Quiet.at(
              service,
              windows.getOrDefault(service, List.of()),
              silences.getOrDefault(service, List.of()),
              now));
    }
    return quiet;
  }
}
