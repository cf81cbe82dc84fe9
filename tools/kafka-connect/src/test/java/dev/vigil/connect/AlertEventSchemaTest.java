package dev.vigil.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class AlertEventSchemaTest {
  private static final AlertEventSchema SCHEMA = new AlertEventSchema();
  private static final Instant OPENED = Instant.parse("2026-11-30T23:00:00.123456Z");

  private static AlertEvent failed() {
    return AlertEvent.failed(
        UUID.randomUUID(), UUID.randomUUID(), "payments-api", OPENED, 3, "connect timed out");
  }

  private static AlertEvent recovered() {
    return AlertEvent.recovered(
        UUID.randomUUID(),
        UUID.randomUUID(),
        "payments-api",
        OPENED.plusSeconds(95).plusNanos(500),
        4,
        null,
        OPENED);
  }

  /** The JSON of {@code event}, changed by {@code edit}. */
  private static String edited(AlertEvent event, Consumer<ObjectNode> edit) {
    try {
      ObjectNode node = (ObjectNode) AlertEventJson.mapper().readTree(AlertEventJson.write(event));
      edit.accept(node);
      return AlertEventJson.mapper().writeValueAsString(node);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  @Test
  void everyEventTheContractWritesIsValid() {
    assertThat(SCHEMA.violations(AlertEventJson.write(failed()))).isEmpty();
    assertThat(SCHEMA.violations(AlertEventJson.write(recovered()))).isEmpty();
    assertThat(
            SCHEMA.violations(
                AlertEventJson.write(
                    recovered().withResolution(AlertEvent.RESOLUTION_TARGET_DELETED))))
        .isEmpty();
    String longError = "ü😀".repeat(300);
    assertThat(
            SCHEMA.violations(
                AlertEventJson.write(
                    AlertEvent.failed(
                        UUID.randomUUID(),
                        UUID.randomUUID(),
                        "a",
                        Instant.EPOCH,
                        Integer.MAX_VALUE,
                        longError))))
        .isEmpty();
  }

  @Test
  void impactIsValidOnFailedAndRecoveredAndBoundedToFiveNames() {
    AlertEvent.Impact impact = new AlertEvent.Impact(200, java.util.List.of("app-000", "app-001"));
    assertThat(SCHEMA.violations(AlertEventJson.write(failed().withImpact(impact)))).isEmpty();
    assertThat(SCHEMA.violations(AlertEventJson.write(recovered().withImpact(impact)))).isEmpty();
    assertThat(
            SCHEMA.violations(
                edited(
                    failed(),
                    node -> {
                      var bad = node.putObject("impact");
                      bad.put("children", 9);
                      var names = bad.putArray("names");
                      for (int i = 0; i < 6; i++) {
                        names.add("app-" + i);
                      }
                    })))
        .as("six names")
        .isNotEmpty();
    assertThat(
            SCHEMA.violations(
                edited(failed(), node -> node.putObject("impact").put("children", 0))))
        .isNotEmpty();
  }

  @Test
  void locationVerdictsAreValidOnFailedAndRecoveredOnly() {
    java.util.Map<String, String> verdicts =
        java.util.Map.of("eu-west", "HTTP 503", "us-east", "connect timed out", "ap-south", "up");
    assertThat(SCHEMA.violations(AlertEventJson.write(failed().withLocations(verdicts)))).isEmpty();
    assertThat(SCHEMA.violations(AlertEventJson.write(recovered().withLocations(verdicts))))
        .isEmpty();
    assertThat(
            SCHEMA.violations(
                edited(failed(), node -> node.putObject("locations").put("EU West", "up"))))
        .isNotEmpty();
    assertThat(
            SCHEMA.violations(
                edited(failed(), node -> node.putObject("locations").put("eu-west", ""))))
        .isNotEmpty();
  }

  @Test
  void additivePropertiesAreAccepted() {
    // Changes within a schema version are additive: a consumer must not reject a field it does
    // not know yet (resolution was added this way).
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("region", "eu-west-1")))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "schemaVersion",
        "eventId",
        "incidentId",
        "service",
        "kind",
        "occurredAt",
        "consecutiveFailures"
      })
  void aMissingRequiredFieldIsRejected(String field) {
    assertThat(SCHEMA.violations(edited(failed(), n -> n.remove(field))))
        .anySatisfy(v -> assertThat(v).contains(field));
  }

  @ParameterizedTest
  @ValueSource(strings = {"openedAt", "downtime"})
  void aRecoveredWithoutItsIncidentTimesIsRejected(String field) {
    assertThat(SCHEMA.violations(edited(recovered(), n -> n.remove(field))))
        .anySatisfy(v -> assertThat(v).contains(field));
  }

  @ParameterizedTest
  @ValueSource(strings = {"openedAt", "downtime", "resolution"})
  void aFailedCarryingRecoveredOnlyFieldsIsRejected(String field) {
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put(field, "PT1M")))).isNotEmpty();
  }

  @Test
  void wrongKindsAndValuesAreRejected() {
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("kind", "DEGRADED")))).isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("kind", "failed")))).isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("schemaVersion", 2)))).isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("schemaVersion", "1")))).isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("eventId", "not-a-uuid"))))
        .isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("incidentId", 42)))).isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("service", "Payments API"))))
        .isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("service", "x".repeat(51)))))
        .isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("consecutiveFailures", -1))))
        .isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("consecutiveFailures", 1.5))))
        .isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("consecutiveFailures", 2147483648L))))
        .isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("occurredAt", "yesterday"))))
        .isNotEmpty();
    assertThat(
            SCHEMA.violations(
                edited(failed(), n -> n.put("occurredAt", "2026-11-30T23:00:00+01:00"))))
        .isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.put("lastError", "x".repeat(501)))))
        .isNotEmpty();
    assertThat(SCHEMA.violations(edited(failed(), n -> n.putNull("lastError")))).isNotEmpty();
    assertThat(SCHEMA.violations(edited(recovered(), n -> n.put("downtime", "-PT1S"))))
        .isNotEmpty();
    assertThat(SCHEMA.violations(edited(recovered(), n -> n.put("downtime", "PT")))).isNotEmpty();
    assertThat(SCHEMA.violations(edited(recovered(), n -> n.put("downtime", 95)))).isNotEmpty();
    assertThat(SCHEMA.violations(edited(recovered(), n -> n.put("resolution", "   "))))
        .isNotEmpty();
    assertThat(SCHEMA.violations(edited(recovered(), n -> n.put("resolution", "")))).isNotEmpty();
  }

  @Test
  void aValueThatIsNotAnObjectIsRejected() {
    assertThat(SCHEMA.violations("[]")).isNotEmpty();
    assertThat(SCHEMA.violations("\"{\\\"kind\\\":\\\"FAILED\\\"}\"")).isNotEmpty();
    assertThat(SCHEMA.violations("null")).isNotEmpty();
  }
}
