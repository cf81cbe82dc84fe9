package dev.vigil.relay.stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.source.SourceRecord;
import org.junit.jupiter.api.Test;

class OutboxTopicPredicateTest {
  private static final String OUTBOX = "vigil_relay.public.outbox";

  private static OutboxTopicPredicate<SourceRecord> predicate(Map<String, ?> config) {
    OutboxTopicPredicate<SourceRecord> p = new OutboxTopicPredicate<>();
    p.configure(config);
    return p;
  }

  private static SourceRecord on(String topic) {
    return new SourceRecord(Map.of(), Map.of(), topic, null, "x");
  }

  @Test
  void matchesOnlyTheOutboxTopicNotTransactionMetadataNorHeartbeats() {
    OutboxTopicPredicate<SourceRecord> p = predicate(Map.of("topic", OUTBOX));
    assertThat(p.test(on(OUTBOX))).isTrue();
    assertThat(p.test(on(RecordMapping.TRANSACTION_TOPIC))).isFalse();
    assertThat(p.test(on("vigil_relay.public.relay_heartbeat"))).isFalse();
    assertThat(p.test(on("__debezium-heartbeat.vigil_relay"))).isFalse();
  }

  @Test
  void comparesTheWholeNameLiterallyAsTheEscapedPatternDid() {
    OutboxTopicPredicate<SourceRecord> p = predicate(Map.of("topic", OUTBOX));
    assertThat(p.test(on("vigil_relayXpublicXoutbox"))).isFalse();
    assertThat(p.test(on(OUTBOX + "_archive"))).isFalse();
    assertThat(p.test(on("x" + OUTBOX))).isFalse();
    assertThat(p.test(on("VIGIL_RELAY.PUBLIC.OUTBOX"))).isFalse();
  }

  @Test
  void aRecordWithoutTopicOrNoRecordDoesNotMatch() {
    OutboxTopicPredicate<SourceRecord> p = predicate(Map.of("topic", OUTBOX));
    assertThat(p.test(on(null))).isFalse();
    assertThat(p.test(null)).isFalse();
  }

  @Test
  void refusesAMissingOrEmptyTopic() {
    assertThatThrownBy(() -> predicate(Map.of()))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("topic");
    assertThatThrownBy(() -> predicate(Map.of("topic", "")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("topic");
  }
}
