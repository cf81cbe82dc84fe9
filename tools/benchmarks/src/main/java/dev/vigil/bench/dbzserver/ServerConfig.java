package dev.vigil.bench.dbzserver;

import dev.vigil.contract.OutboxContract;
import dev.vigil.relay.stream.OutboxRouting;
import java.net.URI;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * One Debezium Server configuration ({@code config/application.properties} keys): the Kafka sink,
 * the PostgreSQL connector with pgoutput on its own slot and publication, and the same Outbox
 * EventRouter routing as Vigil's relay ({@link OutboxRouting}, the relay's own settings).
 * Everything else keeps Debezium Server's defaults, except the poll interval of the tuned variant.
 *
 * @param name what the report calls it, e.g. "ds default"
 * @param pollIntervalMs the connector's {@code poll.interval.ms}, or 0 to keep its default (500)
 */
record ServerConfig(String name, int pollIntervalMs) {
  /** Debezium Server with nothing tuned. */
  static final ServerConfig DEFAULTS = new ServerConfig("ds default", 0);

  /** {@code poll.interval.ms=10}; batch and queue sizes stay at their documented defaults. */
  static final ServerConfig POLL_10MS = new ServerConfig("ds poll 10ms", 10);

  private static final Pattern SAFE = Pattern.compile("[A-Za-z0-9_.:/\\-]+");

  ServerConfig {
    if (!name.matches("[a-z0-9 ]+") || pollIntervalMs < 0) {
      throw new IllegalArgumentException("bad Debezium Server variant: " + name);
    }
  }

  /** The slot (and offsets namespace) of this variant: each variant starts from its own. */
  String slot() {
    return "dbz_" + name.replace(' ', '_');
  }

  /**
   * The properties for a server that reads {@code jdbcUrl}'s database and writes {@code topic}.
   *
   * @param jdbcUrl {@code jdbc:postgresql://host:port/database}, as the benchmark's infra gives it
   * @param user a PostgreSQL role that may replicate (the embedded server trusts it: no password)
   * @param offsetsFile where its FileOffsetBackingStore keeps offsets
   * @param httpPort its Quarkus HTTP port (health endpoint)
   */
  Map<String, String> properties(
      String jdbcUrl,
      String user,
      String bootstrapServers,
      String publication,
      String topic,
      Path offsetsFile,
      int httpPort) {
    URI db = URI.create(jdbcUrl.substring("jdbc:".length()));
    Map<String, String> p = new LinkedHashMap<>();
    p.put("debezium.sink.type", "kafka");
    p.put("debezium.sink.kafka.producer.bootstrap.servers", safe(bootstrapServers));
    p.put("debezium.sink.kafka.producer.key.serializer", STRING_SERIALIZER);
    p.put("debezium.sink.kafka.producer.value.serializer", STRING_SERIALIZER);
    // The topic contract: key = service as plain text, value = the JSON payload as it is. Headers
    // can only be JSON here (json or jsonbytearray), so a header value arrives quoted ("FAILED").
    p.put("debezium.format.key", "simplestring");
    p.put("debezium.format.value", "simplestring");
    p.put("debezium.format.header", "json");
    p.put("debezium.format.header.schemas.enable", "false");

    p.put("debezium.source.connector.class", "io.debezium.connector.postgresql.PostgresConnector");
    p.put("debezium.source.offset.storage.file.filename", safe(offsetsFile.toString()));
    p.put("debezium.source.database.hostname", safe(db.getHost()));
    p.put("debezium.source.database.port", Integer.toString(db.getPort()));
    p.put("debezium.source.database.user", safe(user));
    p.put("debezium.source.database.dbname", safe(db.getPath().substring(1)));
    p.put("debezium.source.topic.prefix", "dbz_bench");
    p.put("debezium.source.plugin.name", "pgoutput");
    p.put("debezium.source.slot.name", slot());
    p.put("debezium.source.publication.name", safe(publication));
    p.put("debezium.source.publication.autocreate.mode", "disabled");
    p.put("debezium.source.table.include.list", OutboxContract.QUALIFIED_TABLE);
    // Like the relay (VIGIL_RELAY_SNAPSHOT_MODE=no_data): start at the slot, no copy of the table.
    p.put("debezium.source.snapshot.mode", "no_data");
    if (pollIntervalMs > 0) {
      p.put("debezium.source.poll.interval.ms", Integer.toString(pollIntervalMs));
    }

    p.put("debezium.transforms", OutboxRouting.TRANSFORM);
    OutboxRouting.eventRouter(safe(topic))
        .forEach((k, v) -> p.put("debezium.transforms." + OutboxRouting.TRANSFORM + "." + k, v));

    p.put("quarkus.http.host", "127.0.0.1");
    p.put("quarkus.http.port", Integer.toString(httpPort));
    return p;
  }

  /** The file's text: one {@code key=value} a line (values are checked to need no escaping). */
  static String render(Map<String, String> properties) {
    StringBuilder sb = new StringBuilder("# written by the benchmark's debezium-server suite\n");
    properties.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    return sb.toString();
  }

  private static final String STRING_SERIALIZER =
      "org.apache.kafka.common.serialization.StringSerializer";

  /** Refuses a value that a properties file or Quarkus' ${...} expansion would change. */
  private static String safe(String value) {
    if (value == null || !SAFE.matcher(value).matches()) {
      throw new IllegalArgumentException("refusing a Debezium Server setting: '" + value + "'");
    }
    return value;
  }
}
