package dev.vigil.monitor.quiet;

import dev.vigil.kit.db.Database;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * Ad-hoc silences in the database, where every monitor instance sees them. The end is checked
 * against the database's clock in the transaction that stores it: after now, at most {@link
 * #MAX_LENGTH} ahead.
 */
public final class Silences {
  /** The longest silence that can be asked for. */
  public static final Duration MAX_LENGTH = Duration.ofDays(30);

  private final DataSource dataSource;

  public Silences(DataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * Stores a silence of {@code service} or of {@code prefix} (exactly one is set) until {@code
   * endsAt}.
   *
   * @throws InvalidQuietException naming {@code until} if it is not after the database's now or
   *     more than 30 days after it (nothing written)
   */
  public Silence add(String service, String prefix, String who, String why, Instant endsAt) {
    return Database.inTransaction(
        dataSource,
        "adding a silence",
        connection -> {
          Instant now;
          try (PreparedStatement statement =
                  connection.prepareStatement("select clock_timestamp()");
              ResultSet rs = statement.executeQuery()) {
            rs.next();
            now = rs.getTimestamp(1).toInstant();
          }
          if (!endsAt.isAfter(now)) {
            throw new InvalidQuietException("until", "must be in the future (now is " + now + ")");
          }
          if (endsAt.isAfter(now.plus(MAX_LENGTH))) {
            throw new InvalidQuietException(
                "until", "must be at most 30 days ahead (until " + now.plus(MAX_LENGTH) + ")");
          }
          Silence silence = new Silence(UUID.randomUUID(), service, prefix, who, why, now, endsAt);
          try (PreparedStatement statement =
              connection.prepareStatement(
                  """
                  insert into silences (id, service, prefix, created_by, reason, created_at,
                                        ends_at)
                  values (?, ?, ?, ?, ?, ?, ?)
                  """)) {
            statement.setObject(1, silence.id());
            statement.setString(2, service);
            statement.setString(3, prefix);
            statement.setString(4, who);
            statement.setString(5, why);
            statement.setTimestamp(6, Timestamp.from(now));
            statement.setTimestamp(7, Timestamp.from(endsAt));
            statement.executeUpdate();
          }
          return silence;
        });
  }

  /** Silences that have not ended (database clock), soonest end first. */
  public List<Silence> active() {
    return Database.inTransaction(
        dataSource,
        "listing silences",
        connection -> {
          List<Silence> silences = new ArrayList<>();
          try (PreparedStatement statement =
                  connection.prepareStatement(
                      """
                      select * from silences where ends_at > clock_timestamp()
                       order by ends_at, id limit 1000
                      """);
              ResultSet rs = statement.executeQuery()) {
            while (rs.next()) {
              silences.add(QuietRules.silence(rs));
            }
          }
          return silences;
        });
  }

  /** Deletes a silence; false when there is none with that id. */
  public boolean delete(UUID id) {
    return Database.inTransaction(
        dataSource,
        "deleting silence " + id,
        connection -> {
          try (PreparedStatement statement =
              connection.prepareStatement(
                  "delete from silences where id = ? returning service, prefix")) {
            statement.setObject(1, id);
            try (java.sql.ResultSet rs = statement.executeQuery()) {
              if (!rs.next()) {
                return false;
              }
              QuietRules.recheckHeld(connection, rs.getString(1), rs.getString(2));
            }
          }
          return true;
        });
  }
}
