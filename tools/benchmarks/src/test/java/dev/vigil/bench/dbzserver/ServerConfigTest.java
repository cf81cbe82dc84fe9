package dev.vigil.bench.dbzserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ServerConfigTest {
  private static Map<String, String> props(ServerConfig config, String topic, Path offsets) {
    return config.properties(
        "jdbc:postgresql://127.0.0.1:54321/bench_dbz",
        "postgres",
        "127.0.0.1:9092",
        Slots.PUBLICATION,
        topic,
        offsets,
        18080);
  }

  @Test
  void routesTheOutboxLikeTheRelayOnItsOwnSlotAndPublication() {
    Map<String, String> p = props(ServerConfig.DEFAULTS, "bench.dbz.x", Path.of("/tmp/o.dat"));

    assertThat(p)
        .containsEntry("debezium.sink.type", "kafka")
        .containsEntry("debezium.source.plugin.name", "pgoutput")
        .containsEntry("debezium.source.database.hostname", "127.0.0.1")
        .containsEntry("debezium.source.database.port", "54321")
        .containsEntry("debezium.source.database.dbname", "bench_dbz")
        .containsEntry("debezium.source.slot.name", "dbz_ds_default")
        .containsEntry("debezium.source.publication.name", "dbz_bench_outbox")
        .containsEntry("debezium.source.publication.autocreate.mode", "disabled")
        .containsEntry("debezium.source.table.include.list", "public.outbox")
        .containsEntry("debezium.source.offset.storage.file.filename", "/tmp/o.dat")
        .containsEntry(
            "debezium.transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter")
        .containsEntry("debezium.transforms.outbox.route.topic.replacement", "bench.dbz.x")
        .containsEntry("debezium.transforms.outbox.table.field.event.key", "aggregateid")
        .containsEntry("debezium.transforms.outbox.table.expand.json.payload", "false")
        .containsEntry(
            "debezium.transforms.outbox.table.fields.additional.placement",
            "type:header:kind,incident_id:header:incident_id,schema_version:header:schema_version,"
                + "ce_specversion:header:ce_specversion,id:header:ce_id,ce_source:header:ce_source,"
                + "ce_type:header:ce_type,ce_time:header:ce_time,aggregateid:header:ce_subject,"
                + "content_type:header:content-type,traceparent:header:traceparent")
        .containsEntry("debezium.format.key", "simplestring")
        .containsEntry("debezium.format.value", "simplestring")
        .containsEntry("quarkus.http.port", "18080");
  }

  @Test
  void onlyTheTunedVariantSetsThePollInterval() {
    assertThat(props(ServerConfig.DEFAULTS, "t", Path.of("/o")))
        .doesNotContainKey("debezium.source.poll.interval.ms");
    assertThat(props(ServerConfig.POLL_10MS, "t", Path.of("/o")))
        .containsEntry("debezium.source.poll.interval.ms", "10");
    assertThat(ServerConfig.POLL_10MS.slot()).isNotEqualTo(ServerConfig.DEFAULTS.slot());
  }

  @Test
  void refusesValuesThatWouldChangeThePropertiesFile() {
    for (String hostile :
        new String[] {"t\ndebezium.sink.type=redis", "${env:SECRET}", "a b", "x=y", ""}) {
      assertThatThrownBy(() -> props(ServerConfig.DEFAULTS, hostile, Path.of("/o")))
          .as(hostile)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("refusing");
    }
    assertThatThrownBy(() -> props(ServerConfig.DEFAULTS, "t", Path.of("/tmp/my offsets")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new ServerConfig("x;y", 0))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rendersOneKeyValueLinePerSetting() {
    String text = ServerConfig.render(props(ServerConfig.POLL_10MS, "t", Path.of("/o")));
    assertThat(text.lines().filter(l -> !l.startsWith("#")))
        .allMatch(l -> l.indexOf('=') > 0)
        .contains("debezium.source.poll.interval.ms=10");
  }
}
