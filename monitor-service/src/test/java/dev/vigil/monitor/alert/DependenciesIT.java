package dev.vigil.monitor.alert;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertKind;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.Tables;
import dev.vigil.monitor.quiet.Silences;
import dev.vigil.monitor.targets.TargetKind;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Dependency-aware suppression through the real recorder and announcer on the real database: a
 * gateway and its children, an independent service, monitors restarting and running twice, and an
 * announcer that reaches a due incident behind more than one batch of held-back ones.
 */
@ExtendWith(VigilInfraExtension.class)
class DependenciesIT {
  private static final int CHILDREN = 40;

  private DataSource dataSource;
  private TargetStore targets;
  private Instant startedAt = Instant.parse("2026-01-01T00:00:00Z");

  @BeforeEach
  void setUp(TestDatabase db) {
    dataSource = db.dataSource();
    MonitorSchema.migrate(dataSource);
    targets = new TargetStore(dataSource);
  }

  @Test
  void gatewayDownPagesOnceWithImpactAndOnlyChildrenStillDownAfterItsRecoveryArePaged() {
    List<TargetSpec> all = new ArrayList<>();
    all.add(TargetSpec.push("gateway"));
    all.add(TargetSpec.push("other"));
    children().forEach(c -> all.add(child(c, Duration.ZERO)));
    // Settles for an hour: still held back after the gateway's recovery.
    all.add(child("slow", Duration.ofHours(1)));
    targets.upsertAll(all, TargetStore.Source.API);
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());

    // Children fail first (one DOWN each), then the gateway opens its incident, then the children
    // and the independent service open theirs: in one batch, as a busy recorder would.
    record(recorder, children(), false, 1);
    record(recorder, List.of("slow"), false, 1);
    record(recorder, List.of("gateway"), false, 3);
    List<String> rest = new ArrayList<>(children());
    rest.add("slow");
    rest.add("other");
    record(recorder, rest, false, 2);
    record(recorder, List.of("other"), false, 1);

    List<AlertEvent> events = outbox();
    assertThat(events)
        .extracting(AlertEvent::service, AlertEvent::kind)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("gateway", AlertKind.FAILED),
            org.assertj.core.groups.Tuple.tuple("other", AlertKind.FAILED));
    AlertEvent gatewayFailed = only(events, "gateway", AlertKind.FAILED);
    assertThat(gatewayFailed.impact().children()).isEqualTo(CHILDREN + 1);
    assertThat(gatewayFailed.impact().names())
        .containsExactly("app-00", "app-01", "app-02", "app-03", "app-04");
    assertThat(
            Tables.count(
                dataSource,
                "select count(*) from incidents where closed_at is null and announced_at is null"
                    + " and held_reason = 'parent gateway is down' and not_before = 'infinity'"))
        .as("every child's incident is recorded, held back, and says why")
        .isEqualTo(CHILDREN + 1);
    assertThat(
            new Announcer(dataSource, Duration.ofSeconds(1), 500, new SimpleMeterRegistry())
                .runOnce())
        .as("nothing is due while the gateway is down")
        .isEmpty();

    // All but three children (and slow) recover with or just after... before the gateway: no
    // RECOVERED for an incident whose FAILED was never written.
    record(recorder, children().subList(3, CHILDREN), true, 1);
    record(recorder, List.of("gateway"), true, 1);
    List<AlertEvent> afterRecovery = outbox();
    AlertEvent gatewayRecovered = only(afterRecovery, "gateway", AlertKind.RECOVERED);
    assertThat(gatewayRecovered.impact().children()).as("children still down").isEqualTo(4);
    assertThat(gatewayRecovered.impact().names())
        .containsExactly("app-00", "app-01", "app-02", "slow");
    assertThat(afterRecovery).hasSize(3);

    // A monitor restart (new instances) and two announcers at once: each still-down child is paged
    // exactly once, the one settling for an hour not yet.
    Recorder restarted = new Recorder(dataSource, new SimpleMeterRegistry());
    CompletableFuture<List<AlertEvent>> first = CompletableFuture.supplyAsync(this::announceOnce);
    CompletableFuture<List<AlertEvent>> second = CompletableFuture.supplyAsync(this::announceOnce);
    List<AlertEvent> announced = new ArrayList<>(first.join());
    announced.addAll(second.join());
    announced.addAll(announceOnce()); // whatever a held lock left for the next run
    assertThat(announced)
        .extracting(AlertEvent::service)
        .containsExactlyInAnyOrder("app-00", "app-01", "app-02");
    assertThat(announced).allSatisfy(e -> assertThat(e.openedAt()).isNotNull());
    assertThat(announceOnce()).isEmpty();
    assertThat(
            Tables.count(
                dataSource,
                "select count(*) from incidents i join targets t on t.name = i.service"
                    + " where t.name = 'slow' and i.closed_at is null and i.announced_at is null"
                    + " and i.not_before > clock_timestamp() + interval '50 minutes'"))
        .as("slow is due one settle period after the gateway's recovery")
        .isEqualTo(1);

    // The paged children recover with a RECOVERED; the gateway failing again holds nothing back
    // that was already paged.
    record(restarted, List.of("app-00", "app-01", "app-02"), true, 1);
    assertThat(outbox())
        .filteredOn(e -> e.kind() == AlertKind.RECOVERED)
        .extracting(AlertEvent::service)
        .containsExactlyInAnyOrder("gateway", "app-00", "app-01", "app-02");
    assertThat(outbox()).hasSize(3 + 3 + 3);
  }

  @Test
  void gatewayFailingInTheSameBatchAsItsChildrenCountsThemAllInItsImpact() {
    List<TargetSpec> all = new ArrayList<>();
    all.add(TargetSpec.push("gateway"));
    all.add(TargetSpec.push("other"));
    children().forEach(c -> all.add(child(c, Duration.ZERO)));
    targets.upsertAll(all, TargetStore.Source.API);
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    List<String> everyone = new ArrayList<>(children());
    everyone.add("gateway");
    everyone.add("other");
    // Up first (health rows UP), then every service fails three times in one transaction.
    record(recorder, everyone, true, 1);

    record(recorder, everyone, false, 3);

    List<AlertEvent> events = outbox();
    assertThat(events)
        .extracting(AlertEvent::service)
        .containsExactlyInAnyOrder("gateway", "other");
    AlertEvent gatewayFailed = only(events, "gateway", AlertKind.FAILED);
    assertThat(gatewayFailed.impact()).as("children failing with it in the batch").isNotNull();
    assertThat(gatewayFailed.impact().children()).isEqualTo(CHILDREN);
    assertThat(gatewayFailed.impact().names())
        .containsExactly("app-00", "app-01", "app-02", "app-03", "app-04");

    // Children recovering in the same batch as the gateway are not counted in its RECOVERED.
    List<String> recovering = new ArrayList<>(children().subList(2, CHILDREN));
    recovering.add("gateway");
    record(recorder, recovering, true, 1);
    AlertEvent gatewayRecovered = only(outbox(), "gateway", AlertKind.RECOVERED);
    assertThat(gatewayRecovered.impact().children()).isEqualTo(2);
    assertThat(gatewayRecovered.impact().names()).containsExactly("app-00", "app-01");
  }

  @Test
  void childrenReachingTheirThresholdBeforeTheirParentIsConfirmedWaitForIt() {
    List<TargetSpec> all = new ArrayList<>();
    all.add(gateway());
    children().forEach(c -> all.add(child(c, Duration.ZERO)));
    targets.upsertAll(all, TargetStore.Source.API);
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    // Equal thresholds (3): the gateway's first failure is recorded, then the children reach their
    // third (a monitor that probed them first, or fell behind), half of them in the same batch as
    // the gateway's second failure.
    record(recorder, List.of("gateway"), false, 1);
    record(recorder, children().subList(0, CHILDREN / 2), false, 3);
    List<String> batch = new ArrayList<>(children().subList(CHILDREN / 2, CHILDREN));
    record(recorder, batch, false, 2);
    batch.add("gateway");
    record(recorder, batch, false, 1);

    assertThat(outbox()).as("no child pages ahead of its parent").isEmpty();
    assertThat(
            Tables.count(
                dataSource,
                "select count(*) from incidents where closed_at is null and announced_at is null"
                    + " and held_reason = 'parent gateway is failing (not confirmed yet)'"
                    + " and not_before = opened_at + interval '"
                    + GATEWAY_CONFIRM.toMillis()
                    + " milliseconds'"))
        .as("held for the gateway's confirm bound: (3 + 1) x 5 s + 2 s")
        .isEqualTo(CHILDREN);
    assertThat(announceOnce()).as("not due before the bound").isEmpty();

    record(recorder, List.of("gateway"), false, 1);
    AlertEvent gatewayFailed = only(outbox(), "gateway", AlertKind.FAILED);
    assertThat(gatewayFailed.impact().children()).isEqualTo(CHILDREN);
    assertThat(outbox()).hasSize(1);

    // At the bound the gateway is down: held until it recovers, as if opened after its FAILED.
    Tables.execute(dataSource, "update incidents set not_before = now() where not_before > now()");
    assertThat(announceOnce()).isEmpty();
    assertThat(
            Tables.count(
                dataSource,
                "select count(*) from incidents where closed_at is null and announced_at is null"
                    + " and held_reason = 'parent gateway is down' and not_before = 'infinity'"))
        .isEqualTo(CHILDREN);

    record(recorder, children().subList(1, CHILDREN), true, 1);
    record(recorder, List.of("gateway"), true, 1);
    assertThat(announceOnce()).extracting(AlertEvent::service).containsExactly("app-00");
  }

  @Test
  void aChildHeldWhileItsParentWasUnconfirmedStillWaitsTheSettlePeriodAfterTheParentRecovers() {
    targets.upsertAll(
        List.of(gateway(), child("app-00", Duration.ofHours(1))), TargetStore.Source.API);
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    record(recorder, List.of("gateway"), false, 1);
    record(recorder, List.of("app-00"), false, 3);
    record(recorder, List.of("gateway"), false, 2);
    assertThat(outbox()).extracting(AlertEvent::service).containsExactly("gateway");

    // The gateway recovers before the child's confirm bound (22 s) has passed.
    record(recorder, List.of("gateway"), true, 1);

    assertThat(
            Tables.count(
                dataSource,
                "select count(*) from incidents where service = 'app-00' and closed_at is null"
                    + " and not_before > clock_timestamp() + interval '50 minutes'"))
        .as("due one settle period (1 h) after the recovery, not at the earlier bound")
        .isEqualTo(1);
    assertThat(announceOnce()).isEmpty();
  }

  @Test
  void aParentThatNeverReachesItsThresholdHoldsItsChildrenOnlyForItsConfirmBound() {
    targets.upsertAll(
        List.of(gateway(), child("app-00", Duration.ZERO), TargetSpec.push("alone")),
        TargetStore.Source.API);
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    record(recorder, List.of("gateway"), false, 1);
    record(recorder, List.of("app-00", "alone"), false, 3);
    assertThat(outbox()).extracting(AlertEvent::service).containsExactly("alone");

    // Before the bound the child waits; once its incident is older than the bound, the FAILED is
    // written although the gateway is still failing (it never reached its threshold).
    assertThat(announceOnce()).isEmpty();
    Tables.execute(
        dataSource,
        "update incidents set not_before = now(), opened_at = opened_at - interval '1 minute'"
            + " where service = 'app-00'");
    List<AlertEvent> written = announceOnce();
    assertThat(written).extracting(AlertEvent::service).containsExactly("app-00");
    assertThat(written.getFirst().kind()).isEqualTo(AlertKind.FAILED);
    assertThat(announceOnce()).isEmpty();
  }

  @Test
  void aChildOfAParentHeldBackByItsOwnParentIsHeldToo() {
    targets.upsertAll(
        List.of(
            TargetSpec.push("gateway"),
            child("api", Duration.ZERO),
            TargetSpec.builder("app-00", TargetKind.PUSH)
                .dependsOn(List.of("api"), Duration.ZERO)
                .build()),
        TargetStore.Source.API);
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    record(recorder, List.of("gateway"), false, 3);
    record(recorder, List.of("api"), false, 3);
    record(recorder, List.of("app-00"), false, 3);

    assertThat(outbox()).extracting(AlertEvent::service).containsExactly("gateway");
    assertThat(
            Tables.count(
                dataSource,
                "select count(*) from incidents where service = 'app-00' and closed_at is null"
                    + " and held_reason = 'parent api is down' and not_before = 'infinity'"))
        .isEqualTo(1);

    // api recovers (never paged): its child's FAILED is released and written.
    record(recorder, List.of("api"), true, 1);
    assertThat(announceOnce()).extracting(AlertEvent::service).containsExactly("app-00");
  }

  @Test
  void deletingAParentRemovesItFromItsChildrenAndReleasesTheirHeldFailed() {
    targets.upsertAll(
        List.of(
            TargetSpec.push("gateway"),
            child("app-00", Duration.ZERO),
            child("app-01", Duration.ZERO).toBuilder()
                .dependsOn(List.of("gateway", "ghost"), Duration.ZERO)
                .build()),
        TargetStore.Source.API);
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    record(recorder, List.of("gateway"), false, 3);
    record(recorder, List.of("app-00", "app-01"), false, 3);
    assertThat(outbox()).extracting(AlertEvent::service).containsExactly("gateway");

    targets.delete("gateway");

    assertThat(targets.find("app-00").orElseThrow().dependsOn()).isEmpty();
    assertThat(targets.find("app-01").orElseThrow().dependsOn()).containsExactly("ghost");
    assertThat(announceOnce())
        .as("an unknown parent holds nothing back")
        .extracting(AlertEvent::service)
        .containsExactlyInAnyOrder("app-00", "app-01");
  }

  @Test
  void announcerReachesADueIncidentBehindMoreThanOneBatchOfHeldBackOnes() {
    int held = 520;
    List<TargetSpec> all = new ArrayList<>();
    IntStream.range(0, held).forEach(i -> all.add(TargetSpec.push("maint-%03d".formatted(i))));
    all.add(TargetSpec.push("payments"));
    targets.upsertAll(all, TargetStore.Source.API);
    Silences silences = new Silences(dataSource);
    silences.add(null, "maint-", "ops", "planned", Instant.now().plusSeconds(3600));
    var paymentsSilence =
        silences.add("payments", null, "ops", "deploy", Instant.now().plusSeconds(3600));
    Recorder recorder = new Recorder(dataSource, new SimpleMeterRegistry());
    // The held-back incidents are the oldest candidates.
    record(
        recorder,
        all.stream().filter(t -> t.name().startsWith("maint-")).map(TargetSpec::name).toList(),
        false,
        3);
    record(recorder, List.of("payments"), false, 3);
    assertThat(outbox()).isEmpty();

    silences.delete(paymentsSilence.id());
    // A batch smaller than the held-back incidents: the due one is reached in the first run.
    List<AlertEvent> written =
        new Announcer(dataSource, Duration.ofSeconds(1), 500, new SimpleMeterRegistry()).runOnce();

    assertThat(written).extracting(AlertEvent::service).containsExactly("payments");
  }

  private List<AlertEvent> announceOnce() {
    return new Announcer(dataSource, Duration.ofSeconds(1), 500, new SimpleMeterRegistry())
        .runOnce();
  }

  private static List<String> children() {
    return IntStream.range(0, CHILDREN).mapToObj(i -> "app-%02d".formatted(i)).toList();
  }

  /** The gateway's confirm bound: (failure threshold + 1) x interval + timeout. */
  private static final Duration GATEWAY_CONFIRM = Duration.ofSeconds(4 * 5 + 2);

  private static TargetSpec gateway() {
    return TargetSpec.builder("gateway", TargetKind.PUSH)
        .interval(Duration.ofSeconds(5))
        .timeout(Duration.ofSeconds(2))
        .thresholds(3, 1)
        .build();
  }

  private static TargetSpec child(String name, Duration settle) {
    return TargetSpec.builder(name, TargetKind.PUSH).dependsOn(List.of("gateway"), settle).build();
  }

  /** {@code times} results of each service, all in one batch, in order. */
  private void record(Recorder recorder, List<String> services, boolean up, int times) {
    List<Recorder.Pending> pending = new ArrayList<>();
    for (int n = 0; n < times; n++) {
      startedAt = startedAt.plusSeconds(1);
      for (String service : services) {
        pending.add(
            new Recorder.Pending(
                up
                    ? ProbeResult.up(service, startedAt, 5, 200)
                    : ProbeResult.down(service, startedAt, 5, 503, "HTTP 503"),
                (c, o) -> {}));
      }
    }
    recorder.recordAll(pending).forEach(r -> assertThat(r.committed()).isTrue());
  }

  private static AlertEvent only(List<AlertEvent> events, String service, AlertKind kind) {
    List<AlertEvent> found =
        events.stream().filter(e -> e.service().equals(service) && e.kind() == kind).toList();
    assertThat(found).hasSize(1);
    return found.getFirst();
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
