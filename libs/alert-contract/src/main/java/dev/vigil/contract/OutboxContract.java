package dev.vigil.contract;

/**
 * Names shared by the outbox writer (monitor-service migrations) and the relay (Debezium
 * configuration). The table follows Debezium's outbox shape: {@code id} (event id), {@code
 * aggregatetype}, {@code aggregateid} (service), {@code type} (kind), {@code payload} (jsonb), plus
 * {@code incident_id}, {@code schema_version}, {@code created_at} (the database's time) and {@code
 * seq} (commit order per service). Rows are only ever inserted (and deleted by the monitor's
 * retention once old).
 */
public final class OutboxContract {
  /** Schema holding the outbox table. */
  public static final String SCHEMA = "public";

  /** The outbox table. */
  public static final String TABLE = "outbox";

  /** Schema-qualified outbox table, as Debezium's {@code table.include.list} wants it. */
  public static final String QUALIFIED_TABLE = SCHEMA + "." + TABLE;

  /** Value of {@code aggregatetype} on every row Vigil writes. */
  public static final String AGGREGATE_TYPE = "service";

  public static final String COLUMN_ID = "id";
  public static final String COLUMN_AGGREGATE_TYPE = "aggregatetype";
  public static final String COLUMN_AGGREGATE_ID = "aggregateid";
  public static final String COLUMN_TYPE = "type";
  public static final String COLUMN_PAYLOAD = "payload";
  public static final String COLUMN_INCIDENT_ID = "incident_id";
  public static final String COLUMN_SCHEMA_VERSION = "schema_version";
  public static final String COLUMN_CREATED_AT = "created_at";

  // CloudEvents attributes, filled by the table's own insert trigger (the monitor's migration V10)
  // for every writer and placed as record headers by the relay and the Connect connector.
  public static final String COLUMN_CE_SPECVERSION = "ce_specversion";
  public static final String COLUMN_CE_TYPE = "ce_type";
  public static final String COLUMN_CE_SOURCE = "ce_source";
  public static final String COLUMN_CE_TIME = "ce_time";
  public static final String COLUMN_CONTENT_TYPE = "content_type";

  /**
   * W3C {@code traceparent} of the span that wrote the row (Debezium's {@code tracingspancontext}
   * idea, as a plain column): placed as the {@code traceparent} record header. Null when unknown.
   */
  public static final String COLUMN_TRACEPARENT = "traceparent";

  /**
   * Insertion number ({@code generated always as identity}). The monitor inserts a service's rows
   * while holding that service's lock, so one service's rows are numbered in commit order; a
   * snapshot reads {@code order by seq}. Never a host's clock.
   */
  public static final String COLUMN_SEQ = "seq";

  /**
   * Largest {@code payload} the outbox accepts, in bytes of its jsonb text (what the relay sends as
   * the Kafka record value): 64 KiB, the same limit consumers apply when they read an event ({@link
   * AlertEventJson#MAX_PAYLOAD_BYTES}), so a row the outbox takes can be published and read.
   * Enforced by the table itself (check constraint of the monitor's migration V3) for every writer;
   * the relay's producer and the topic it creates allow records of four times that, room for key,
   * headers and batching.
   */
  public static final int MAX_PAYLOAD_BYTES = AlertEventJson.MAX_PAYLOAD_BYTES;

  /** Largest {@code aggregateid} (the Kafka key) the outbox accepts, in UTF-8 bytes. */
  public static final int MAX_AGGREGATE_ID_BYTES = 255;

  private OutboxContract() {}
}
