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

  @Test
  void credentialsAndQueriesAreCutFromEveryUrlInAValue() {
    assertThat(Redact.url("https://user:pw@hooks.example/x?sig=abc"))
        .isEqualTo("https://…@hooks.example/x?…");
    assertThat(Redact.urls("jdbc:postgresql://db/vigil?password=a;b,c d"))
        .isEqualTo("jdbc:postgresql://db/vigil?…");
    assertThat(
            Redact.urls(
                "pay=https://u:p@pay.example/h?k=1 secrets=env:PAY; web*=https://web.example/h"))
        .isEqualTo("pay=https://…@pay.example/h?… secrets=env:PAY; web*=https://web.example/h");
    assertThat(Redact.urls("status=503 times=5")).isEqualTo("status=503 times=5");
  }
}
