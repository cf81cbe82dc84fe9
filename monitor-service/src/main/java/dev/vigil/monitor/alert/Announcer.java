package dev.vigil.monitor.alert;

import dev.vigil.contract.AlertEvent;
import dev.vigil.kit.PeriodicTask;
import dev.vigil.kit.db.Database;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.monitor.quiet.Quiet;
import dev.vigil.monitor.quiet.QuietRules;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.trace.Tracer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The periodic job that writes what is due without a new result: the FAILED of an incident opened
 * while its service was quiet, once the quiet period has ended and it is still open, and the
 * REMINDERs of open, announced, unacknowledged incidents of targets with {@code remindEvery}.
 *
 * <p>Guarantees: each service is handled in its own transaction that holds the service's {@code
 * alert_state} row lock (taken with {@code SKIP LOCKED}: a service another instance or a recorder
 * holds is left for the next run), re-reads the incident after the lock, decides quiet at the
 * database's time read under the lock, writes the outbox row and the incident's announcement times
 * together. A reminder is due one {@code remindEvery} after the incident's last FAILED or REMINDER
 * ({@code incidents.last_announced_at}), so several instances and restarts neither repeat nor skip
 * one; a reminder that fell due while the monitor was down is written once, at the next run. No
 * reminder is written while the service is quiet.
 */
public final class Announcer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Announcer.class);

  // Candidates only: every one is checked again under its lock. An incident held back until a
  // later time (not_before: the end of its quiet period, a parent's recovery plus the settle
  // period) is not selected before it, so however many are held back the due ones are reached.
  private static final String DUE =
      """
      select i.service
        from incidents i
        join targets t on t.name = i.service
       where i.closed_at is null
         and (i.not_before is null or i.not_before <= clock_timestamp())
         and (i.announced_at is null
              or (t.remind_every_ms is not null and i.acknowledged_at is null
                  and i.last_announced_at
                      + make_interval(secs => t.remind_every_ms / 1000.0) <= clock_timestamp()))
       order by coalesce(i.not_before, i.last_announced_at, i.opened_at)
       limit ?
      """;

  private static final String LOCK =
      "select 1 from alert_state where service = ? for update skip locked";

  // Read after the lock was granted (its own statement, so its snapshot includes every commit of
  // an earlier lock holder), with the database's time.
  private static final String INCIDENT =
      """
      select i.id, i.opened_at, i.announced_at, i.last_announced_at, i.acknowledged_at,
             t.remind_every_ms, a.consecutive_failures, a.last_error, clock_timestamp(),
             i.not_before
        from alert_state a
        join incidents i on i.id = a.open_incident_id and i.closed_at is null
        join targets t on t.name = a.service
       where a.service = ?
      """;

  private final DataSource dataSource;
  private final IncidentSql sql = new IncidentSql();
  private final QuietRules quietRules = new QuietRules();
  private final Duration interval;
  private final int batch;
  private final Counter failedRows;
  private final Counter reminderRows;
  private final Tracer tracer;
  private PeriodicTask timer;

  public Announcer(DataSource dataSource, Duration interval, int batch, MeterRegistry registry) {
    this(dataSource, interval, batch, registry, Tracing.none());
  }

  /**
   * @param tracing where the span of each event written is started (a new trace: no result decided
   *     it), whose traceparent is written with the outbox row
   */
  public Announcer(
      DataSource dataSource,
      Duration interval,
      int batch,
      MeterRegistry registry,
      Tracing tracing) {
    this.tracer = tracing.tracer();
    this.dataSource = dataSource;
    this.interval = interval;
    this.batch = batch;
    this.failedRows = counter(registry, "FAILED");
    this.reminderRows = counter(registry, "REMINDER");
  }

  private static Counter counter(MeterRegistry registry, String type) {
    return Counter.builder("vigil.monitor.outbox.rows.written")
        .description("Outbox rows committed")
        .tag("type", type)
        .register(registry);
  }

  public Announcer start() {
    timer = PeriodicTask.start("announcer", interval, interval, this::runOnce);
    return this;
  }

  /**
   * Handles every service that has something due, each in its own transaction.
   *
   * @return the events written
   */
  public List<AlertEvent> runOnce() {
    List<String> due =
        Database.inTransaction(
            dataSource,
            "finding due announcements",
            connection -> {
              List<String> services = new ArrayList<>();
              try (PreparedStatement statement = connection.prepareStatement(DUE)) {
                statement.setInt(1, batch);
                try (ResultSet rs = statement.executeQuery()) {
                  while (rs.next()) {
                    services.add(rs.getString(1));
                  }
                }
              }
              return services;
            });
    List<AlertEvent> written = new ArrayList<>();
    for (String service : due) {
      if (Thread.currentThread().isInterrupted()) {
        break;
      }
      AlertEvent event =
          Database.inTransaction(
              dataSource, "announcing for " + service, connection -> announce(connection, service));
      if (event != null) {
        afterCommit(event);
        written.add(event);
      }
    }
    return written;
  }

  private AlertEvent announce(Connection connection, String service) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(LOCK)) {
      statement.setString(1, service);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          return null; // held by a recorder or another instance: next run
        }
      }
    }
    try (PreparedStatement statement = connection.prepareStatement(INCIDENT)) {
      statement.setString(1, service);
      try (ResultSet rs = statement.executeQuery()) {
        if (!rs.next()) {
          return null; // closed meanwhile
        }
        UUID incident = rs.getObject(1, UUID.class);
        Instant openedAt = rs.getTimestamp(2).toInstant();
        boolean announced = rs.getTimestamp(3) != null;
        Timestamp lastAnnounced = rs.getTimestamp(4);
        boolean acknowledged = rs.getTimestamp(5) != null;
        Long remindEveryMs = rs.getObject(6, Long.class);
        int failures = rs.getInt(7);
        String lastError = rs.getString(8);
        Instant now = rs.getTimestamp(9).toInstant();
        Timestamp notBefore = rs.getTimestamp(10);
        if (notBefore != null && notBefore.toInstant().isAfter(now)) {
          return null; // another instance moved it on meanwhile
        }
        boolean reminderDue =
            announced
                && !acknowledged
                && remindEveryMs != null
                && !lastAnnounced.toInstant().plusMillis(remindEveryMs).isAfter(now);
        if (announced && !reminderDue) {
          return null;
        }
        if (!announced) {
          Dependencies.Parents parents =
              Dependencies.parents(connection, List.of(service))
                  .getOrDefault(service, Dependencies.Parents.NONE);
          if (parents.down() != null) {
            // Due again when that parent recovers (its RECOVERED releases it).
            hold(connection, incident, parents.reason(), null);
            return null;
          }
          Optional<Dependencies.Held> unconfirmed = parents.unconfirmed(openedAt, s -> null);
          if (unconfirmed.isPresent() && unconfirmed.get().until().isAfter(now)) {
            hold(connection, incident, unconfirmed.get().reason(), unconfirmed.get().until());
            return null;
          }
        }
        Optional<Quiet> quiet = quietRules.at(connection, service, now);
        if (quiet.isPresent()) {
          hold(connection, incident, announced ? null : quiet.get().reason(), quiet.get().until());
          return null;
        }
        AlertEvent event =
            announced
                ? AlertEvent.reminder(
                    UUID.randomUUID(), incident, service, now, failures, lastError, openedAt)
                : AlertEvent.deferredFailed(
                    UUID.randomUUID(), incident, service, now, failures, lastError, openedAt);
        if (!announced) {
          // A deferred FAILED of a target probed from several locations carries their verdicts
          // now, as one written by the recorder does, and a parent's its children's impact (a
          // REMINDER carries neither, by the contract).
          Map<String, String> verdicts = LocationReads.verdicts(connection, service);
          if (verdicts != null) {
            event = event.withLocations(verdicts);
          }
          AlertEvent.Impact impact = Dependencies.impact(connection, List.of(service)).get(service);
          if (impact != null) {
            event = event.withImpact(impact);
          }
        }
        markAnnounced(connection, incident, now, !announced);
        sql.insertOutbox(connection, event, tracer.spanBuilder("announce"));
        return event;
      }
    }
  }

  /**
   * Records why the incident's FAILED stays held back (null: keep the reason, e.g. for a quiet
   * REMINDER) and when to look again ({@code until} null: when a parent recovers).
   */
  private static void hold(Connection connection, UUID incident, String reason, Instant until)
      throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            update incidents
               set held_reason = coalesce(?, held_reason),
                   not_before = coalesce(?::timestamptz, 'infinity')
             where id = ?
            """)) {
      statement.setString(1, reason);
      statement.setObject(
          2, until == null ? null : OffsetDateTime.ofInstant(until, ZoneOffset.UTC));
      statement.setObject(3, incident);
      statement.executeUpdate();
    }
  }

  private static void markAnnounced(
      Connection connection, UUID incident, Instant now, boolean first) throws SQLException {
    try (PreparedStatement statement =
        connection.prepareStatement(
            """
            update incidents
               set announced_at = case when ? then ? else announced_at end,
                   last_announced_at = ?, held_reason = null, not_before = null
             where id = ?
            """)) {
      statement.setBoolean(1, first);
      statement.setTimestamp(2, Timestamp.from(now));
      statement.setTimestamp(3, Timestamp.from(now));
      statement.setObject(4, incident);
      statement.executeUpdate();
    }
  }

  private void afterCommit(AlertEvent event) {
    switch (event.kind()) {
      case FAILED -> failedRows.increment();
      case REMINDER -> reminderRows.increment();
      default -> {}
    }
    LOG.info(
        "alert committed service={} kind={} incident_id={} event_id={} consecutive_failures={}"
            + " by=announcer",
        event.service(),
        event.kind(),
        event.incidentId(),
        event.eventId(),
        event.consecutiveFailures());
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.close();
    }
  }
}
