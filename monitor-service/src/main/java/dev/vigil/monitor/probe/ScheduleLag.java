package dev.vigil.monitor.probe;

import dev.vigil.kit.PeriodicTask;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * {@code vigil_monitor_probe_schedule_lag_seconds}: how long the most overdue probe (HTTP, TCP or
 * DNS: every kind the monitor probes; push targets are watched for heartbeats instead) has waited
 * past its due time without any instance claiming it, by the database's clock (every instance
 * reports the same value: the schedule is shared). Sampled in the background, never at scrape time,
 * so a scrape answers at once even while the database does not (the value is then {@code NaN}).
 */
final class ScheduleLag implements AutoCloseable {
  static final String METRIC = "vigil.monitor.probe.schedule.lag.seconds";
  private static final Duration SAMPLE_INTERVAL = Duration.ofSeconds(5);
  private static final String LAG =
      """
      select coalesce(extract(epoch from (now() - min(due))), 0)
        from (select s.next_due_at as due
                from probe_schedule s
                join targets t on t.name = s.target
               where t.enabled and t.kind in ('http', 'tcp', 'dns') and s.next_due_at <= now()
                 and t.locations is null
                 and (s.lease_until is null or s.lease_until < now())
              union all
              select s.next_due_at
                from location_schedule s
                join targets t on t.name = s.target
               where t.enabled and t.kind in ('http', 'tcp', 'dns') and s.next_due_at <= now()
                 and (s.lease_until is null or s.lease_until < now())) overdue
      """;

  private final DataSource dataSource;
  private volatile double seconds = Double.NaN;
  private PeriodicTask sampler;

  ScheduleLag(DataSource dataSource, MeterRegistry registry) {
    this.dataSource = dataSource;
    Gauge.builder(METRIC, this, lag -> lag.seconds)
        .description(
            "Seconds the most overdue probe has waited past its due time unclaimed (0 = none"
                + " overdue; NaN = not measured, e.g. database unreachable)")
        .strongReference(true)
        .register(registry);
  }

  void start() {
    sampler =
        PeriodicTask.start("probe-schedule-lag", Duration.ZERO, SAMPLE_INTERVAL, this::sample);
  }

  /** Measures the lag now and publishes it; {@code NaN} when the database does not answer. */
  double sample() {
    double measured;
    try (Connection connection = dataSource.getConnection();
        PreparedStatement statement = connection.prepareStatement(LAG)) {
      statement.setQueryTimeout((int) SAMPLE_INTERVAL.toSeconds());
      try (ResultSet rs = statement.executeQuery()) {
        rs.next();
        measured = rs.getDouble(1);
      }
    } catch (SQLException e) {
      measured = Double.NaN;
    }
    seconds = measured;
    return measured;
  }

  @Override
  public void close() {
    if (sampler != null) {
      sampler.close();
    }
  }
}
