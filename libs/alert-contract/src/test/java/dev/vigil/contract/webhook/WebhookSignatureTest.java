package dev.vigil.contract.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebhookSignatureTest {
  // The example from the Standard Webhooks specification and its reference libraries.
  private static final WebhookSecret SPEC_SECRET =
      WebhookSecret.parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
  private static final String SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
  private static final long SPEC_TIMESTAMP = 1614265330;
  private static final byte[] SPEC_BODY = "{\"test\": 2432232314}".getBytes(StandardCharsets.UTF_8);

  @Test
  void signsLikeTheStandardWebhooksReferenceImplementation() {
    assertThat(WebhookSignature.sign(List.of(SPEC_SECRET), SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY))
        .isEqualTo("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
  }

  @Test
  void severalSecretsGiveOneSpaceSeparatedSignatureEach() {
    WebhookSecret other = WebhookSecret.parse(WebhookSecret.generate());
    String header =
        WebhookSignature.sign(List.of(other, SPEC_SECRET), SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY);
    assertThat(header.split(" ")).hasSize(2).allMatch(part -> part.startsWith("v1,"));
    Instant at = Instant.ofEpochSecond(SPEC_TIMESTAMP);
    assertThat(
            WebhookSignature.verify(
                List.of(SPEC_SECRET),
                SPEC_ID,
                "1614265330",
                header,
                SPEC_BODY,
                at,
                Duration.ofMinutes(5)))
        .isEqualTo(WebhookSignature.Verdict.VALID);
  }

  @Test
  void tamperedBodyStaleTimestampAndMissingHeadersAreRefused() {
    String header = WebhookSignature.sign(List.of(SPEC_SECRET), SPEC_ID, SPEC_TIMESTAMP, SPEC_BODY);
    Instant at = Instant.ofEpochSecond(SPEC_TIMESTAMP);
    Duration tolerance = Duration.ofMinutes(5);
    byte[] tampered = "{\"test\": 2432232315}".getBytes(StandardCharsets.UTF_8);
    List<WebhookSecret> secrets = List.of(SPEC_SECRET);
    assertThat(
            WebhookSignature.verify(
                secrets, SPEC_ID, "1614265330", header, tampered, at, tolerance))
        .isEqualTo(WebhookSignature.Verdict.BAD_SIGNATURE);
    assertThat(
            WebhookSignature.verify(
                secrets, SPEC_ID, "1614265330", header, SPEC_BODY, at.plusSeconds(301), tolerance))
        .isEqualTo(WebhookSignature.Verdict.STALE_TIMESTAMP);
    assertThat(WebhookSignature.verify(secrets, SPEC_ID, null, header, SPEC_BODY, at, tolerance))
        .isEqualTo(WebhookSignature.Verdict.MISSING_HEADERS);
  }

  @Test
  void secretsMustBeWhsecBase64AndAreNeverPrinted() {
    assertThatThrownBy(() -> WebhookSecret.parse("plain-secret-value"))
        .hasMessageNotContaining("plain-secret-value");
    assertThat(SPEC_SECRET.toString()).doesNotContain("MfKQ9r8");
  }
}
