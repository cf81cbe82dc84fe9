package dev.vigil.receiver;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.webhook.WebhookSecret;
import dev.vigil.contract.webhook.WebhookSignature;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.kit.http.HttpJson;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class ReferenceReceiverIT {
  private static final String CURRENT = WebhookSecret.generate();
  private static final String PREVIOUS = WebhookSecret.generate();
  private static final List<String> CURRENT_ONLY = List.of(CURRENT);
  private final HttpClient client = HttpClient.newHttpClient();

  @Test
  void acceptsGenuineSignaturesOnceAndRejectsTamperedStaleOrConflicting(TestDatabase db)
      throws Exception {
    try (ReferenceReceiver receiver =
        ReferenceReceiver.start(
            ReceiverConfig.onAnyPort(
                db.jdbcUrl(), db.user(), db.password(), CURRENT + "," + PREVIOUS))) {
      List<ReceivedNotification> stored = new CopyOnWriteArrayList<>();
      receiver.onNotification(stored::add);
      AlertEvent event =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "web", Instant.now(), 3, "boom");
      String body = AlertEventJson.write(event);
      String id = event.eventId().toString();
      long now = Instant.now().getEpochSecond();

      assertThat(post(receiver, id, now, body, body, List.of(CURRENT))).isEqualTo(200);
      assertThat(post(receiver, id, now, body, body, List.of(CURRENT))).as("repeat").isEqualTo(200);
      assertThat(stored).hasSize(1);
      assertThat(stored.getFirst().event()).isEqualTo(event);

      String tampered = body.replace("boom", "fine");
      assertThat(post(receiver, id, now, body, tampered, List.of(CURRENT))).isEqualTo(401);
      assertThat(post(receiver, id, now - 600, body, body, List.of(CURRENT))).isEqualTo(401);
      assertThat(post(receiver, id, now, body, body, List.of(WebhookSecret.generate())))
          .isEqualTo(401);
      HttpResponse<Void> unsigned =
          client.send(
              HttpRequest.newBuilder(URI.create("http://localhost:" + receiver.port() + "/hook"))
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      assertThat(unsigned.statusCode()).isEqualTo(401);
      assertThat(unsigned.headers().firstValue("WWW-Authenticate"))
          .as("a 401 names its scheme (RFC 9110)")
          .hasValue("Webhook-Signature realm=\"vigil-reference-receiver\"");

      AlertEvent other =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "web", Instant.now(), 3, "x");
      String otherBody = AlertEventJson.write(other);
      String otherId = other.eventId().toString();
      // rotation: signed with an unknown new secret and the still-accepted previous one
      assertThat(
              post(
                  receiver,
                  otherId,
                  now,
                  otherBody,
                  otherBody,
                  List.of(WebhookSecret.generate(), PREVIOUS)))
          .isEqualTo(200);

      String conflicting =
          AlertEventJson.write(
              AlertEvent.failed(
                  event.eventId(), event.incidentId(), "web", event.occurredAt(), 9, "?"));
      assertThat(post(receiver, id, now, conflicting, conflicting, List.of(CURRENT)))
          .isEqualTo(409);

      assertThat(stored).hasSize(2);
      try (Connection connection = db.connect();
          ResultSet rows =
              connection.createStatement().executeQuery("select count(*) from received_webhook")) {
        rows.next();
        assertThat(rows.getInt(1)).isEqualTo(2);
      }
      assertThat(receiver.requests())
          .extracting(ReceivedRequest::status)
          .containsExactly(200, 200, 401, 401, 401, 401, 200, 409);
    }
  }

  @Test
  void storesRemindersAndSkipsKindsItDoesNotKnowCountingThem(TestDatabase db) throws Exception {
    try (ReferenceReceiver receiver =
        ReferenceReceiver.start(
            ReceiverConfig.onAnyPort(db.jdbcUrl(), db.user(), db.password(), CURRENT))) {
      List<ReceivedNotification> stored = new CopyOnWriteArrayList<>();
      receiver.onNotification(stored::add);
      Instant opened = Instant.now().minusSeconds(1800);
      AlertEvent reminder =
          AlertEvent.reminder(
              UUID.randomUUID(), UUID.randomUUID(), "web", Instant.now(), 9, "boom", opened);
      String body = AlertEventJson.write(reminder);
      long now = Instant.now().getEpochSecond();
      assertThat(post(receiver, reminder.eventId().toString(), now, body, body, CURRENT_ONLY))
          .isEqualTo(200);
      assertThat(stored).extracting(n -> n.event().kind().name()).containsExactly("REMINDER");

      AlertEvent failed =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "web", Instant.now(), 3, "x");
      String future = AlertEventJson.write(failed).replace("\"FAILED\"", "\"ESCALATED\"");
      assertThat(future).contains("ESCALATED");
      String futureId = failed.eventId().toString();
      assertThat(post(receiver, futureId, now, future, future, CURRENT_ONLY))
          .as("a signed event of an unknown kind is acknowledged, not retried")
          .isEqualTo(200);
      assertThat(post(receiver, futureId, now, future, future, CURRENT_ONLY)).isEqualTo(200);
      assertThat(receiver.skippedUnknownKinds()).isEqualTo(2);
      assertThat(stored).hasSize(1);
      String tampered = future.replace("\"x\"", "\"y\"");
      assertThat(post(receiver, futureId, now, future, tampered, CURRENT_ONLY))
          .as("the signature is checked before the kind")
          .isEqualTo(401);
      assertThat(receiver.skippedUnknownKinds()).isEqualTo(2);
      try (Connection connection = db.connect();
          ResultSet rows =
              connection
                  .createStatement()
                  .executeQuery("select kind from received_webhook order by seq")) {
        assertThat(rows.next()).isTrue();
        assertThat(rows.getString(1)).isEqualTo("REMINDER");
        assertThat(rows.next()).isFalse();
      }
    }
  }

  @Test
  void aRepeatedEventWithNulInItsTextIsADuplicateNotAnError(TestDatabase db) throws Exception {
    try (ReferenceReceiver receiver =
        ReferenceReceiver.start(
            ReceiverConfig.onAnyPort(db.jdbcUrl(), db.user(), db.password(), CURRENT))) {
      AlertEvent event =
          AlertEvent.failed(
              UUID.randomUUID(), UUID.randomUUID(), "web", Instant.now(), 3, "a\u0000b");
      String body = AlertEventJson.write(event);
      String id = event.eventId().toString();
      long now = Instant.now().getEpochSecond();

      assertThat(post(receiver, id, now, body, body, List.of(CURRENT))).isEqualTo(200);
      assertThat(post(receiver, id, now, body, body, List.of(CURRENT)))
          .as("a retried delivery of the same event")
          .isEqualTo(200);
      String other =
          AlertEventJson.write(
              AlertEvent.failed(
                  event.eventId(), event.incidentId(), "web", event.occurredAt(), 3, "a\u0000c"));
      assertThat(post(receiver, id, now, other, other, List.of(CURRENT))).isEqualTo(409);
    }
  }

  @Test
  void aBodyOverOneMebibyteIsAnsweredWith413NotACutConnection(TestDatabase db) throws Exception {
    try (ReferenceReceiver receiver =
        ReferenceReceiver.start(
            ReceiverConfig.onAnyPort(db.jdbcUrl(), db.user(), db.password(), CURRENT))) {
      // Like the drills' input sweep: the whole body is sent before the answer is read. Unread
      // bytes left behind when the receiver answers make the kernel reset the connection, and the
      // 413 is lost with it.
      byte[] huge = ("{\"x\":\"" + "a".repeat(2_000_000) + "\"}").getBytes(StandardCharsets.UTF_8);
      for (String path : List.of("/webhook", "/_faults", "/webhook", "/_faults")) {
        HttpResponse<String> answer =
            client.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + receiver.port() + path))
                    .POST(HttpRequest.BodyPublishers.ofByteArray(huge))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(path).isEqualTo(413);
      }
    }
  }

  @Test
  void faultsCanBeInjectedOverHttpForDrills(TestDatabase db) throws Exception {
    try (ReferenceReceiver receiver =
        ReferenceReceiver.start(
            ReceiverConfig.onAnyPort(db.jdbcUrl(), db.user(), db.password(), CURRENT))) {
      URI faults = URI.create("http://localhost:" + receiver.port() + "/_faults");
      HttpResponse<String> bad =
          client.send(
              HttpRequest.newBuilder(faults)
                  .POST(HttpRequest.BodyPublishers.ofString("explode"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(bad.statusCode()).isEqualTo(400);
      HttpResponse<String> added =
          client.send(
              HttpRequest.newBuilder(faults)
                  .POST(HttpRequest.BodyPublishers.ofString("status=503 times=1"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(added.statusCode()).isEqualTo(200);
      AlertEvent event =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "web", Instant.now(), 3, "x");
      String body = AlertEventJson.write(event);
      long now = Instant.now().getEpochSecond();
      String id = event.eventId().toString();
      assertThat(post(receiver, id, now, body, body, List.of(CURRENT))).isEqualTo(503);
      assertThat(post(receiver, id, now, body, body, List.of(CURRENT))).isEqualTo(200);
    }
  }

  @Test
  void nextRequestActionRunsOnceAfterStoringAndBeforeAnswering(TestDatabase db) throws Exception {
    try (ReferenceReceiver receiver =
        ReferenceReceiver.start(
            ReceiverConfig.onAnyPort(db.jdbcUrl(), db.user(), db.password(), CURRENT))) {
      List<String> inside = new CopyOnWriteArrayList<>();
      receiver.onNextRequestFor(
          "web",
          () -> inside.add(storedRows(db) + " stored, " + receiver.requests().size() + " logged"));
      long now = Instant.now().getEpochSecond();
      AlertEvent other =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "api", Instant.now(), 3, "x");
      String otherBody = AlertEventJson.write(other);
      assertThat(
              post(receiver, other.eventId().toString(), now, otherBody, otherBody, CURRENT_ONLY))
          .isEqualTo(200);
      assertThat(inside).as("another service's request").isEmpty();

      AlertEvent event =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "web", Instant.now(), 3, "x");
      String body = AlertEventJson.write(event);
      String id = event.eventId().toString();
      assertThat(post(receiver, id, now, body, body, CURRENT_ONLY)).isEqualTo(200);
      assertThat(post(receiver, id, now, body, body, CURRENT_ONLY)).isEqualTo(200);
      assertThat(inside).containsExactly("2 stored, 1 logged");
    }
  }

  private static long storedRows(TestDatabase db) {
    try (Connection connection = db.connect();
        ResultSet rows =
            connection.createStatement().executeQuery("select count(*) from received_webhook")) {
      rows.next();
      return rows.getLong(1);
    } catch (java.sql.SQLException e) {
      throw new AssertionError(e);
    }
  }

  @Test
  void faultRulesParseFromTextAndApplyPerService() {
    ReceiverFaults faults =
        ReceiverFaults.parse("status=503 times=2 service=a; retry-after=3 times=1; drop times=1");
    assertThat(faults.next("b"))
        .get()
        .extracting(ReceiverFaults.Fault::kind)
        .isEqualTo(ReceiverFaults.Kind.RETRY_AFTER);
    assertThat(faults.next("a")).get().extracting(ReceiverFaults.Fault::status).isEqualTo(503);
    assertThat(faults.next("a")).get().extracting(ReceiverFaults.Fault::status).isEqualTo(503);
    assertThat(faults.next("a"))
        .get()
        .extracting(ReceiverFaults.Fault::kind)
        .isEqualTo(ReceiverFaults.Kind.DROP_AFTER_STORE);
    assertThat(faults.next("a")).isEmpty();
  }

  private int post(
      ReferenceReceiver receiver,
      String id,
      long timestamp,
      String signedBody,
      String sentBody,
      List<String> secrets)
      throws Exception {
    List<WebhookSecret> keys = secrets.stream().map(WebhookSecret::parse).toList();
    String signature =
        WebhookSignature.sign(keys, id, timestamp, signedBody.getBytes(StandardCharsets.UTF_8));
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://localhost:" + receiver.port() + "/hook"))
            .header("Content-Type", "application/json")
            .header(WebhookSignature.HEADER_ID, id)
            .header(WebhookSignature.HEADER_TIMESTAMP, Long.toString(timestamp))
            .header(WebhookSignature.HEADER_SIGNATURE, signature)
            .POST(HttpRequest.BodyPublishers.ofString(sentBody))
            .build();
    return client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  void listsWhatItStoredWithRepeatsCountedAndRefusesBadQueries(TestDatabase db) throws Exception {
    try (ReferenceReceiver receiver =
        ReferenceReceiver.start(
            ReceiverConfig.onAnyPort(db.jdbcUrl(), db.user(), db.password(), CURRENT))) {
      long now = Instant.now().getEpochSecond();
      AlertEvent down =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "api", Instant.now(), 3, "x");
      AlertEvent other =
          AlertEvent.failed(UUID.randomUUID(), UUID.randomUUID(), "db", Instant.now(), 3, "y");
      for (AlertEvent event : List.of(down, down, other)) {
        String body = AlertEventJson.write(event);
        assertThat(post(receiver, event.eventId().toString(), now, body, body, CURRENT_ONLY))
            .isEqualTo(200);
      }

      HttpResponse<String> all = get(receiver, "/received");
      assertThat(all.statusCode()).isEqualTo(200);
      JsonNode page = HttpJson.mapper().readTree(all.body());
      assertThat(page.get("notifications")).hasSize(2);
      assertThat(page.get("notifications").get(0).get("eventId").asText())
          .isEqualTo(down.eventId().toString());
      assertThat(page.get("notifications").get(0).get("deliveries").asInt()).isEqualTo(2);
      assertThat(page.get("notifications").get(1).get("deliveries").asInt()).isEqualTo(1);
      assertThat(page.get("next").isNull()).isTrue();

      JsonNode onlyDb = HttpJson.mapper().readTree(get(receiver, "/received?service=db").body());
      assertThat(onlyDb.get("notifications")).hasSize(1);
      assertThat(onlyDb.get("notifications").get(0).get("kind").asText()).isEqualTo("FAILED");

      JsonNode first = HttpJson.mapper().readTree(get(receiver, "/received?limit=1").body());
      assertThat(first.get("notifications")).hasSize(1);
      long next = first.get("next").asLong();
      JsonNode second =
          HttpJson.mapper().readTree(get(receiver, "/received?limit=1&after=" + next).body());
      assertThat(second.get("notifications").get(0).get("service").asText()).isEqualTo("db");

      for (String bad :
          List.of(
              "service=a%00b",
              "service=%ff%fe",
              "service=%e2%82",
              "service=A%20B",
              "limit=0",
              "limit=1001",
              "limit=99999999999999999999",
              "after=-1",
              "after=1e3",
              "limit=1&limit=2",
              "colour=red",
              "%00=1")) {
        String refused = rawGet(receiver, "/received?" + bad);
        assertThat(refused).as(bad).startsWith("HTTP/1.1 400");
        String body = refused.substring(refused.indexOf("\r\n\r\n") + 4);
        assertThat(HttpJson.mapper().readTree(body).get("field").asText()).as(bad).isNotBlank();
      }
      // a malformed escape never reaches the receiver: the JDK's HTTP server refuses the URI
      assertThat(rawGet(receiver, "/received?service=a%2")).startsWith("HTTP/1.1 400");
    }
  }

  /** The request line exactly as given: java.net.URI refuses the malformed escapes sent here. */
  private static String rawGet(ReferenceReceiver receiver, String pathAndQuery) throws Exception {
    try (Socket socket = new Socket("localhost", receiver.port())) {
      socket
          .getOutputStream()
          .write(
              ("GET " + pathAndQuery + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.ISO_8859_1));
      return new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  private HttpResponse<String> get(ReferenceReceiver receiver, String pathAndQuery)
      throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create("http://localhost:" + receiver.port() + pathAndQuery))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
