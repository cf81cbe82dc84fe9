package dev.vigil.kit.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class StrictJsonTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static InvalidJsonException refused(byte[] bytes) {
    try {
      StrictJson.read(bytes, MAPPER, "body");
    } catch (InvalidJsonException e) {
      return e;
    }
    throw new AssertionError("accepted: " + new String(bytes, StandardCharsets.UTF_8));
  }

  @Test
  void readsOneValidObject() {
    assertThat(
            StrictJson.read(utf8("{\"a\":[1,{\"b\":\"\u00e9\"}]}"), MAPPER, "body")
                .at("/a/1/b")
                .asText())
        .isEqualTo("\u00e9");
  }

  @Test
  void invalidUtf8IsRefusedNotReplacedNamingTheField() {
    byte[] bytes = {'{', '"', 'w', '"', ':', '"', 'a', (byte) 0xff, (byte) 0xfe, '"', '}'};
    InvalidJsonException e = refused(bytes);
    assertThat(e.field()).isEqualTo("w");
    assertThat(e.reason()).contains("not valid UTF-8");
    byte[] nested = {
      '{', '"', 'a', '"', ':', '{', '"', 'b', '"', ':', '"', (byte) 0xc3, '"', '}', '}'
    };
    assertThat(refused(nested).field()).isEqualTo("a.b");
  }

  @Test
  void anEncodedSurrogateIsNotUtf8() {
    byte[] bytes = {'"', (byte) 0xed, (byte) 0xa0, (byte) 0x80, '"'};
    assertThat(refused(bytes).field()).isEqualTo("encoding");
  }

  @Test
  void trailingTextAfterTheValueIsRefused() {
    InvalidJsonException e = refused(utf8("{\"a\":1} {\"a\":2}"));
    assertThat(e.field()).isEqualTo("body");
    assertThat(e.reason()).contains("Trailing token");
    assertThat(refused(utf8("{\"a\":1}x")).field()).isEqualTo("body");
  }

  @Test
  void duplicateKeysAreRefusedNamingTheKey() {
    assertThat(refused(utf8("{\"status\":\"UP\",\"status\":\"DOWN\"}")).field())
        .isEqualTo("status");
    assertThat(refused(utf8("{\"a\":{\"b\":1,\"b\":2}}")).field()).isEqualTo("a.b");
    assertThat(refused(utf8("{\"a\":[{\"b\":1,\"b\":2}]}")).field()).isEqualTo("a[0].b");
  }

  @Test
  void loneSurrogatesAreRefusedNamingTheField() {
    assertThat(refused(utf8("{\"a\":{\"b\":\"x\\ud800y\"}}")).field()).isEqualTo("a.b");
    assertThat(refused(utf8("\"\\udc00\"")).field()).isEqualTo("body");
  }

  @Test
  void emptyBomAndGarbageAreRefused() {
    assertThat(refused(new byte[0]).field()).isEqualTo("body");
    assertThat(refused(utf8("\ufeff{}")).field()).isEqualTo("encoding");
    assertThat(refused(utf8("{\"a\":")).field()).isEqualTo("body");
    assertThat(refused(utf8("   ")).field()).isEqualTo("body");
  }

  @Test
  void nulInsideAStringIsLeftToTheFieldsOwnCheck() {
    assertThat(StrictJson.read(utf8("{\"a\":\"x\\u0000y\"}"), MAPPER, "body").get("a").asText())
        .isEqualTo("x\u0000y");
  }

  @Test
  void refusalsNeverThrowAnythingElse() {
    assertThatThrownBy(() -> StrictJson.read(utf8("[1,2"), MAPPER, "value"))
        .isInstanceOf(InvalidJsonException.class)
        .hasMessageStartingWith("value: ");
  }
}
