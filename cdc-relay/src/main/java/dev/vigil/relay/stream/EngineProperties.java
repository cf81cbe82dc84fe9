package dev.vigil.relay.stream;

import static dev.vigil.relay.config.RelayConfig.DEBEZIUM_HEADERS;
import static dev.vigil.relay.config.RelayConfig.HEARTBEAT_INTERVAL;
import static dev.vigil.relay.config.RelayConfig.OFFSETS_TOPIC;
import static dev.vigil.relay.config.RelayConfig.OFFSET_FLUSH_INTERVAL;
import static dev.vigil.relay.config.RelayConfig.POLL_INTERVAL;
import static dev.vigil.relay.config.RelayConfig.PUBLICATION;
import static dev.vigil.relay.config.RelayConfig.SLOT;
import static dev.vigil.relay.config.RelayConfig.SLOT_FAILOVER;
import static dev.vigil.relay.config.RelayConfig.SNAPSHOT_MODE;

import dev.vigil.contract.OutboxContract;
import dev.vigil.kit.db.PostgresTls;
import dev.vigil.relay.config.RelayConfig;
import java.util.Properties;

/** Debezium engine, PostgreSQL connector and Outbox EventRouter configuration for the relay. */
final class EngineProperties {
  /** Topic prefix of the connector's own (never published) change topics. */
  static final String TOPIC_PREFIX = "vigil_relay";

  /**
   * Keys whose values Debezium masks when it logs the engine's configuration at every task start
   * ({@code custom.sanitize.pattern}, which replaces Debezium's own pattern rather than adding to
   * it, so that one is repeated here, case-insensitive as Debezium compiles it). Added: the JDBC
   * URL of the at-least-once offset store (it may carry {@code password=} and {@code
   * sslpassword=}), and inline PEM material or other secrets of Kafka clients passed through {@code
   * VIGIL_KAFKA_PROPERTY_*} ({@code ssl.keystore.key}, {@code *.token}, {@code *.credentials}).
   */
  static final String SANITIZE_PATTERN =
      "(?i)"
          // Debezium 3.6's default (Configuration.PASSWORD_PATTERN)
          + ".*secret$|.*password$|.*sasl\\.jaas\\.config$|.*basic\\.auth\\.user\\.info"
          + "|.*registry\\.auth\\.client-secret|.*credentials\\.json$|.*connectionstring$"
          + "|.*connection\\.string$"
          // the relay's own
          + "|.*jdbc\\.url$|.*ssl\\.keystore\\.key$|.*ssl\\.keystore\\.certificate\\.chain$"
          + "|.*\\.token$|.*credentials$|.*secret\\..*";

  private EngineProperties() {}

  /** The engine's name: also the namespace of its offsets. */
  static String engineName(RelayConfig config) {
    return "vigil-relay-" + config.get(SLOT);
  }

  static Properties of(RelayConfig config) {
    Properties p = new Properties();
    p.setProperty("name", engineName(config));
    p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.setProperty("custom.sanitize.pattern", SANITIZE_PATTERN);

    if (config.exactlyOnce()) {
      // Offsets: in a Kafka topic, committed by the publisher in each batch's transaction.
      p.setProperty("offset.storage", KafkaOffsetStore.class.getName());
      p.setProperty(KafkaOffsetStore.TOPIC, config.get(OFFSETS_TOPIC));
      OutboxStream.offsetsConsumerProperties(config)
          .forEach(
              (k, v) -> p.setProperty(KafkaOffsetStore.CONSUMER_PREFIX + k, String.valueOf(v)));
    } else {
      // Offsets: in PostgreSQL, stored after every batch that Kafka acknowledged.
      p.setProperty("offset.storage", PostgresOffsetStore.class.getName());
      // The URL carries no secret (RelayConfig refuses password and sslpassword in it); the
      // passwords are properties of their own, which the sanitize pattern masks in the dump.
      p.setProperty(PostgresOffsetStore.URL, config.dbUrl());
      p.setProperty(PostgresOffsetStore.USER, config.dbUser());
      p.setProperty(PostgresOffsetStore.PASSWORD, config.dbPassword());
      String keyPassword = config.keyPassword();
      if (!keyPassword.isEmpty()) {
        p.setProperty(PostgresOffsetStore.SSL_PASSWORD, keyPassword);
      }
      p.setProperty(PostgresOffsetStore.SLOT, config.get(SLOT));
    }
    p.setProperty(
        "offset.flush.interval.ms", String.valueOf(config.get(OFFSET_FLUSH_INTERVAL).toMillis()));
    p.setProperty("offset.flush.timeout.ms", "10000");

    // Source: pgoutput on our own slot and a publication the relay manages itself.
    p.setProperty("database.hostname", config.dbHost());
    p.setProperty("database.port", String.valueOf(config.dbPort()));
    p.setProperty("database.dbname", config.dbName());
    p.setProperty("database.user", config.dbUser());
    p.setProperty("database.password", config.dbPassword());
    // TLS of the JDBC URL (sslmode, sslrootcert, sslcert, sslkey) for Debezium's replication and
    // JDBC connections, which it builds from host, port and database rather than from the URL.
    PostgresTls.debeziumProperties(config.dbUrl()).forEach(p::setProperty);
    String keyPassword = config.keyPassword();
    if (!keyPassword.isEmpty()) {
      p.setProperty("database.sslpassword", keyPassword);
    }
    p.setProperty("topic.prefix", TOPIC_PREFIX);
    p.setProperty("plugin.name", "pgoutput");
    p.setProperty("slot.name", config.get(SLOT));
    // A slot Debezium creates is a failover slot on a PostgreSQL 17+ primary (it falls back to a
    // plain slot elsewhere); SlotFailover reports which and upgrades an existing plain slot.
    p.setProperty("slot.failover", String.valueOf(config.get(SLOT_FAILOVER)));
    p.setProperty("publication.name", config.get(PUBLICATION));
    p.setProperty("publication.autocreate.mode", "disabled");
    p.setProperty("snapshot.mode", config.get(SNAPSHOT_MODE));
    // With snapshot.mode=initial a first start also sends the rows already in the outbox; read them
    // in commit order (seq, numbered under the service's lock; never a host's clock) so each
    // service's events keep their order.
    p.setProperty("snapshot.select.statement.overrides", OutboxContract.QUALIFIED_TABLE);
    p.setProperty(
        "snapshot.select.statement.overrides." + OutboxContract.QUALIFIED_TABLE,
        "select * from "
            + OutboxContract.QUALIFIED_TABLE
            + " order by "
            + OutboxContract.COLUMN_SEQ);
    p.setProperty(
        "table.include.list", OutboxContract.QUALIFIED_TABLE + "," + RelaySchema.HEARTBEAT_TABLE);
    p.setProperty("lsn.flush.mode", "connector");
    // The topic contract has four headers; Debezium's __debezium.context.* headers only on request.
    p.setProperty("extended.headers.enabled", String.valueOf(config.get(DEBEZIUM_HEADERS)));
    // An END record per transaction, whose offset is the commit: the publisher marks batches
    // processed only up to such a record, so stored offsets (and the slot's confirmed LSN) are
    // never inside a transaction (see TransactionBoundary). The records go to the connector's own
    // transaction topic, which the publisher never sends to Kafka.
    p.setProperty("provide.transaction.metadata", "true");
    // A standby taking over may find the slot still marked active for a moment.
    p.setProperty("slot.max.retries", "40");
    p.setProperty("slot.retry.delay.ms", "500");
    // After a retriable error (the database restarted, the walsender's connection broke) Debezium
    // restarts its task by itself after this pause; its default, 10 s, adds straight to the
    // recovery time, and a stop requested meanwhile waits it out.
    p.setProperty("retriable.restart.connector.wait.ms", "1000");

    // Heartbeats: a row in the (published) heartbeat table, so the slot advances while idle.
    p.setProperty(
        "heartbeat.interval.ms", String.valueOf(config.get(HEARTBEAT_INTERVAL).toMillis()));
    p.setProperty("heartbeat.action.query", heartbeatQuery(config.get(SLOT)));

    // Latency: look for changes every few ms; batches still grow to max.batch.size under load.
    p.setProperty("poll.interval.ms", String.valueOf(config.get(POLL_INTERVAL).toMillis()));
    p.setProperty("max.batch.size", "2048");
    p.setProperty("max.queue.size", "8192");

    // Outbox EventRouter, applied to outbox change events only.
    p.setProperty("transforms", OutboxRouting.TRANSFORM);
    String prefix = "transforms." + OutboxRouting.TRANSFORM + ".";
    OutboxRouting.eventRouter(config.topic()).forEach((k, v) -> p.setProperty(prefix + k, v));
    p.setProperty(prefix + "predicate", "isOutbox");
    // An equality test rather than Kafka Connect's TopicNameMatches: that one runs a regular
    // expression for every record the engine streams (see OutboxTopicPredicate).
    p.setProperty("predicates", "isOutbox");
    p.setProperty("predicates.isOutbox.type", OutboxTopicPredicate.class.getName());
    p.setProperty(
        "predicates.isOutbox." + OutboxTopicPredicate.TOPIC,
        TOPIC_PREFIX + "." + OutboxContract.SCHEMA + "." + OutboxContract.TABLE);
    return p;
  }

  /**
   * Inserts a heartbeat row and prunes old ones in one statement (the publication carries inserts
   * only, so an upsert would not reach the slot).
   */
  static String heartbeatQuery(String slot) {
    return "with pruned as (delete from "
        + RelaySchema.HEARTBEAT_TABLE
        + " where beat_at < now() - interval '1 hour') insert into "
        + RelaySchema.HEARTBEAT_TABLE
        + " (slot_name) values ('"
        + slot
        + "')";
  }
}
