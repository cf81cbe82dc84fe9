package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.kit.ConfigException;
import dev.vigil.kit.Settings;
import dev.vigil.relay.config.RelayConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class EnginePropertiesTest {
  private static final Map<String, String> ENV =
      Map.of(
          "VIGIL_DB_URL", "jdbc:postgresql://pg:5432/vigil",
          "VIGIL_DB_USER", "relay",
          "VIGIL_DB_PASSWORD", "secret",
          "VIGIL_KAFKA_BOOTSTRAP_SERVERS", "kafka:9092",
          "VIGIL_RELAY_SLOT", "slot_a",
          "VIGIL_RELAY_PUBLICATION", "pub_a");
  private final RelayConfig config = new RelayConfig(new Settings(ENV));
  private final Properties props = EngineProperties.of(config);

  @Test
  void theRelayOwnsThePublicationAndOffsetsLiveInTheTransactionalOffsetsTopic() {
    assertThat(props)
        .containsEntry("plugin.name", "pgoutput")
        .containsEntry("slot.name", "slot_a")
        .containsEntry("publication.name", "pub_a")
        .containsEntry("publication.autocreate.mode", "disabled")
        .containsEntry("snapshot.mode", "no_data")
        .containsEntry("table.include.list", "public.outbox,public.relay_heartbeat")
        .containsEntry("offset.storage", KafkaOffsetStore.class.getName())
        .containsEntry("vigil.offsets.kafka.topic", "vigil.relay.offsets")
        .containsEntry("vigil.offsets.kafka.consumer.bootstrap.servers", "kafka:9092")
        .containsEntry("offset.flush.interval.ms", "0");
    assertThat(OutboxStream.transactionalIds(config))
        .containsExactly("vigil-relay-slot_a", "vigil-relay-slot_a-1");
    assertThat(OutboxStream.transactionalProducerProperties(config, "vigil-relay-slot_a-1"))
        .containsEntry("transactional.id", "vigil-relay-slot_a-1")
        .containsEntry("enable.idempotence", true)
        .containsEntry("acks", "all");
  }

  @Test
  void oneTransactionalProducerPerIdUpToTheSetting() {
    Map<String, String> env = new HashMap<>(ENV);
    env.put("VIGIL_RELAY_TRANSACTION_PRODUCERS", "1");
    assertThat(OutboxStream.transactionalIds(new RelayConfig(new Settings(env))))
        .containsExactly("vigil-relay-slot_a");
    env.put("VIGIL_RELAY_TRANSACTION_PRODUCERS", "4");
    assertThat(OutboxStream.transactionalIds(new RelayConfig(new Settings(env))))
        .containsExactly(
            "vigil-relay-slot_a",
            "vigil-relay-slot_a-1",
            "vigil-relay-slot_a-2",
            "vigil-relay-slot_a-3");
    for (String bad : new String[] {"0", "5", "-1", "two", "1.5", "99999999999", "2\u0000"}) {
      env.put("VIGIL_RELAY_TRANSACTION_PRODUCERS", bad);
      assertThatThrownBy(() -> new RelayConfig(new Settings(env)))
          .as("VIGIL_RELAY_TRANSACTION_PRODUCERS=%s", bad)
          .isInstanceOf(ConfigException.class)
          .hasMessageContaining("VIGIL_RELAY_TRANSACTION_PRODUCERS");
    }
  }

  @Test
  void atLeastOnceKeepsOffsetsInPostgresAndANonTransactionalProducer() {
    Map<String, String> env = new HashMap<>(ENV);
    env.put("VIGIL_RELAY_DELIVERY", "at-least-once");
    RelayConfig atLeastOnce = new RelayConfig(new Settings(env));
    assertThat(EngineProperties.of(atLeastOnce))
        .containsEntry("offset.storage", PostgresOffsetStore.class.getName())
        .containsEntry("vigil.offsets.slot", "slot_a");
    assertThat(OutboxStream.atLeastOnceProducerProperties(atLeastOnce))
        .doesNotContainKey("transactional.id");
  }

  @Test
  void debeziumContextHeadersOnlyWhenAskedFor() {
    assertThat(props).containsEntry("extended.headers.enabled", "false");
    Map<String, String> env = new HashMap<>(ENV);
    env.put("VIGIL_RELAY_DEBEZIUM_HEADERS", "true");
    assertThat(EngineProperties.of(new RelayConfig(new Settings(env))))
        .containsEntry("extended.headers.enabled", "true");
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
        .containsEntry("predicates.isOutbox.type", OutboxTopicPredicate.class.getName())
        .containsEntry("predicates.isOutbox.topic", "vigil_relay.public.outbox");
  }

  @Test
  void heartbeatsInsertBecauseThePublicationCarriesInsertsOnly() {
    assertThat(EngineProperties.heartbeatQuery("slot_a"))
        .contains("insert into public.relay_heartbeat (slot_name) values ('slot_a')")
        .doesNotContain("update");
    assertThat(props).containsEntry("heartbeat.interval.ms", "10000");
  }
}
