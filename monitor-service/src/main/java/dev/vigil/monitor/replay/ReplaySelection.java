package dev.vigil.monitor.replay;

import dev.vigil.contract.ServiceNames;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * Which outbox rows to publish again: a {@code seq} range, a range of {@code created_at} and/or one
 * service, every bound optional and inclusive, at least one given. Validated when built; a refusal
 * names the field.
 *
 * @param service the service (the row's {@code aggregateid}), or null for every service
 * @param fromSeq the lowest {@code seq}, or null
 * @param toSeq the highest {@code seq}, or null
 * @param from the earliest {@code created_at}, or null
 * @param to the latest {@code created_at}, or null
 */
public record ReplaySelection(String service, Long fromSeq, Long toSeq, Instant from, Instant to) {
  public ReplaySelection {
    if (service == null && fromSeq == null && toSeq == null && from == null && to == null) {
      throw InvalidReplayException.invalid(
          null,
          "give at least one of service, fromSeq, toSeq, from, to"
              + " (the whole outbox is not replayed by default)");
    }
    if (service != null) {
      try {
        service = ServiceNames.normalize(service);
      } catch (IllegalArgumentException e) {
        throw InvalidReplayException.invalid("service", e.getMessage());
      }
    }
    if (fromSeq != null && fromSeq < 1) {
      throw InvalidReplayException.invalid("fromSeq", "must be 1 or more");
    }
    if (toSeq != null && toSeq < 1) {
      throw InvalidReplayException.invalid("toSeq", "must be 1 or more");
    }
    if (fromSeq != null && toSeq != null && toSeq < fromSeq) {
      throw InvalidReplayException.invalid("toSeq", "must not be below fromSeq");
    }
    if (from != null && to != null && to.isBefore(from)) {
      throw InvalidReplayException.invalid("to", "must not be before from");
    }
  }

  /** The rows selected, as a condition on {@code outbox}, with its parameters appended. */
  String where(List<Object> parameters) {
    List<String> conditions = new ArrayList<>();
    if (service != null) {
      conditions.add("aggregateid = ?");
      parameters.add(service);
    }
    if (fromSeq != null) {
      conditions.add("seq >= ?");
      parameters.add(fromSeq);
    }
    if (toSeq != null) {
      conditions.add("seq <= ?");
      parameters.add(toSeq);
    }
    if (from != null) {
      conditions.add("created_at >= ?");
      parameters.add(OffsetDateTime.ofInstant(from, ZoneOffset.UTC));
    }
    if (to != null) {
      conditions.add("created_at <= ?");
      parameters.add(OffsetDateTime.ofInstant(to, ZoneOffset.UTC));
    }
    return String.join(" and ", conditions);
  }

  /** The selection as the log and the refusals show it. */
  @Override
  public String toString() {
    List<String> parts = new ArrayList<>();
    if (service != null) {
      parts.add("service=" + service);
    }
    if (fromSeq != null) {
      parts.add("fromSeq=" + fromSeq);
    }
    if (toSeq != null) {
      parts.add("toSeq=" + toSeq);
    }
    if (from != null) {
      parts.add("from=" + from);
    }
    if (to != null) {
      parts.add("to=" + to);
    }
    return String.join(" ", parts);
  }
}
