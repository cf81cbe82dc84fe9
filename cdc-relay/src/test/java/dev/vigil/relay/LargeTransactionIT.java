package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.AlertEvent;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One PostgreSQL transaction takes longer to relay than the Kafka transaction timeout
 * (VIGIL_RELAY_TRANSACTION_TIMEOUT=1s, a 40,000-row {@code INSERT … SELECT}): Kafka ends it, the
 * run restarts and meets it again. {@code /health} names it while it is relayed; after the second
 * timeout it is published in chunks, so it and the rows behind it arrive, none lost.
 */
@ExtendWith(VigilInfraExtension.class)
class LargeTransactionIT {
  private static final String PREFIX = "large-";
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void aTransactionLargerThanTheKafkaTimeoutIsNamedOnHealthAndThenPublishedInChunks(
      TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    RelayFixture.createSequenceTable(db);
    String topic = kafka.uniqueName("alerts");
    Map<String, String> env =
        new HashMap<>(
            RelayFixture.env(db, kafka, RelayFixture.uniqueSlot("large"), topic, "large"));
    env.put("VIGIL_RELAY_TRANSACTION_TIMEOUT", "1s");
    env.put("VIGIL_RELAY_MAX_RETRY_BACKOFF", "500ms");

    try (RelayService relay = RelayFixture.startStreaming(RelayFixture.config(env));
        TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic);
        Connection c = db.connect()) {
      List<AlertEvent> bulk =
          new BulkLoader(PREFIX + "bulk-", 20).commit(c, BulkLoader.Method.INSERT_SELECT, 40_000);
      AlertEvent behind = RelayFixture.insertNext(c, PREFIX + "behind");

      await("health names the transaction while it is relayed")
          .atMost(Duration.ofSeconds(120))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> health(relay).contains("has been relayed in one Kafka transaction"));
      assertThat(health(relay)).containsPattern("xid=[0-9]+").contains("rows so far");
      await("after two timeouts it is published in chunks")
          .atMost(Duration.ofSeconds(180))
          .pollInterval(Duration.ofMillis(100))
          .until(() -> health(relay).contains("is published in chunks"));

      Set<String> expected =
          bulk.stream().map(e -> e.eventId().toString()).collect(Collectors.toSet());
      expected.add(behind.eventId().toString());
      await("every row of the transaction, and the row behind it, arrives")
          .atMost(Duration.ofSeconds(180))
          .until(() -> Deliveries.ids(reader.poll(), PREFIX).containsAll(expected));
      System.out.printf(
          "large transaction: %d rows, %d records read_committed (repeats of chunks allowed)%n",
          expected.size(), reader.poll().size());
    }
  }

  private static String health(RelayService relay) throws Exception {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + relay.httpPort() + "/health"))
                .timeout(Duration.ofSeconds(2))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }
}
