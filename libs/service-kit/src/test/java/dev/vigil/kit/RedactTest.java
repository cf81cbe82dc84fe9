package dev.vigil.kit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedactTest {
  @Test
  void queryStringsAreCutFromUrls() {
    assertThat(Redact.withoutQuery("jdbc:postgresql://db/vigil?user=a&password=secret"))
        .isEqualTo("jdbc:postgresql://db/vigil?…");
    assertThat(Redact.withoutQuery("jdbc:postgresql://db/vigil"))
        .isEqualTo("jdbc:postgresql://db/vigil");
    assertThat(Redact.withoutQuery(null)).isNull();
  }
}
