package dev.vigil.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vigil.contract.OutboxContract;
import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.relay.config.RelayConfig;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;

/** The outbox refuses what Kafka could not take; what it accepts, the relay publishes. */
@ExtendWith(VigilInfraExtension.class)
class OutboxSizeLimitIT {
  private static final String INSERT =
      """
      insert into outbox (id, aggregatetype, aggregateid, type, payload, incident_id,
                          schema_version)
      values (?, 'service', ?, 'FAILED', ?::jsonb, ?, 1)
      """;

  @Test
  void outboxRefusesLargerRowsFromEveryWriterAndTheLargestAllowedRowReachesKafka(
      TestDatabase db, TestKafka kafka) throws Exception {
    RelayFixture.migrateMonitor(db);
    String topic = kafka.uniqueName("alerts");
    RelayConfig config =
        RelayFixture.config(
            RelayFixture.env(db, kafka, RelayFixture.uniqueSlot("size"), topic, "size"));
    try (RelayService relay = RelayFixture.startStreaming(config);
        Connection c = db.connect()) {
      String largest = payloadOf(c, OutboxContract.MAX_PAYLOAD_BYTES);
      String tooLarge = payloadOf(c, OutboxContract.MAX_PAYLOAD_BYTES + 1);
      UUID largestId = UUID.randomUUID();
      insert(c, largestId, "size-max", largest);

      assertThatThrownBy(() -> insert(c, UUID.randomUUID(), "size-over", tooLarge))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("outbox_payload_at_most_64_kib")
          .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("23514"));
      assertThatThrownBy(() -> copy(c, "size-copy", tooLarge))
          .as("COPY is refused too")
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("outbox_payload_at_most_64_kib");
      String longKey = "k".repeat(OutboxContract.MAX_AGGREGATE_ID_BYTES + 1);
      assertThatThrownBy(() -> insert(c, UUID.randomUUID(), longKey, "{}"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("outbox_aggregateid_at_most_255_bytes");

      try (TopicReader reader = new TopicReader(kafka.bootstrapServers(), topic)) {
        await()
            .atMost(Duration.ofSeconds(60))
            .until(() -> Deliveries.ids(reader.poll(), "size-").contains(largestId.toString()));
        assertThat(reader.poll())
            .filteredOn(r -> "size-max".equals(r.keyText()))
            .singleElement()
            .satisfies(r -> assertThat(r.value()).hasSize(OutboxContract.MAX_PAYLOAD_BYTES));
        assertThat(Deliveries.ids(reader.poll(), "size-"))
            .as("nothing refused by the table was published")
            .containsExactly(largestId.toString());
      }
      try (Admin admin = kafka.admin()) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        String maxMessageBytes =
            admin
                .describeConfigs(Set.of(resource))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(resource)
                .get("max.message.bytes")
                .value();
        assertThat(Integer.parseInt(maxMessageBytes))
            .as("the topic the relay created takes the largest record with room to spare")
            .isEqualTo(4 * OutboxContract.MAX_PAYLOAD_BYTES);
      }
      assertThat(relay.status().reason()).isNull();
    }
  }

  /** A JSON object whose jsonb text (what the relay publishes) is exactly {@code bytes} long. */
  private static String payloadOf(Connection c, int bytes) throws SQLException {
    String json = "{\"pad\": \"" + "x".repeat(bytes - 11) + "\"}";
    try (PreparedStatement s = c.prepareStatement("select octet_length(?::jsonb::text)")) {
      s.setString(1, json);
      try (var rs = s.executeQuery()) {
        rs.next();
        assertThat(rs.getInt(1)).as("jsonb text length").isEqualTo(bytes);
      }
    }
    return json;
  }

  private static void insert(Connection c, UUID id, String service, String payload)
      throws SQLException {
    try (PreparedStatement s = c.prepareStatement(INSERT)) {
      s.setObject(1, id);
      s.setString(2, service);
      s.setString(3, payload);
      s.setObject(4, UUID.randomUUID());
      s.executeUpdate();
    }
  }

  private static void copy(Connection c, String service, String payload) throws Exception {
    String row =
        UUID.randomUUID()
            + ",service,"
            + service
            + ",FAILED,\""
            + payload.replace("\"", "\"\"")
            + "\","
            + UUID.randomUUID()
            + ",1\n";
    c.unwrap(PGConnection.class)
        .getCopyAPI()
        .copyIn(
            "copy outbox (id, aggregatetype, aggregateid, type, payload, incident_id,"
                + " schema_version) from stdin with (format csv)",
            new StringReader(row));
  }
}
