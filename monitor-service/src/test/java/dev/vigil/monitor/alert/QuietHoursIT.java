package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertKind;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.tracing.TraceParent;
import dev.vigil.kit.tracing.Tracing;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.quiet.Silence;
import dev.vigil.monitor.quiet.Silences;
import dev.vigil.monitor.quiet.Window;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Maintenance windows, silences, reminders and acknowledgement through the real recorder and
 * announcer on the real database, deciding at the database's clock.
 */
@ExtendWith(VigilInfraExtension.class)
class QuietHoursIT {
  private static final String SERVICE = "payments";
  private static final Duration WAIT = Duration.ofSeconds(60);

  private DataSource dataSource;
  private TargetStore targets;
  private Recorder recorder;
  private Announcer announcer;
  private Silences silences;
  private Instant startedAt = Instant.parse("2026-01-01T00:00:00Z");

  private final SdkTracerProvider tracerProvider =
      SdkTracerProvider.builder()
          .addSpanProcessor(SimpleSpanProcessor.create(InMemorySpanExporter.create()))
          .build();

  @org.junit.jupiter.api.AfterEach
  void closeTracer() {
    tracerProvider.close();
  }

  @BeforeEach
  void setUp(TestDatabase db) {
    dataSource = db.dataSource();
    MonitorSchema.migrate(dataSource);
    targets = new TargetStore(dataSource);
    targets.add(TargetSpec.push(SERVICE));
    recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    announcer =
        new Announcer(
            dataSource,
            Duration.ofSeconds(1),
            100,
            new SimpleMeterRegistry(),
            Tracing.of(OpenTelemetrySdk.builder().setTracerProvider(tracerProvider).build()));
    silences = new Silences(dataSource);
  }

  @Test
  void downDuringASilenceOpensTheIncidentQuietlyAndFailedIsWrittenWhenTheSilenceEnds() {
    // Long enough to outlast the quiet checks below on any machine; ended by the test after them.
    Silence silence = silences.add(SERVICE, null, "ops", "deploy", dbNow().plusSeconds(600));
    down();
    down();
    down();
    down();
    assertThat(outbox()).as("quiet: no FAILED").isEmpty();
    assertThat(Tables.count(dataSource, "select count(*) from incidents where closed_at is null"))
        .as("the incident is recorded")
        .isEqualTo(1);
    assertThat(Tables.count(dataSource, "select count(*) from check_history")).isEqualTo(4);
    assertThat(announcer.runOnce()).as("still quiet").isEmpty();

    // The service is still down when the silence ends: the announcer writes FAILED then.
    endNow(silence);
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .until(() -> !announcer.runOnce().isEmpty());
    List<AlertEvent> events = outbox();
    assertThat(events).extracting(AlertEvent::kind).containsExactly(AlertKind.FAILED);
    assertThat(events.get(0).incidentId()).isEqualTo(openIncident());
    assertThat(events.get(0).consecutiveFailures()).isEqualTo(4);
    // Its own trace: the announcer's span, written with the row.
    String trace = Tables.text(dataSource, "select traceparent from outbox where type = 'FAILED'");
    assertThat(TraceParent.parse(trace)).isPresent();
    Instant openedAt = events.get(0).openedAt();
    assertThat(openedAt)
        .as("a deferred FAILED carries when its incident opened")
        .isNotNull()
        .isBefore(events.get(0).occurredAt());
    assertThat(openedAt.getEpochSecond() * 1_000_000 + openedAt.getNano() / 1_000)
        .isEqualTo(
            Tables.count(
                dataSource,
                "select (extract(epoch from opened_at) * 1000000)::bigint from incidents"
                    + " where id = '"
                    + openIncident()
                    + "'"));
    assertThat(announcer.runOnce()).as("announced once").isEmpty();

    up();
    assertThat(outbox())
        .extracting(AlertEvent::kind)
        .containsExactly(AlertKind.FAILED, AlertKind.RECOVERED);
  }

  @Test
  void recoveryWhileQuietWritesNoRecoveredAndNothingAfterTheSilence() {
    Silence silence = silences.add(null, "pay", "ops", "planned", dbNow().plusSeconds(600));
    down();
    down();
    down();
    up();
    assertThat(Tables.count(dataSource, "select count(*) from incidents where closed_at is null"))
        .isZero();
    assertThat(Tables.count(dataSource, "select count(*) from incidents")).isEqualTo(1);
    silences.delete(silence.id());
    assertThat(announcer.runOnce()).isEmpty();
    assertThat(outbox()).as("no FAILED was sent, so no RECOVERED either").isEmpty();
  }

  @Test
  void incidentAnnouncedBeforeTheSilenceStillGetsItsRecoveredButNoReminders() {
    setRemindEveryMs(1000);
    down();
    down();
    down();
    silences.add(SERVICE, null, "ops", "known", dbNow().plusSeconds(600));
    makeReminderDue();
    assertThat(announcer.runOnce()).as("no reminders while quiet").isEmpty();
    up();
    assertThat(outbox())
        .extracting(AlertEvent::kind)
        .containsExactly(AlertKind.FAILED, AlertKind.RECOVERED);
  }

  @Test
  void recurringWindowCoveringTheDatabasesNowDefersFailedAndOneBesideItDoesNot() {
    ZoneId berlin = ZoneId.of("Europe/Berlin");
    LocalTime local = dbNow().atZone(berlin).toLocalTime().truncatedTo(ChronoUnit.MINUTES);
    EnumSet<DayOfWeek> everyDay = EnumSet.allOf(DayOfWeek.class);
    Window covering = new Window(everyDay, local.minusMinutes(1), Duration.ofMinutes(10), berlin);
    Window later = new Window(everyDay, local.plusMinutes(30), Duration.ofMinutes(1), berlin);
    targets.update(TargetSpec.push(SERVICE).toBuilder().maintenance(List.of(later)).build());
    down();
    down();
    down();
    assertThat(outbox()).extracting(AlertEvent::kind).containsExactly(AlertKind.FAILED);
    up();

    targets.update(TargetSpec.push(SERVICE).toBuilder().maintenance(List.of(covering)).build());
    down();
    down();
    down();
    assertThat(outbox())
        .as("the second incident opened inside the window")
        .extracting(AlertEvent::kind)
        .containsExactly(AlertKind.FAILED, AlertKind.RECOVERED);
    assertThat(announcer.runOnce()).isEmpty();

    // The window is removed (same effect as its end): the still-open incident is announced.
    targets.update(TargetSpec.push(SERVICE));
    assertThat(announcer.runOnce()).extracting(AlertEvent::kind).containsExactly(AlertKind.FAILED);
  }

  @Test
  void prefixWindowFromTheApiStoreAppliesToEveryMatchingService() {
    ZoneId utc = ZoneId.of("UTC");
    LocalTime local = dbNow().atZone(utc).toLocalTime().truncatedTo(ChronoUnit.MINUTES);
    new dev.vigil.monitor.quiet.PrefixWindows(dataSource)
        .add(
            "pay",
            new Window(
                EnumSet.allOf(DayOfWeek.class),
                local.minusMinutes(1),
                Duration.ofMinutes(10),
                utc));
    down();
    down();
    down();
    assertThat(outbox()).isEmpty();
  }

  @Test
  void remindersAtAShortPeriodCarryTheIncidentAndStopWhenAcknowledged() {
    setRemindEveryMs(1000);
    down();
    down();
    down();
    UUID incident = openIncident();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              announcer.runOnce();
              return outbox().size() >= 3;
            });
    List<AlertEvent> events = outbox();
    assertThat(events.get(0).kind()).isEqualTo(AlertKind.FAILED);
    assertThat(events.subList(1, 3))
        .allSatisfy(
            r -> {
              assertThat(r.kind()).isEqualTo(AlertKind.REMINDER);
              assertThat(r.incidentId()).isEqualTo(incident);
              assertThat(r.openedAt()).isEqualTo(events.get(0).occurredAt());
            });
    assertThat(events).extracting(AlertEvent::eventId).doesNotHaveDuplicates();
    assertThat(Duration.between(events.get(1).occurredAt(), events.get(2).occurredAt()))
        .as("one period apart at least (database clock)")
        .isGreaterThanOrEqualTo(Duration.ofSeconds(1));

    Acknowledger.Acknowledgement ack =
        new Acknowledger(dataSource).acknowledge(incident, "alice").orElseThrow();
    assertThat(ack.by()).isEqualTo("alice");
    assertThat(new Acknowledger(dataSource).acknowledge(incident, "bob").orElseThrow().by())
        .as("the first acknowledgement stays")
        .isEqualTo("alice");
    int before = outbox().size();
    makeReminderDue();
    assertThat(announcer.runOnce()).as("acknowledged: no more reminders").isEmpty();
    assertThat(outbox()).hasSize(before);
  }

  @Test
  void acknowledgingUnknownOrClosedIncidentsWritesNothing() {
    assertThat(new Acknowledger(dataSource).acknowledge(UUID.randomUUID(), "alice")).isEmpty();
    down();
    down();
    down();
    UUID incident = openIncident();
    up();
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> new Acknowledger(dataSource).acknowledge(incident, "alice"))
        .isInstanceOf(Acknowledger.ClosedIncidentException.class);
  }

  @Test
  void disablingATargetWhoseIncidentWasNeverAnnouncedWritesNoRecovered() {
    silences.add(SERVICE, null, "ops", "planned", dbNow().plusSeconds(600));
    down();
    down();
    down();
    assertThat(targets.setEnabled(SERVICE, false)).isEmpty();
    assertThat(outbox()).isEmpty();
  }

  private void setRemindEveryMs(long ms) {
    // The targets file and the API accept 1m at least; tests set a short period in the database,
    // which allows 1 s.
    Tables.count(
        dataSource,
        "with u as (update targets set remind_every_ms = "
            + ms
            + " where name = '"
            + SERVICE
            + "' returning 1) select count(*) from u");
  }

  /**
   * Lets the silence run out now, as its end time passing would: the silence ends, and so does the
   * time until which the announcer was told to leave the incidents it held back (its end).
   */
  private void endNow(Silence silence) {
    Tables.count(
        dataSource,
        "with u as (update silences set ends_at = clock_timestamp() where id = '"
            + silence.id()
            + "' returning 1), i as (update incidents set not_before = clock_timestamp()"
            + " where not_before <> 'infinity' returning 1) select count(*) from u");
  }

  private void makeReminderDue() {
    Tables.count(
        dataSource,
        "with u as (update incidents set last_announced_at = last_announced_at - interval '1 day'"
            + " where closed_at is null returning 1) select count(*) from u");
  }

  private Instant dbNow() {
    try (Connection connection = dataSource.getConnection()) {
      return Instant.parse(
          Tables.rows(
                  connection,
                  "select to_char(clock_timestamp() at time zone 'UTC',"
                      + " 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')")
              .get(0));
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  private UUID openIncident() {
    try (Connection connection = dataSource.getConnection()) {
      return UUID.fromString(
          Tables.rows(connection, "select id from incidents where closed_at is null").get(0));
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
  }

  private void down() {
    recorder.record(dev.vigil.monitor.alert.ProbeResult.down(SERVICE, next(), 5, 503, "HTTP 503"));
  }

  private void up() {
    recorder.record(ProbeResult.up(SERVICE, next(), 5, 200));
  }

  private Instant next() {
    startedAt = startedAt.plusSeconds(1);
    return startedAt;
  }

  private List<AlertEvent> outbox() {
    List<AlertEvent> events = new ArrayList<>();
    try (Connection connection = dataSource.getConnection()) {
      for (String payload :
          Tables.rows(connection, "select payload::text from outbox order by seq")) {
        events.add(AlertEventJson.read(payload.getBytes(StandardCharsets.UTF_8)));
      }
    } catch (SQLException e) {
      throw new AssertionError(e);
    }
    return events;
  }
}
