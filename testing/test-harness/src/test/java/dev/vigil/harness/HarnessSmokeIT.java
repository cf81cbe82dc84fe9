package dev.vigil.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.TestKafka;
import dev.vigil.harness.junit.TestPostgres;
import dev.vigil.harness.junit.VigilInfraExtension;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VigilInfraExtension.class)
class HarnessSmokeIT {

  @Test
  void postgresRunsWithLogicalDecodingAndPgoutputSlots(TestDatabase db) throws SQLException {
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "show wal_level")).isEqualTo("logical");
      assertThat(single(statement, "show server_version")).startsWith("17.");
      assertThat(Integer.parseInt(single(statement, "show max_replication_slots")))
          .isGreaterThanOrEqualTo(10);

      String slot = "smoke_" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
      statement.execute("select pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
      assertThat(
              single(
                  statement,
                  "select plugin from pg_replication_slots where slot_name = '" + slot + "'"))
          .isEqualTo("pgoutput");
      statement.execute("select pg_drop_replication_slot('" + slot + "')");
      assertThat(
              single(
                  statement,
                  "select count(*) from pg_replication_slots where slot_name = '" + slot + "'"))
          .isEqualTo("0");
    }
  }

  @Test
  void durableServerForcesCommitsToDisk(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
      throws SQLException {
    try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start(dir, 0, true);
        Connection connection =
            java.sql.DriverManager.getConnection(
                server.jdbcUrl("postgres"), EmbeddedPostgresServer.USER, "");
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "show fsync")).isEqualTo("on");
      assertThat(single(statement, "show synchronous_commit")).isEqualTo("on");
      assertThat(single(statement, "show full_page_writes")).isEqualTo("on");
    }
  }

  @Test
  void eachTestGetsItsOwnDatabase(TestDatabase first, TestDatabase second) throws SQLException {
    assertThat(first.name()).isNotEqualTo(second.name());
    try (Connection connection = first.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("create table only_in_first (id int)");
    }
    try (Connection connection = second.connect();
        Statement statement = connection.createStatement()) {
      assertThat(
              single(statement, "select count(*) from pg_tables where tablename = 'only_in_first'"))
          .isEqualTo("0");
    }
  }

  @Test
  void postgresRestartsWithItsData(TestPostgres postgres) throws SQLException {
    TestDatabase db = postgres.newDatabase();
    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      statement.execute("create table kept (v text); insert into kept values ('survives')");
    }

    postgres.stop();
    assertThatThrownBy(db::connect).isInstanceOf(SQLException.class);
    postgres.start();

    try (Connection connection = db.connect();
        Statement statement = connection.createStatement()) {
      assertThat(single(statement, "select v from kept")).isEqualTo("survives");
    }
  }

  @Test
  void kafkaRoundTripsARecordAndSurvivesARestart(TestKafka kafka) {
    String topic = kafka.uniqueName("smoke");
    kafka.createTopic(topic, 1);

    produce(kafka, topic, "before-restart");
    kafka.stop();
    kafka.start();
    produce(kafka, topic, "after-restart");

    assertThat(consumeAll(kafka, topic, 2)).containsExactly("before-restart", "after-restart");
  }

  private static void produce(TestKafka kafka, String topic, String value) {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG,
                "all"),
            new StringSerializer(),
            new StringSerializer())) {
      producer.send(new ProducerRecord<>(topic, "key", value)).get();
    } catch (Exception e) {
      throw new AssertionError("produce failed", e);
    }
  }

  private static List<String> consumeAll(TestKafka kafka, String topic, int expected) {
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer =
        new KafkaConsumer<>(
            Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, kafka.uniqueName("smoke-group"),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
            new StringDeserializer(),
            new StringDeserializer())) {
      consumer.subscribe(List.of(topic));
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (values.size() < expected && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
          values.add(record.value());
        }
      }
    }
    return values;
  }

  private static String single(Statement statement, String sql) throws SQLException {
    try (ResultSet rs = statement.executeQuery(sql)) {
      assertThat(rs.next()).as("a row from: %s", sql).isTrue();
      return rs.getString(1);
    }
  }
}
