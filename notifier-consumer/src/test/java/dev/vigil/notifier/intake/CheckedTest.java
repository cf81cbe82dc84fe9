package dev.vigil.notifier.intake;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.AlertTopic;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

class CheckedTest {
  private static final AlertEvent EVENT =
      AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "api", Instant.now(), 3, "timeout");
  private static final String JSON = AlertEventJson.write(EVENT);

  @Test
  void validEventIsAcceptedWithItsCanonicalJson() {
    Checked.Accepted accepted = accepted("api", bytes("  " + JSON + "\n"));
    assertThat(accepted.payload()).isEqualTo(JSON);
  }

  @Test
  void nulAndControlCharactersInLastErrorAreValidJsonAndStayEscapedInTheCanonicalPayload() {
    String json = JSON.replace("\"timeout\"", "\"a\\u0000b\\u001b[31m\\n\"");
    Checked.Accepted accepted = accepted("api", bytes(json));
    assertThat(accepted.event().lastError()).isEqualTo("a\u0000b\u001b[31m\n");
    assertThat(accepted.payload()).contains("a\\u0000b\\u001B[31m\\n").doesNotContain("\u0000");
  }

  @Test
  void trailingGarbageBomLoneSurrogatesAndDuplicateKeysAreRejected() {
    assertRejected(bytes(JSON + "{\"evil\":1}"), "value", "not JSON");
    assertRejected(bytes(JSON + " trailing"), "value", "not JSON");
    assertRejected(bytes("\ufeff" + JSON), "encoding", "byte order mark");
    assertRejected(
        bytes(JSON.replace("\"timeout\"", "\"a\\ud800b\"")), "lastError", "lone surrogate");
    assertRejected(bytes(JSON.replace("{", "{\"x\\udc00\":1,")), "value", "surrogate");
    byte[] encodedSurrogate = bytes(JSON.replace("timeout", "a#b"));
    for (int i = 0; i < encodedSurrogate.length; i++) {
      if (encodedSurrogate[i] == '#') {
        byte[] bad = new byte[encodedSurrogate.length + 2];
        System.arraycopy(encodedSurrogate, 0, bad, 0, i);
        bad[i] = (byte) 0xED;
        bad[i + 1] = (byte) 0xA0;
        bad[i + 2] = (byte) 0x80;
        System.arraycopy(encodedSurrogate, i + 1, bad, i + 3, encodedSurrogate.length - i - 1);
        assertRejected(bad, "lastError", "not valid UTF-8");
      }
    }
    assertRejected(
        bytes(JSON.replace("{", "{\"service\":\"other\",")), "service", "more than once");
    assertRejected(new byte[0], "value", "empty");
    assertRejected(null, "value", "tombstone");
  }

  @Test
  void reasonsAndFieldsAreSanitisedWhateverTheBytes() {
    Checked rejected =
        Checked.of(new ConsumerRecord<>("t", 0, 7, bytes("ap\u0000i\u2028"), bytes(JSON)));
    assertThat(rejected).isInstanceOf(Checked.Rejected.class);
    Checked.Rejected r = (Checked.Rejected) rejected;
    assertThat(r.field()).isEqualTo("key");
    assertThat(r.reason()).contains("ap\\u0000i\\u2028").doesNotContain("\u0000");
    assertThat(r.key()).isEqualTo(bytes("ap\u0000i\u2028"));

    String nulService = JSON.replace("\"service\":\"api\"", "\"service\":\"a\\u0000\\u0007pi\"");
    Checked.Rejected service = rejected(bytes(nulService));
    assertThat(service.reason()).contains("\\u0000").contains("\\u0007");
    assertThat(service.reason().chars()).noneMatch(c -> c < 0x20 || (c >= 0xd800 && c <= 0xdfff));
  }

  @Test
  void aValidTraceparentIsKeptAndAHostileOneDroppedWithoutParkingTheEvent() {
    String valid = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    assertThat(withTraceparent(bytes(valid)).traceparent()).isEqualTo(valid);
    for (byte[] hostile :
        new byte[][] {
          bytes(valid.toUpperCase()),
          bytes(valid + "\u0000"),
          bytes("00-00000000000000000000000000000000-00f067aa0ba902b7-01"),
          bytes("ff" + valid.substring(2)),
          bytes(valid.repeat(1000)),
          new byte[] {(byte) 0xff, (byte) 0xfe},
          null
        }) {
      Checked.Accepted accepted = withTraceparent(hostile);
      assertThat(accepted.traceparent()).isNull();
      assertThat(accepted.event()).isEqualTo(EVENT);
    }
    assertThat(accepted("api", bytes(JSON)).traceparent()).isNull();
  }

  private static Checked.Accepted withTraceparent(byte[] value) {
    ConsumerRecord<byte[], byte[]> record =
        new ConsumerRecord<>("t", 0, 1, bytes("api"), bytes(JSON));
    record.headers().add(AlertTopic.HEADER_TRACEPARENT, value);
    Checked checked = Checked.of(record);
    assertThat(checked).isInstanceOf(Checked.Accepted.class);
    return (Checked.Accepted) checked;
  }

  private static void assertRejected(byte[] value, String field, String reason) {
    Checked.Rejected rejected = rejected(value);
    assertThat(rejected.field()).as(rejected.reason()).isEqualTo(field);
    assertThat(rejected.reason()).contains(reason);
    assertThat(rejected.reason().chars()).noneMatch(c -> c == 0 || (c >= 0xd800 && c <= 0xdfff));
  }

  private static Checked.Rejected rejected(byte[] value) {
    Checked checked = Checked.of(new ConsumerRecord<>("t", 0, 1, bytes("api"), value));
    assertThat(checked).isInstanceOf(Checked.Rejected.class);
    return (Checked.Rejected) checked;
  }

  private static Checked.Accepted accepted(String key, byte[] value) {
    Checked checked = Checked.of(new ConsumerRecord<>("t", 0, 1, bytes(key), value));
    assertThat(checked).isInstanceOf(Checked.Accepted.class);
    return (Checked.Accepted) checked;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
