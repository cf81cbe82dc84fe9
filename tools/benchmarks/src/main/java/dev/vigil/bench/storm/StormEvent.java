package dev.vigil.bench.storm;

import java.util.UUID;

/**
 * One alert the monitor committed during the storm, as its outbox row says.
 *
 * @param id the event id
 * @param service the service (Kafka key)
 * @param kind FAILED or RECOVERED
 * @param occurredMicros the event's {@code occurredAt} (the database's clock when the recorder
 *     crossed the threshold), epoch µs
 * @param seq the outbox row's insertion number: per service, the order the receiver must see
 */
record StormEvent(UUID id, String service, String kind, long occurredMicros, long seq) {}
