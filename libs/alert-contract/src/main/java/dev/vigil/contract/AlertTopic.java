package dev.vigil.contract;

/**
 * The Kafka side of the contract. Key: the service name as plain UTF-8. Value: the {@link
 * AlertEvent} JSON object. Headers carry the event id, kind, incident id and schema version so
 * consumers can route without parsing.
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

  private AlertTopic() {}
}
