package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertTopic;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bulk transactions (2,000 rows each, by COPY and by multi-row INSERT … SELECT) while the relay, a
 * separate OS process, is killed with SIGKILL (and once stopped with SIGTERM) at moments when the
 * topic holds part of a transaction: the kill lands inside it, whatever the engine's batch
 * boundaries. Every committed row must reach the topic, in per-service order: with exactly-once
 * delivery each exactly once for a read_committed reader, with at-least-once duplicates allowed.
 *
 * <p>Without offsets held at transaction boundaries this loses the rest of a COPY multi-insert WAL
 * record at most kills (Debezium 3.6 skips every event at the stored LSN on restart).
 */
@ExtendWith(VigilInfraExtension.class)
class BulkTransactionsIT {
  private static final int ROWS_PER_TRANSACTION = 2_000;
  private static final int TRANSACTIONS_PER_ROUND = 3;
  private static final int MAX_TRANSACTIONS = 30;
  private static final Map<BulkLoader.Method, Integer> KILLS_WANTED =
      Map.of(BulkLoader.Method.COPY, 2, BulkLoader.Method.INSERT_SELECT, 1);

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"exactly-once", "at-least-once"})
  void relayKilledInsideCopyAndInsertSelectTransactionsLosesNoRow(
      String delivery, TestDatabase db, TestKafka kafka) throws Exception {
    // Time budget of the whole suite (15 min): each variant takes 75-90 s. In the default run the
    // short fault drill's bulk-transactions kills the relay inside COPY transactions, and
    // InterleavedTransactionsIT covers the restart search in both modes; this test runs on request.
    assumeTrue(
        Boolean.getBoolean("vigil.bulk"),
        "runs with -Dvigil.bulk=true (suite time budget; the short drill covers bulk kills)");
    RelayFixture.migrateMonitor(db);
    String topic = kafka.uniqueName("alerts");
    Map<String, String> env =
        RelayFixture.env(db, kafka, RelayFixture.uniqueSlot("bulk"), topic, "bulk");
    env.put("VIGIL_RELAY_DELIVERY", delivery);
    boolean exactlyOnce = "exactly-once".equals(delivery);
    Watch watch = new Watch();
    Map<BulkLoader.Method, Integer> kills = new EnumMap<>(BulkLoader.Method.class);
    BulkLoader loader = new BulkLoader("bulk-", 16);
    int stops = 0;
    boolean terminated = false;

    RelayProcess relay = RelayProcess.start(env, "bulk-" + stops);
    try {
      // The relay creates the topic; read it once it exists.
      await().atMost(Duration.ofSeconds(180)).until(relay::isStreaming);
    } catch (RuntimeException e) {
      relay.close();
      throw e;
    }
    try (Connection c = db.connect();
        // Decides when to stop the relay: read_uncommitted, so it also sees the records of a Kafka
        // transaction still open (exactly-once) — the moment to kill is inside one.
        TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic, "read_uncommitted");
        TopicReader committedReader = new TopicReader(kafka.bootstrapServers(), topic)) {
      while (!terminated) {
        // A round of transactions committed back to back: the engine's batches (up to 2,048
        // records) then end inside them wherever they fall, not only at commits.
        for (int i = 0; i < TRANSACTIONS_PER_ROUND; i++) {
          int next = watch.methods.size();
          assertThat(next)
              .as("transactions written before the relay was caught inside enough of them")
              .isLessThan(MAX_TRANSACTIONS);
          BulkLoader.Method method =
              next % 2 == 0 ? BulkLoader.Method.COPY : BulkLoader.Method.INSERT_SELECT;
          watch.committed(method, loader.commit(c, method, ROWS_PER_TRANSACTION));
        }
        int tx = watch.methods.size() - 1;
        BulkLoader.Method method = watch.methods.get(tx);
        // Each stop lands at another depth of the round's last transaction: once this run has put
        // at least `depth` of its rows on the topic, but not all of them. Whole: another round.
        int depth = 150 + (stops * 600) % (ROWS_PER_TRANSACTION - 300);
        await()
            .atMost(Duration.ofSeconds(90))
            .pollInterval(Duration.ofMillis(5))
            .until(
                () -> {
                  watch.read(reader.poll());
                  return watch.newInThisRun(tx) > 0 && watch.seenCount(tx) >= depth
                      || watch.complete(tx);
                });
        if (watch.complete(tx)) {
          continue;
        }
        System.out.printf(
            "bulk transactions: relay run %d stopped inside transaction %d (%s, %d of %d rows on"
                + " the topic)%n",
            stops, tx, method, watch.seenCount(tx), ROWS_PER_TRANSACTION);
        boolean killsDone =
            KILLS_WANTED.entrySet().stream()
                .allMatch(e -> kills.getOrDefault(e.getKey(), 0) >= e.getValue());
        if (killsDone) {
          // Last: a clean stop inside a transaction must not lose anything either.
          assertThat(relay.terminate()).as("exit code after SIGTERM").isZero();
          terminated = true;
        } else {
          relay.kill();
          kills.merge(method, 1, Integer::sum);
        }
        stops++;
        relay = RelayProcess.start(env, "bulk-" + stops);
        watch.newRun();
        await().atMost(Duration.ofSeconds(180)).until(relay::isStreaming);
      }

      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .untilAsserted(
              () -> {
                watch.read(reader.poll());
                assertThat(watch.missing().size())
                    .as("committed rows missing from the topic")
                    .isZero();
              });
      int uncommittedDuplicates = Deliveries.verify(reader.poll(), "bulk-", watch.serviceById);
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(200))
          .until(
              () ->
                  Deliveries.ids(committedReader.poll(), "bulk-")
                      .containsAll(watch.serviceById.keySet()));
      int duplicates = Deliveries.verify(committedReader.poll(), "bulk-", watch.serviceById);
      System.out.printf(
          "bulk transactions (%s): %d transactions of %d rows, relay killed inside %s, stopped"
              + " once inside one; missing 0, duplicates read_committed %d, read_uncommitted %d%n",
          delivery,
          watch.methods.size(),
          ROWS_PER_TRANSACTION,
          kills,
          duplicates,
          uncommittedDuplicates);
      if (exactlyOnce) {
        assertThat(duplicates).as("duplicates read_committed").isZero();
      }
      assertThat(relay.terminate()).isZero();
    } finally {
      relay.close();
    }
  }

  /** What the topic holds, per transaction written, as far as read so far. */
  private static final class Watch {
    final List<BulkLoader.Method> methods = new ArrayList<>();
    final Map<String, String> serviceById = new HashMap<>();
    private final Map<String, Integer> txById = new HashMap<>();
    private final List<Set<String>> seen = new ArrayList<>();
    private final List<Integer> newInRun = new ArrayList<>();
    private int read;

    void committed(BulkLoader.Method method, List<AlertEvent> events) {
      int tx = methods.size();
      methods.add(method);
      seen.add(new HashSet<>());
      newInRun.add(0);
      for (AlertEvent e : events) {
        serviceById.put(e.eventId().toString(), e.service());
        txById.put(e.eventId().toString(), tx);
      }
    }

    void read(List<TopicReader.Received> all) {
      for (; read < all.size(); read++) {
        String id = all.get(read).headers().get(AlertTopic.HEADER_EVENT_ID);
        Integer tx = txById.get(id);
        if (tx != null && seen.get(tx).add(id)) {
          newInRun.set(tx, newInRun.get(tx) + 1);
        }
      }
    }

    /** Rows of {@code tx} that this relay run put on the topic first. */
    int newInThisRun(int tx) {
      return newInRun.get(tx);
    }

    int seenCount(int tx) {
      return seen.get(tx).size();
    }

    boolean complete(int tx) {
      return seen.get(tx).size() == ROWS_PER_TRANSACTION;
    }

    void newRun() {
      newInRun.replaceAll(n -> 0);
    }

    Set<String> missing() {
      Set<String> missing = new HashSet<>(serviceById.keySet());
      seen.forEach(missing::removeAll);
      return missing;
    }
  }
}
