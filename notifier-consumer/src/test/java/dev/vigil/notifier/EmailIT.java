package dev.vigil.notifier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.DummySSLServerSocketFactory;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.harness.tls.TestCertificates;
import jakarta.mail.Message;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The email channel against a real SMTP server, GreenMail, on the real PostgreSQL and Kafka. TLS is
 * {@code tls: tls} (SMTPS) with a certificate for {@code localhost} from a throw-away CA the
 * channel trusts through {@code caFile}. GreenMail 2.1 has no STARTTLS, so STARTTLS is only shown
 * refusing a server that does not offer it (no fallback to plain text).
 */
@ExtendWith(VigilInfraExtension.class)
class EmailIT {
  private static final Duration WAIT = Duration.ofSeconds(90);
  private static final String PASSWORD = "smtp-pass-" + System.nanoTime();

  @TempDir static Path dir;
  private static TestCertificates certificates;

  @BeforeAll
  static void certificates() {
    certificates = TestCertificates.generate(dir, "vigil", "changeit-" + System.nanoTime());
    // GreenMail's SMTPS reads its key from these (read when a TLS server socket is made)
    System.setProperty(
        DummySSLServerSocketFactory.GREENMAIL_KEYSTORE_FILE_PROPERTY,
        certificates.serverKeyStore().toString());
    System.setProperty(
        DummySSLServerSocketFactory.GREENMAIL_KEYSTORE_PASSWORD_PROPERTY, certificates.password());
    System.setProperty(
        DummySSLServerSocketFactory.GREENMAIL_KEY_PASSWORD_PROPERTY, certificates.password());
  }

  @AfterAll
  static void clear() {
    System.clearProperty(DummySSLServerSocketFactory.GREENMAIL_KEYSTORE_FILE_PROPERTY);
    System.clearProperty(DummySSLServerSocketFactory.GREENMAIL_KEYSTORE_PASSWORD_PROPERTY);
    System.clearProperty(DummySSLServerSocketFactory.GREENMAIL_KEY_PASSWORD_PROPERTY);
  }

  private static GreenMail start(String protocol) {
    GreenMail mail = new GreenMail(new ServerSetup(0, "localhost", protocol).dynamicPort());
    mail.start();
    mail.setUser("vigil@example.com", "vigil", PASSWORD);
    return mail;
  }

  private static Map<String, String> routes(String channel) {
    return Map.of(
        "VIGIL_NOTIFIER_ROUTES",
        """
        channels:
          ops-mail: %s
        routes:
          - {match: checkout, channels: [ops-mail]}
        """
            .formatted(channel),
        "VIGIL_NOTIFIER_PUBLIC_URL",
        "https://vigil.example.com",
        // a permanent SMTP answer must end the delivery at once, not after these attempts
        "VIGIL_NOTIFIER_MAX_ATTEMPTS",
        "100",
        "VIGIL_NOTIFIER_BACKOFF_MAX",
        "200ms");
  }

  /** One mail per event ({@code group: off}). */
  private static String smtps(GreenMail mail, Path passwordFile) {
    return smtps(mail, passwordFile, "off");
  }

  private static String smtps(GreenMail mail, Path passwordFile, String group) {
    return "{type: email, host: localhost, port: %d, tls: tls, username: vigil, passwordFile: \"%s\", caFile: \"%s\", from: vigil@example.com, to: [ops@example.com, oncall@example.org], group: %s}"
        .formatted(mail.getSmtps().getPort(), passwordFile, certificates.caPem(), group);
  }

  private static Path passwordFile(String name, String password) throws Exception {
    Path file = dir.resolve(name);
    Files.writeString(file, password + "\n");
    return file;
  }

  @Test
  void failedAndRecoveredArriveAsTwoMailsOverTlsAuthenticatedWithThePasswordFromTheFile(
      TestDatabase db, TestKafka kafka) throws Exception {
    GreenMail mail = start(ServerSetup.PROTOCOL_SMTPS);
    try (TestStack stack =
        TestStack.start(db, kafka, routes(smtps(mail, passwordFile("good", PASSWORD))))) {
      AlertEvent down = TestStack.failed("checkout");
      AlertEvent up = TestStack.recovered(down);
      stack.produce(down);
      stack.produce(up);

      await().atMost(WAIT).until(() -> stack.status(up, "ops-mail").equals("DELIVERED"));
      assertThat(stack.status(down, "ops-mail")).isEqualTo("DELIVERED");
      assertThat(stack.attempts(down, "ops-mail")).isEqualTo(1);
      // one copy per recipient
      assertThat(mail.waitForIncomingEmail(10_000, 4)).isTrue();
      List<MimeMessage> received = Arrays.asList(mail.getReceivedMessages());
      assertThat(received).hasSize(4);
      MimeMessage failed = byId(received, "<" + down.eventId() + "@example.com>");
      MimeMessage recovered = byId(received, "<" + up.eventId() + "@example.com>");

      assertThat(failed.getSubject()).isEqualTo("[Vigil] DOWN checkout");
      assertThat(failed.getFrom()).containsExactly(new InternetAddress("vigil@example.com"));
      assertThat(failed.getRecipients(Message.RecipientType.TO))
          .extracting(Object::toString)
          .containsExactly("ops@example.com", "oncall@example.org");
      assertThat(failed.getContentType()).startsWith("text/plain").contains("UTF-8");
      assertThat(failed.getHeader("References"))
          .containsExactly("<" + down.incidentId() + "@example.com>");
      assertThat(failed.getHeader("X-Vigil-Event-Id")).containsExactly(down.eventId().toString());
      String body = failed.getContent().toString();
      assertThat(body)
          .contains("checkout is DOWN")
          .contains("Kind: FAILED")
          .contains("Last error: " + down.lastError())
          .contains("Incident: " + down.incidentId())
          .contains("Event: " + down.eventId())
          .contains("Status page: https://vigil.example.com/status");

      assertThat(recovered.getSubject()).isEqualTo("[Vigil] RECOVERED checkout");
      assertThat(recovered.getContent().toString())
          .contains("checkout RECOVERED after")
          .contains("Downtime: ")
          .contains("Incident: " + down.incidentId());
      assertThat(NotifierHttp.get(stack.notifier, "/metrics", null))
          .contains(
              "vigil_notifier_attempts_total{channel=\"ops-mail\",outcome=\"delivered\"} 2.0");
    } finally {
      mail.stop();
    }
  }

  @Test
  void aStormArrivesAsOneGroupedMailAndItsRecoveryAsOneMore(TestDatabase db, TestKafka kafka)
      throws Exception {
    GreenMail mail = start(ServerSetup.PROTOCOL_SMTPS);
    Map<String, String> env =
        new java.util.HashMap<>(
            routes(
                smtps(
                    mail, passwordFile("grouped", PASSWORD), "{wait: 2s, interval: 5s, max: 2}")));
    env.put(
        "VIGIL_NOTIFIER_ROUTES",
        env.get("VIGIL_NOTIFIER_ROUTES").replace("match: checkout", "match: \"*\""));
    try (TestStack stack = TestStack.start(db, kafka, env)) {
      List<AlertEvent> down =
          List.of(
              TestStack.failed("api"),
              TestStack.failed("auth"),
              TestStack.failed("billing"),
              TestStack.failed("checkout"));
      down.forEach(stack::produce);
      await()
          .atMost(WAIT)
          .until(
              () -> down.stream().allMatch(e -> stack.status(e, "ops-mail").equals("DELIVERED")));
      List<AlertEvent> up = down.stream().map(TestStack::recovered).toList();
      up.forEach(stack::produce);
      await()
          .atMost(WAIT)
          .until(() -> up.stream().allMatch(e -> stack.status(e, "ops-mail").equals("DELIVERED")));

      // two mails, one copy per recipient each: the four failures together, then the recoveries
      // (all of them produced within the interval after the first mail)
      assertThat(mail.waitForIncomingEmail(10_000, 4)).isTrue();
      List<MimeMessage> received = Arrays.asList(mail.getReceivedMessages());
      assertThat(received).hasSize(4);
      String groupId = received.get(0).getHeader("X-Vigil-Group-Id")[0];
      MimeMessage first = byId(received, "<" + groupId + ".1@example.com>");
      MimeMessage second = byId(received, "<" + groupId + ".2@example.com>");

      // arrival order across partitions is not fixed: the names are checked as a set
      assertThat(first.getSubject()).startsWith("[Vigil] 4 services DOWN: ").endsWith(" … (+1)");
      assertThat(first.getHeader("References")).containsExactly("<" + groupId + "@example.com>");
      String body = first.getContent().toString();
      // max 2: two services in full (since, last error, incident, link), the other two by name
      List<AlertEvent> full =
          down.stream().filter(e -> body.contains("DOWN " + e.service() + " since")).toList();
      assertThat(full).hasSize(2);
      for (AlertEvent e : full) {
        assertThat(body)
            .contains("Last error: " + e.lastError())
            .contains("Incident: " + e.incidentId())
            .contains("Service API: https://vigil.example.com/api/services/" + e.service());
      }
      List<String> rest =
          down.stream().filter(e -> !full.contains(e)).map(AlertEvent::service).toList();
      assertThat(body)
          .containsAnyOf(
              "Also DOWN: " + rest.get(0) + ", " + rest.get(1),
              "Also DOWN: " + rest.get(1) + ", " + rest.get(0))
          .containsPattern("Still down \\(4\\): [a-z]+, [a-z]+ … \\(\\+2\\)\\s")
          .contains("Status page: https://vigil.example.com/status")
          .contains("Group: " + groupId + ", message 1");

      assertThat(second.getSubject()).isEqualTo("[Vigil] 4 RECOVERED; all recovered");
      assertThat(second.getHeader("References")).containsExactly("<" + groupId + "@example.com>");
      String after = second.getContent().toString();
      assertThat(after).contains("All services of this group have recovered.");
      long inFull =
          up.stream().filter(e -> after.contains("RECOVERED " + e.service() + " after")).count();
      assertThat(inFull).isEqualTo(2);
      assertThat(after).contains("Also RECOVERED: ");
      for (AlertEvent e : up) {
        assertThat(after).contains(e.service());
      }
    } finally {
      mail.stop();
    }
  }

  @Test
  void aPermanentSmtpAnswerIsDeadAtOnceNotRetried(TestDatabase db, TestKafka kafka)
      throws Exception {
    GreenMail mail = start(ServerSetup.PROTOCOL_SMTPS);
    try (TestStack stack =
        TestStack.start(
            db, kafka, routes(smtps(mail, passwordFile("wrong", "not-the-password"))))) {
      AlertEvent down = TestStack.failed("checkout");
      stack.produce(down);

      await().atMost(WAIT).until(() -> stack.status(down, "ops-mail").equals("DEAD"));
      assertThat(stack.attempts(down, "ops-mail")).as("5xx: no second attempt").isEqualTo(1);
      String error =
          stack.scalar(
              "select last_error from notifier_receipt where event_id = '"
                  + down.eventId()
                  + "' and channel = 'ops-mail'");
      assertThat(error).startsWith("SMTP 535").doesNotContain("not-the-password");
      assertThat(mail.getReceivedMessages()).isEmpty();
    } finally {
      mail.stop();
    }
  }

  @Test
  void startTlsIsNeverSkippedWhenTheServerDoesNotOfferIt(TestDatabase db, TestKafka kafka)
      throws Exception {
    GreenMail mail = start(ServerSetup.PROTOCOL_SMTP);
    String channel =
        "{type: email, host: localhost, port: %d, username: vigil, passwordFile: \"%s\", from: vigil@example.com, to: [ops@example.com], group: off}"
            .formatted(mail.getSmtp().getPort(), passwordFile("plain", PASSWORD));
    try (TestStack stack = TestStack.start(db, kafka, routes(channel))) {
      AlertEvent down = TestStack.failed("checkout");
      stack.produce(down);

      // retried (a server may gain STARTTLS), never sent in plain text with the password
      await().atMost(WAIT).until(() -> stack.attempts(down, "ops-mail") > 1);
      assertThat(stack.status(down, "ops-mail")).isEqualTo("PENDING");
      assertThat(
              stack.scalar(
                  "select last_error from notifier_receipt where event_id = '"
                      + down.eventId()
                      + "' and channel = 'ops-mail'"))
          .contains("STARTTLS");
      assertThat(mail.getReceivedMessages()).isEmpty();
    } finally {
      mail.stop();
    }
  }

  private static MimeMessage byId(List<MimeMessage> messages, String messageId) {
    return messages.stream()
        .filter(
            m -> {
              try {
                return messageId.equals(m.getMessageID());
              } catch (jakarta.mail.MessagingException e) {
                throw new IllegalStateException(e);
              }
            })
        .findFirst()
        .orElseThrow(() -> new AssertionError("no mail with Message-ID " + messageId));
  }
}
