package dev.vigil.drills.dependencies;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.drills.stack.Infra;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the dependencies drill reads: incidents in the monitors' database, webhooks in the
 * receiver's, counted by service name or prefix. Every read opens a connection of its own (the
 * drill polls them while the services write). A count that fails is -1, so a wait goes on.
 */
final class Observations {
  private static final Logger LOG = LoggerFactory.getLogger(Observations.class);

  private final Infra infra;

  Observations(Infra infra) {
    this.infra = infra;
  }

  Instant dbNow() {
    try (Connection connection = infra.connect(Infra.VIGIL_DB);
        PreparedStatement statement = connection.prepareStatement("select clock_timestamp()");
        ResultSet rs = statement.executeQuery()) {
      rs.next();
      return rs.getTimestamp(1).toInstant();
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read the database's time", e);
    }
  }

  /** Services starting with {@code prefix} whose health is UP. */
  long up(String prefix) {
    return count(
        Infra.VIGIL_DB,
        "select count(*) from health_status where status = 'UP' and service like ?",
        prefix + "%");
  }

  /** Open incidents held back by a parent, of services starting with {@code prefix}. */
  long held(String prefix) {
    return count(
        Infra.VIGIL_DB,
        "select count(*) from incidents where closed_at is null and announced_at is null"
            + " and held_reason like 'parent %' and service like ?",
        prefix + "%");
  }

  /**
   * Open incidents held back until a quiet period ends (not_before set and in the future), of
   * {@code prefix}: what the announcer must not select yet.
   */
  long heldQuiet(String prefix) {
    return count(
        Infra.VIGIL_DB,
        "select count(*) from incidents where closed_at is null and announced_at is null"
            + " and not_before > clock_timestamp() and service like ?",
        prefix + "%");
  }

  long openLike(String prefix) {
    return count(
        Infra.VIGIL_DB,
        "select count(*) from incidents where closed_at is null and service like ?",
        prefix + "%");
  }

  long received(String service, String kind) {
    return count(
        Infra.RECEIVER_DB,
        "select count(distinct event_id) from received_webhook where service = ? and kind = '"
            + kind
            + "'",
        service);
  }

  long receivedLike(String prefix, String kind) {
    return count(
        Infra.RECEIVER_DB,
        "select count(distinct event_id) from received_webhook where service like ? and kind = '"
            + kind
            + "'",
        prefix + "%");
  }

  long receivedIn(List<String> services, String kind) {
    return services.stream().mapToLong(s -> received(s, kind)).sum();
  }

  /** Every event the monitors committed for {@code prefix}'s services is at the receiver. */
  boolean delivered(String prefix) {
    long committed =
        count(
            Infra.VIGIL_DB, "select count(*) from outbox where aggregateid like ?", prefix + "-%");
    long stored =
        count(
            Infra.RECEIVER_DB,
            "select count(distinct event_id) from received_webhook where service like ?",
            prefix + "-%");
    return committed >= 0 && stored >= committed;
  }

  AlertEvent first(String service, String kind) {
    List<String> bodies =
        strings(
            Infra.RECEIVER_DB,
            "select body from received_webhook where service = ? and kind = '"
                + kind
                + "' order by seq limit 1",
            service);
    return bodies.isEmpty()
        ? null
        : AlertEventJson.read(bodies.getFirst().getBytes(StandardCharsets.UTF_8));
  }

  static int impact(AlertEvent event) {
    return event == null || event.impact() == null ? -1 : event.impact().children();
  }

  long impactSum(String prefix) {
    return strings(
            Infra.RECEIVER_DB,
            "select body from received_webhook where service like ? and kind = 'FAILED'",
            prefix + "%")
        .stream()
        .mapToLong(
            b -> Math.max(0, impact(AlertEventJson.read(b.getBytes(StandardCharsets.UTF_8)))))
        .sum();
  }

  /** Milliseconds from {@code since} to the last webhook of {@code like} (kind FAILED) received. */
  long receivedAfterMs(String like, Instant since) {
    return count(
        Infra.RECEIVER_DB,
        "select coalesce((extract(epoch from max(received_at) - ?::timestamptz) * 1000)::bigint,"
            + " -1) from received_webhook where service like ? and kind = 'FAILED'",
        since.toString(),
        like);
  }

  long receivedAfterMs(String service, String kind, Instant since) {
    return count(
        Infra.RECEIVER_DB,
        "select coalesce((extract(epoch from min(received_at) - ?::timestamptz) * 1000)::bigint,"
            + " -1) from received_webhook where service = ? and kind = '"
            + kind
            + "'",
        since.toString(),
        service);
  }

  long committedAfterMs(String service, String kind, Instant since) {
    return count(
        Infra.VIGIL_DB,
        "select coalesce((extract(epoch from min(created_at) - ?::timestamptz) * 1000)::bigint,"
            + " -1) from outbox where aggregateid = ? and type = '"
            + kind
            + "'",
        since.toString(),
        service);
  }

  long openedAfterMs(String prefix, Instant since) {
    return count(
        Infra.VIGIL_DB,
        "select coalesce((extract(epoch from max(opened_at) - ?::timestamptz) * 1000)::bigint,"
            + " -1) from incidents where service like ?",
        since.toString(),
        prefix + "%");
  }

  private long count(String database, String sql, String... params) {
    try (Connection connection = infra.connect(database);
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < params.length; i++) {
        statement.setString(i + 1, params[i]);
      }
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      LOG.debug("count failed database={} error={}", database, e.getMessage());
      return -1;
    }
  }

  private List<String> strings(String database, String sql, String param) {
    List<String> out = new ArrayList<>();
    try (Connection connection = infra.connect(database);
        PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, param);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          out.add(rs.getString(1));
        }
      }
    } catch (SQLException e) {
      throw new IllegalStateException("cannot read " + database, e);
    }
    return out;
  }
}
