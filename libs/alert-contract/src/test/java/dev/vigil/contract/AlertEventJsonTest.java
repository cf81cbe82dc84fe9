package dev.vigil.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class AlertEventJsonTest {
  private static final Instant OPENED = Instant.parse("2026-01-01T10:00:00Z");

  @Test
  void recoveredEventRoundTripsWithIsoDowntime() {
    AlertEvent event =
        AlertEvent.recovered(
            UUID.randomUUID(),
            UUID.randomUUID(),
            "billing-api",
            OPENED.plusSeconds(90),
            4,
            "connect timed out",
            OPENED);

    String json = AlertEventJson.write(event);

    assertThat(json)
        .contains("\"downtime\":\"PT1M30S\"")
        .contains("\"occurredAt\":\"2026-01-01T10:01:30Z\"");
    assertThat(AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8))).isEqualTo(event);
  }

  @Test
  void failedEventOmitsRecoveryFields() {
    AlertEvent event =
        AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "db", OPENED, 3, "HTTP 503");

    String json = AlertEventJson.write(event);

    assertThat(json).doesNotContain("openedAt").doesNotContain("downtime");
    assertThat(AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8)).downtime()).isNull();
  }

  @Test
  void failedWithLocationVerdictsRoundTripsSorted() {
    AlertEvent event =
        AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "db", OPENED, 3, "HTTP 503")
            .withLocations(java.util.Map.of("us-east", "connect timeout", "eu-west", "HTTP 503"));

    String json = AlertEventJson.write(event);

    assertThat(json)
        .contains("\"locations\":{\"eu-west\":\"HTTP 503\",\"us-east\":\"connect timeout\"}");
    assertThat(AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8))).isEqualTo(event);
  }

  @Test
  void recoveredWithImpactRoundTrips() {
    AlertEvent event =
        AlertEvent.recovered(
                UUID.randomUUID(), UUID.randomUUID(), "gateway", OPENED, 3, "x", OPENED)
            .withImpact(new AlertEvent.Impact(200, java.util.List.of("app-1", "app-2")));

    String json = AlertEventJson.write(event);

    assertThat(json).contains("\"impact\":{\"children\":200,\"names\":[\"app-1\",\"app-2\"]}");
    assertThat(AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8))).isEqualTo(event);
  }

  @Test
  void impactWithMoreNamesThanChildrenOrOnReminderIsRefused() {
    assertThatThrownBy(() -> new AlertEvent.Impact(1, java.util.List.of("a", "b")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("impact names");
    AlertEvent reminder =
        AlertEvent.reminder(UUID.randomUUID(), UUID.randomUUID(), "db", OPENED, 3, "x", OPENED);
    assertThatThrownBy(() -> reminder.withImpact(new AlertEvent.Impact(1, java.util.List.of("a"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("impact is only set on FAILED and RECOVERED");
    String json =
        AlertEventJson.write(
                AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "db", OPENED, 3, null))
            .replaceFirst("\\{", "{\"impact\":{\"children\":\"many\",\"names\":[]},");
    assertThatThrownBy(() -> AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(InvalidAlertEventException.class)
        .hasMessageContaining("impact");
  }

  @Test
  void eventWithoutLocationsOmitsTheField() {
    String json =
        AlertEventJson.write(
            AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "db", OPENED, 3, "x"));

    assertThat(json).doesNotContain("locations");
  }

  @Test
  void badLocationNameIsRefusedOnRead() {
    String json =
        AlertEventJson.write(
                AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "db", OPENED, 3, null))
            .replaceFirst("\\{", "{\"locations\":{\"EU West\":\"up\"},");

    assertThatThrownBy(() -> AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(InvalidAlertEventException.class)
        .hasMessageContaining("EU West");
  }

  @Test
  void unknownFieldsAreIgnoredForAdditiveChanges() {
    String json =
        AlertEventJson.write(
                AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "db", OPENED, 3, null))
            .replaceFirst("\\{", "{\"addedLater\":true,");

    assertThat(AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8)).service())
        .isEqualTo("db");
  }

  @Test
  void reminderRoundTripsWithItsIncidentAndDowntimeSoFar() {
    UUID incident = UUID.randomUUID();
    AlertEvent reminder =
        AlertEvent.reminder(
            UUID.randomUUID(), incident, "db", OPENED.plusSeconds(600), 9, "timeout", OPENED);

    AlertEvent read = read(AlertEventJson.write(reminder));

    assertThat(read).isEqualTo(reminder);
    assertThat(read.kind()).isEqualTo(AlertKind.REMINDER);
    assertThat(read.incidentId()).isEqualTo(incident);
    assertThat(read.downtime()).hasMinutes(10);
    assertThatThrownBy(
            () -> read(AlertEventJson.write(reminder).replaceFirst(",\"openedAt\":\"[^\"]+\"", "")))
        .hasMessageContaining("openedAt is required for REMINDER");
  }

  @Test
  void invalidPayloadsNameTheField() {
    assertThatThrownBy(() -> read("not json")).hasMessageStartingWith("value: not JSON");
    assertThatThrownBy(() -> read("[1]")).hasMessage("value: not a JSON object");
    assertThatThrownBy(() -> read("{\"schemaVersion\":2}"))
        .hasMessage("schemaVersion: unknown schema version 2");
    assertThatThrownBy(() -> read("{\"schemaVersion\":1,\"kind\":\"DOWN\"}"))
        .isInstanceOf(UnknownAlertKindException.class)
        .hasMessage("kind: unknown kind 'DOWN' (known: [FAILED, RECOVERED, REMINDER])");
    assertThatThrownBy(() -> read("{\"schemaVersion\":1,\"kind\":7}"))
        .isNotInstanceOf(UnknownAlertKindException.class)
        .hasMessage("kind: must be a string");
    assertThatThrownBy(() -> read("{\"schemaVersion\":1,\"kind\":\"" + "X".repeat(5000) + "\"}"))
        .isInstanceOfSatisfying(
            UnknownAlertKindException.class, e -> assertThat(e.kind()).hasSize(41));
    assertThatThrownBy(
            () ->
                read(
                    "{\"schemaVersion\":1,\"kind\":\"FAILED\",\"eventId\":\"x\",\"incidentId\":\"y\"}"))
        .isInstanceOf(InvalidAlertEventException.class)
        .hasMessage("eventId: is not a UUID: x");
    assertThatThrownBy(() -> AlertEventJson.read(new byte[AlertEventJson.MAX_PAYLOAD_BYTES + 1]))
        .hasMessageContaining("more than");
  }

  @Test
  void longErrorsAreBounded() {
    String bounded = AlertEvent.boundedError("x".repeat(2000));

    assertThat(bounded).hasSize(AlertEvent.MAX_ERROR_LENGTH).endsWith("…");
    assertThat(AlertEvent.boundedError(null)).isNull();
  }

  @Test
  void resolutionIsWrittenOnlyWhenSetAndRoundTrips() {
    AlertEvent recovered =
        AlertEvent.recovered(
            UUID.randomUUID(), UUID.randomUUID(), "db", OPENED.plusSeconds(5), 3, "x", OPENED);
    AlertEvent closedByDisable = recovered.withResolution(AlertEvent.RESOLUTION_TARGET_DISABLED);

    assertThat(AlertEventJson.write(recovered)).doesNotContain("resolution");
    String json = AlertEventJson.write(closedByDisable);
    assertThat(json).contains("\"resolution\":\"target disabled\"");
    assertThat(read(json)).isEqualTo(closedByDisable);
    assertThat(read(AlertEventJson.write(recovered)).resolution()).isNull();
  }

  @Test
  void resolutionIsOnlyForRecoveredAndMustBeText() {
    AlertEvent failed =
        AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "db", OPENED, 3, null);
    assertThatThrownBy(() -> failed.withResolution("target disabled"))
        .isInstanceOf(IllegalStateException.class);
    String recovered =
        AlertEventJson.write(
            AlertEvent.recovered(
                UUID.randomUUID(),
                UUID.randomUUID(),
                "db",
                OPENED.plusSeconds(1),
                3,
                null,
                OPENED));
    assertThatThrownBy(() -> read(recovered.replaceFirst("\\{", "{\"resolution\":7,")))
        .hasMessage("resolution: must be a string");
    assertThatThrownBy(() -> read(recovered.replaceFirst("\\{", "{\"resolution\":\" \",")))
        .isInstanceOf(InvalidAlertEventException.class);
  }

  @Test
  void boundingNeverSplitsASurrogatePair() {
    String error = "x".repeat(AlertEvent.MAX_ERROR_LENGTH - 2) + "\uD83D\uDE00" + "tail";

    String bounded = AlertEvent.boundedError(error);

    assertThat(bounded).endsWith("x…");
    assertThat(Character.isHighSurrogate(bounded.charAt(bounded.length() - 2))).isFalse();
  }

  @Test
  void recoveredRequiresOpenedAtAndNonNegativeDowntime() {
    assertThatThrownBy(
            () ->
                new AlertEvent(
                    1,
                    UUID.randomUUID(),
                    UUID.randomUUID(),
                    "db",
                    AlertKind.RECOVERED,
                    OPENED,
                    0,
                    null,
                    null,
                    Duration.ZERO,
                    null))
        .hasMessage("openedAt is required for RECOVERED");
  }

  @Test
  void serviceNamesAreNormalizedOrRefused() {
    assertThat(ServiceNames.normalize("  Billing-API ")).isEqualTo("billing-api");
    assertThatThrownBy(() -> ServiceNames.normalize("-bad"))
        .hasMessageContaining("must be 1-50 characters");
    assertThatThrownBy(() -> ServiceNames.normalize("a".repeat(51)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static AlertEvent read(String json) {
    return AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aDeferredFailedCarriesWhenItsIncidentOpened() {
    Instant opened = Instant.parse("2026-12-01T02:00:00Z");
    AlertEvent event =
        AlertEvent.deferredFailed(
            UUID.randomUUID(),
            UUID.randomUUID(),
            "payments",
            opened.plusSeconds(3600),
            40,
            "timeout",
            opened);
    String json = AlertEventJson.write(event);
    assertThat(json).contains("\"openedAt\":\"2026-12-01T02:00:00Z\"");
    assertThat(AlertEventJson.read(json.getBytes(StandardCharsets.UTF_8))).isEqualTo(event);
    assertThatThrownBy(
            () ->
                AlertEvent.deferredFailed(
                    UUID.randomUUID(),
                    UUID.randomUUID(),
                    "payments",
                    opened,
                    3,
                    null,
                    opened.plusSeconds(1)))
        .hasMessageContaining("openedAt must not be after occurredAt");
    assertThat(
            AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "payments", opened, 3, null)
                .openedAt())
        .isNull();
  }
}
