package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.kit.Settings;
import dev.vigil.relay.config.RelayConfig;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class EnginePropertiesTest {
  private final RelayConfig config =
      new RelayConfig(
          new Settings(
              Map.of(
                  "VIGIL_DB_URL", "jdbc:postgresql://pg:5432/vigil",
                  "VIGIL_DB_USER", "relay",
                  "VIGIL_DB_PASSWORD", "secret",
                  "VIGIL_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092",
                  "VIGIL_RELAY_SLOT", "slot_a",
                  "VIGIL_RELAY_PUBLICATION", "pub_a")));
  private final Properties props = EngineProperties.of(config);

  @Test
  void theRelayOwnsThePublicationAndOffsetsLiveInPostgres() {
    assertThat(props)
        .containsEntry("plugin.name", "pgoutput")
        .containsEntry("slot.name", "slot_a")
        .containsEntry("publication.name", "pub_a")
        .containsEntry("publication.autocreate.mode", "disabled")
        .containsEntry("snapshot.mode", "no_data")
        .containsEntry("table.include.list", "public.outbox,public.relay_heartbeat")
        .containsEntry("offset.storage", PostgresOffsetStore.class.getName())
        .containsEntry("offset.flush.interval.ms", "0");
  }

  @Test
  void theEventRouterSendsEveryOutboxRowToTheConfiguredTopicWithContractHeaders() {
    assertThat(props)
        .containsEntry("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter")
        .containsEntry("transforms.outbox.route.topic.replacement", "vigil.alerts")
        .containsEntry("transforms.outbox.table.field.event.key", "aggregateid")
        .containsEntry("transforms.outbox.table.expand.json.payload", "false")
        .containsEntry(
            "transforms.outbox.table.fields.additional.placement",
            "type:header:kind,incident_id:header:incident_id,schema_version:header:schema_version")
        .containsEntry("predicates.isOutbox.pattern", "vigil_relay\\.public\\.outbox");
  }

  @Test
  void heartbeatsInsertBecauseThePublicationCarriesInsertsOnly() {
    assertThat(EngineProperties.heartbeatQuery("slot_a"))
        .contains("insert into public.relay_heartbeat (slot_name) values ('slot_a')")
        .doesNotContain("update");
    assertThat(props).containsEntry("heartbeat.interval.ms", "10000");
  }
}
