package dev.vigil.relay.stream;

import dev.vigil.contract.AlertTopic;
import dev.vigil.contract.OutboxContract;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Outbox EventRouter settings that turn an outbox row into a record of the topic contract (key
 * = service, value = the payload as it is, headers {@code id}, {@code kind}, {@code incident_id},
 * {@code schema_version} and the CloudEvents binary-mode headers {@code ce_*}, {@code
 * content-type}, the W3C {@code traceparent}). Written once here for the relay's engine and for
 * anything else that must route the outbox the same way (the benchmark's stock Debezium Server).
 */
public final class OutboxRouting {
  /** The transform's name: its settings are {@code transforms.outbox.<key>}. */
  public static final String TRANSFORM = "outbox";

  private OutboxRouting() {}

  /**
   * The EventRouter's settings, keyed relative to {@code transforms.outbox.} (e.g. {@code type}).
   *
   * @param topic the topic every outbox row is routed to
   */
  public static Map<String, String> eventRouter(String topic) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("type", "io.debezium.transforms.outbox.EventRouter");
    p.put("route.by.field", OutboxContract.COLUMN_AGGREGATE_TYPE);
    p.put("route.topic.replacement", topic);
    p.put("table.field.event.id", OutboxContract.COLUMN_ID);
    p.put("table.field.event.key", OutboxContract.COLUMN_AGGREGATE_ID);
    p.put("table.field.event.payload", OutboxContract.COLUMN_PAYLOAD);
    p.put("table.expand.json.payload", "false");
    p.put("table.fields.additional.placement", String.join(",", headerPlacements()));
    return p;
  }

  /** {@code column:header:name} for each header the EventRouter adds besides {@code id}. */
  private static List<String> headerPlacements() {
    return List.of(
        header(OutboxContract.COLUMN_TYPE, AlertTopic.HEADER_KIND),
        header(OutboxContract.COLUMN_INCIDENT_ID, AlertTopic.HEADER_INCIDENT_ID),
        header(OutboxContract.COLUMN_SCHEMA_VERSION, AlertTopic.HEADER_SCHEMA_VERSION),
        header(OutboxContract.COLUMN_CE_SPECVERSION, AlertTopic.HEADER_CE_SPECVERSION),
        header(OutboxContract.COLUMN_ID, AlertTopic.HEADER_CE_ID),
        header(OutboxContract.COLUMN_CE_SOURCE, AlertTopic.HEADER_CE_SOURCE),
        header(OutboxContract.COLUMN_CE_TYPE, AlertTopic.HEADER_CE_TYPE),
        header(OutboxContract.COLUMN_CE_TIME, AlertTopic.HEADER_CE_TIME),
        header(OutboxContract.COLUMN_AGGREGATE_ID, AlertTopic.HEADER_CE_SUBJECT),
        header(OutboxContract.COLUMN_CONTENT_TYPE, AlertTopic.HEADER_CONTENT_TYPE),
        header(OutboxContract.COLUMN_TRACEPARENT, AlertTopic.HEADER_TRACEPARENT));
  }

  private static String header(String column, String name) {
    return column + ":header:" + name;
  }
}
