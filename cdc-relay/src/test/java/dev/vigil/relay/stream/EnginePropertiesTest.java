package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;

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
    assertThat(OutboxStream.producerProperties(config))
        .containsEntry("transactional.id", "vigil-relay-slot_a")
        .containsEntry("enable.idempotence", true)
        .containsEntry("acks", "all");
  }

  @Test
  void atLeastOnceKeepsOffsetsInPostgresAndANonTransactionalProducer() {
    Map<String, String> env = new HashMap<>(ENV);
    env.put("VIGIL_RELAY_DELIVERY", "at-least-once");
    RelayConfig atLeastOnce = new RelayConfig(new Settings(env));
    assertThat(EngineProperties.of(atLeastOnce))
        .containsEntry("offset.storage", PostgresOffsetStore.class.getName())
        .containsEntry("vigil.offsets.slot", "slot_a");
    assertThat(OutboxStream.producerProperties(atLeastOnce)).doesNotContainKey("transactional.id");
  }

  @Test
  void theConfigurationDebeziumLogsAtTaskStartHoldsNoSecret() {
    Map<String, String> env = new HashMap<>(ENV);
    env.put("VIGIL_RELAY_DELIVERY", "at-least-once");
    env.put(
        "VIGIL_DB_URL",
        "jdbc:postgresql://pg:5432/vigil?sslmode=verify-full&sslkey=/run/secrets/relay.pk8");
    env.put("VIGIL_DB_PASSWORD", "db-pw-1");
    env.put("VIGIL_DB_SSLPASSWORD", "key-pw-2");
    env.put("VIGIL_KAFKA_PROPERTY_SSL_KEYSTORE_KEY", "-----BEGIN PRIVATE KEY-----pem-secret-3");
    env.put("VIGIL_KAFKA_PROPERTY_SASL_JAAS_CONFIG", "x required password=\"jaas-secret-4\";");
    env.put("VIGIL_KAFKA_PROPERTY_SASL_OAUTHBEARER_CLIENT_CREDENTIALS_CLIENT_SECRET", "oauth-5");
    for (String delivery : new String[] {"at-least-once", "exactly-once"}) {
      env.put("VIGIL_RELAY_DELIVERY", delivery);
      // Exactly what BaseSourceTask logs ("Starting PostgresConnectorTask with configuration:").
      String logged =
          io.debezium.config.Configuration.from(
                  EngineProperties.of(new RelayConfig(new Settings(env))))
              .withMaskedPasswords()
              .toString();
      assertThat(logged)
          .as(delivery)
          .doesNotContain("db-pw-1", "key-pw-2", "pem-secret-3", "jaas-secret-4", "oauth-5")
          .doesNotContain("=secret")
          .contains("database.hostname");
    }
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
            "type:header:kind,incident_id:header:incident_id,schema_version:header:schema_version,"
                + "ce_specversion:header:ce_specversion,id:header:ce_id,ce_source:header:ce_source,"
                + "ce_type:header:ce_type,ce_time:header:ce_time,aggregateid:header:ce_subject,"
                + "content_type:header:content-type,traceparent:header:traceparent")
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
