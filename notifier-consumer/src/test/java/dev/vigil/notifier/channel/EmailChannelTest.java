package dev.vigil.notifier.channel;

import static dev.vigil.notifier.channel.ChannelRequestsTest.FAILED;
import static dev.vigil.notifier.channel.ChannelRequestsTest.LINKS;
import static dev.vigil.notifier.channel.ChannelRequestsTest.RECOVERED;
import static dev.vigil.notifier.channel.ChannelRequestsTest.REMINDER;
import static dev.vigil.notifier.channel.ChannelRoutesFileTest.WEBHOOK;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.kit.tracing.TraceParent;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EmailChannelTest {
  @TempDir Path dir;

  private ChannelRoutes parse(String channel) {
    return ChannelRoutesFile.parse(
        "{\"channels\": {\"mail\": "
            + channel
            + "}, \"routes\": [{\"match\": \"*\", \"channels\": [\"mail\"]}]}",
        WEBHOOK,
        new ChannelRoutesFile.Context(name -> null, false, "", LINKS));
  }

  private String passwordFile() throws Exception {
    Path file = dir.resolve("smtp-password");
    Files.writeString(file, "s3cret-pa55\n");
    return file.toString().replace("\\", "\\\\");
  }

  private EmailChannel valid() throws Exception {
    return (EmailChannel)
        parse(
                """
                {"type": "email", "host": "smtp.example.com", "username": "vigil",
                 "passwordFile": "%s", "from": "vigil@example.com",
                 "to": ["ops@example.com", "oncall+pager@example.org"]}
                """
                    .formatted(passwordFile()))
            .channels()
            .get("mail");
  }

  @Test
  void defaultsAreStartTlsOnPort587WithThePasswordFromTheFileNeverShown() throws Exception {
    EmailChannel mail = valid();
    assertThat(mail.server().tls()).isEqualTo(EmailChannel.Tls.STARTTLS);
    assertThat(mail.server().port()).isEqualTo(587);
    assertThat(mail.server().password()).isEqualTo("s3cret-pa55");
    assertThat(mail.server().toString()).doesNotContain("s3cret").contains("(hidden)");
    assertThat(mail.endpoint()).isEqualTo("smtp://smtp.example.com:587");
  }

  @Test
  void groupsLikeSlackByDefaultAndOneMailPerEventWithGroupOff() throws Exception {
    String channel =
        """
        {"type": "email", "host": "smtp.example.com", "from": "vigil@example.com",
         "to": ["ops@example.com"], "tls": "none"%s}
        """;
    assertThat(parse(channel.formatted("")).groups()).containsEntry("mail", GroupSettings.DEFAULT);
    assertThat(
            parse(channel.formatted(", \"group\": {\"wait\": \"30s\"}"))
                .groups()
                .get("mail")
                .waitFor())
        .hasSeconds(30);
    assertThat(parse(channel.formatted(", \"group\": \"off\"")).groups()).isEmpty();
    assertThatThrownBy(() -> parse(channel.formatted(", \"group\": {\"max\": 0}")))
        .hasMessage("channel 'mail': field 'group.max': must be a whole number from 1 to 1000");
  }

  @Test
  void oneMailPerEventWithSubjectBodyAndIdsFromTheEvent() throws Exception {
    EmailChannel mail = valid();
    EmailMessage down = mail.message(FAILED);
    assertThat(down.subject()).isEqualTo("[Vigil] DOWN payments");
    assertThat(down.to()).containsExactly("ops@example.com", "oncall+pager@example.org");
    assertThat(down.messageId()).isEqualTo("<" + FAILED.eventId() + "@example.com>");
    assertThat(down.headers())
        .containsEntry("References", "<" + FAILED.incidentId() + "@example.com>")
        .containsEntry("X-Vigil-Event-Id", FAILED.eventId().toString())
        .containsEntry("Auto-Submitted", "auto-generated");
    assertThat(down.body())
        .contains("payments is DOWN (3 failed checks)")
        .contains("Kind: FAILED")
        .contains("Incident: " + FAILED.incidentId())
        .contains("Event: " + FAILED.eventId())
        .contains("Opened at: 2026-12-01T02:00:00Z")
        .contains("Status page: https://vigil.example.com/status");
    // the NUL of the probe error is escaped, the error stays on its line
    assertThat(down.body()).doesNotContain("\u0000").contains("\\u0000");

    assertThat(mail.message(RECOVERED).subject()).isEqualTo("[Vigil] RECOVERED payments");
    assertThat(mail.message(RECOVERED).body()).contains("Downtime: 12m 5s");
    assertThat(mail.message(REMINDER).subject()).isEqualTo("[Vigil] REMINDER payments");
    assertThat(mail.message(RECOVERED).messageId()).isNotEqualTo(down.messageId());
    assertThat(mail.message(FAILED).messageId())
        .as("a repeat is recognisable")
        .isEqualTo(down.messageId());
    assertThat(down.headers()).doesNotContainKey("Traceparent");
  }

  @Test
  void aTracedDeliveryCarriesItsTraceparentAsAHeader() throws Exception {
    TraceParent trace =
        TraceParent.parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01").orElseThrow();
    assertThat(valid().message(FAILED, trace).headers())
        .containsEntry("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
  }

  @Test
  void bodyTextFromOutsideCannotStartNewLines() throws Exception {
    var event =
        dev.vigil.contract.AlertEvent.failed(
            java.util.UUID.randomUUID(),
            java.util.UUID.randomUUID(),
            "payments",
            ChannelRequestsTest.OPENED,
            3,
            "boom\r\nBcc: victim@example.com");
    assertThat(valid().message(event).body())
        .contains("Last error: boom\\u000d\\u000aBcc: victim@example.com")
        .doesNotContain("\r");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "ops@example.com\\r\\nBcc: victim@example.com",
        "ops@example.com\\u0000",
        "Ops <ops@example.com>",
        "ops@example.com, evil@example.com",
        "\\\"ops\\\"@example.com",
        "ops@localhost",
        "@example.com",
        "ops@",
        "o..ps@example.com",
        "ops@exa_mple.com",
        "ops@-example.com",
        "ops example@example.com"
      })
  void hostileOrBadAddressesAreRefusedNamingChannelAndField(String address) {
    assertThatThrownBy(
            () ->
                parse(
                    "{\"type\": \"email\", \"host\": \"smtp.example.com\", \"from\":"
                        + " \"vigil@example.com\", \"to\": [\""
                        + address
                        + "\"]}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("channel 'mail': field 'to': ");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"type\": \"email\", \"host\": \"smtp.example.com\", \"from\": \""
                        + address
                        + "\", \"to\": [\"ops@example.com\"]}"))
        .hasMessageStartingWith("channel 'mail': field 'from': ");
  }

  @Test
  void everyFieldIsChecked() throws Exception {
    String ok = "\"from\": \"vigil@example.com\", \"to\": [\"ops@example.com\"]";
    assertRefused("{\"type\": \"email\", " + ok + "}", "field 'host': missing");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"smtp.example.com\\r\\nX: y\", " + ok + "}",
        "field 'host': contains a control character");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"smtp/evil\", " + ok + "}", "field 'host': must be");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"port\": 0, " + ok + "}",
        "field 'port': must be a number from 1 to 65535");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"port\": \"25; x\", " + ok + "}",
        "field 'port'");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"tls\": \"ssl\", " + ok + "}",
        "field 'tls': must be starttls (default), tls or none");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"username\": \"u\", " + ok + "}",
        "field 'passwordFile': username and passwordFile go together");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"password\": \"inline\", " + ok + "}",
        "field 'password': unknown");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"tls\": \"none\", \"username\": \"u\","
            + " \"passwordFile\": \""
            + passwordFile()
            + "\", "
            + ok
            + "}",
        "field 'passwordFile': never sent over an unencrypted connection");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"username\": \"u\", \"passwordFile\":"
            + " \"/nonexistent/smtp\", "
            + ok
            + "}",
        "channel 'mail'");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"subjectPrefix\": \"[V]\\r\\nBcc: x@y.z\", "
            + ok
            + "}",
        "field 'subjectPrefix': contains a control character");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"from\": \"vigil@example.com\", \"to\": []}",
        "field 'to': must list 1 to 50 addresses");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"from\": \"vigil@example.com\", \"to\":"
            + " \"ops@example.com\"}",
        "field 'to': must list");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"from\": \"vigil@example.com\", \"to\":"
            + " [\"a@example.com\", \"A@example.com\"]}",
        "field 'to': 'A@example.com' is listed twice");
    assertRefused(
        "{\"type\": \"email\", \"host\": \"h.example\", \"caFile\": \""
            + passwordFile()
            + "\", "
            + ok
            + "}",
        "field 'caFile': ");
  }

  @Test
  void plainConnectionsOnlyWhenAskedForAndWithoutPassword() {
    EmailChannel plain =
        (EmailChannel)
            parse(
                    "{\"type\": \"email\", \"host\": \"relay.internal\", \"tls\": \"none\", \"from\":"
                        + " \"vigil@example.com\", \"to\": [\"ops@example.com\"]}")
                .channels()
                .get("mail");
    assertThat(plain.server().tls()).isEqualTo(EmailChannel.Tls.NONE);
    assertThat(plain.server().port()).isEqualTo(25);
    assertThat(plain.server().username()).isNull();
  }

  private void assertRefused(String channel, String reason) {
    assertThatThrownBy(() -> parse(channel))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("channel 'mail': ")
        .hasMessageContaining(reason)
        .hasMessageNotContaining("s3cret");
  }
}
