package dev.vigil.contract;

import java.util.List;
import java.util.Locale;

/**
 * The Kafka side of the contract. Key: the service name as plain UTF-8. Value: the {@link
 * AlertEvent} JSON object. Headers carry the event id, kind, incident id and schema version so
 * consumers can route without parsing, and the CloudEvents 1.0 attributes of the Kafka protocol
 * binding's binary mode ({@code ce_*}, {@code content-type}), so generic CloudEvents consumers can
 * read each record as an event whose data is the payload.
 */
public final class AlertTopic {
  /** Default topic name. */
  public static final String DEFAULT_TOPIC = "vigil.alerts";

  /** Header with the event id (UTF-8 UUID); the same value as the payload's {@code eventId}. */
  public static final String HEADER_EVENT_ID = "id";

  /**
   * Header with the kind: FAILED, RECOVERED or REMINDER (consumers skip kinds they do not know).
   */
  public static final String HEADER_KIND = "kind";

  /** Header with the incident id (UTF-8 UUID). */
  public static final String HEADER_INCIDENT_ID = "incident_id";

  /** Header with the payload's schema version (UTF-8 decimal). */
  public static final String HEADER_SCHEMA_VERSION = "schema_version";

  /** CloudEvents: the spec version, always {@code 1.0}. */
  public static final String HEADER_CE_SPECVERSION = "ce_specversion";

  /** CloudEvents: the event id, the same value as {@link #HEADER_EVENT_ID}. */
  public static final String HEADER_CE_ID = "ce_id";

  /** CloudEvents: {@value #CE_SOURCE}, what produced the event. */
  public static final String HEADER_CE_SOURCE = "ce_source";

  /** CloudEvents: {@value #CE_TYPE_PREFIX} + the kind in lower case (e.g. {@code ...failed}). */
  public static final String HEADER_CE_TYPE = "ce_type";

  /** CloudEvents: the payload's {@code occurredAt}, RFC 3339 in UTC. */
  public static final String HEADER_CE_TIME = "ce_time";

  /** CloudEvents: the service name, the same value as the record key. */
  public static final String HEADER_CE_SUBJECT = "ce_subject";

  /** CloudEvents' datacontenttype in binary mode: {@code application/json}. */
  public static final String HEADER_CONTENT_TYPE = "content-type";

  /**
   * W3C Trace Context: the {@code traceparent} of the span that decided the event (the monitor's
   * probe, pushed result or missed heartbeat, or a span of its own for an announced or closing
   * event), so a consumer continues the trace. Null on a row written without one (written by hand,
   * or before the upgrade that added it: monitor migration V12).
   */
  public static final String HEADER_TRACEPARENT = "traceparent";

  /** The value of {@link #HEADER_CE_SOURCE} on every event. */
  public static final String CE_SOURCE = "/vigil/monitor";

  /**
   * The prefix of {@link #HEADER_CE_TYPE}: {@code dev.vigil.alert.failed}, {@code ...recovered}.
   */
  public static final String CE_TYPE_PREFIX = "dev.vigil.alert.";

  /** Every header of a record, in the order the relay and the Connect connector write them. */
  public static final List<String> HEADERS =
      List.of(
          HEADER_EVENT_ID,
          HEADER_KIND,
          HEADER_INCIDENT_ID,
          HEADER_SCHEMA_VERSION,
          HEADER_CE_SPECVERSION,
          HEADER_CE_ID,
          HEADER_CE_SOURCE,
          HEADER_CE_TYPE,
          HEADER_CE_TIME,
          HEADER_CE_SUBJECT,
          HEADER_CONTENT_TYPE,
          HEADER_TRACEPARENT);

  /**
   * The CloudEvents type of a kind.
   *
   * @param kind FAILED, RECOVERED or REMINDER
   */
  public static String cloudEventType(AlertKind kind) {
    return CE_TYPE_PREFIX + kind.name().toLowerCase(Locale.ROOT);
  }

  private AlertTopic() {}
}
