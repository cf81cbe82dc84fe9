package dev.vigil.notifier.channel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The services of one open group as of its last recorded message: which are DOWN (with incident,
 * since and last error). Pure: {@link #apply} folds the transitions one message carries into the
 * next state and the {@link GroupMessage} announcing them; the store keeps the state as JSON on the
 * group row and replaces it only when the message is recorded as sent.
 */
public final class GroupState {
  private static final ObjectMapper JSON = AlertEventJson.mapper();

  /** Services still DOWN, in the order they went down. */
  private final Map<String, GroupMessage.Down> down;

  private GroupState(Map<String, GroupMessage.Down> down) {
    this.down = down;
  }

  /** A new group: nobody down yet. */
  public static GroupState empty() {
    return new GroupState(new LinkedHashMap<>());
  }

  /** The next state and the message that announces {@code events} (in arrival order). */
  public record Step(GroupState next, GroupMessage message) {}

  /** Folds {@code events} (at most one per service: only heads of line are carried) in. */
  public Step apply(UUID groupId, int seq, List<AlertEvent> events, int max) {
    Map<String, GroupMessage.Down> next = new LinkedHashMap<>(down);
    List<GroupMessage.Down> wentDown = new ArrayList<>();
    List<GroupMessage.Recovered> recovered = new ArrayList<>();
    int reminders = 0;
    for (AlertEvent event : events) {
      switch (event.kind()) {
        case FAILED -> {
          GroupMessage.Down d =
              new GroupMessage.Down(
                  event.service(),
                  event.incidentId(),
                  event.lastError(),
                  event.openedAt() != null ? event.openedAt() : event.occurredAt());
          next.remove(event.service()); // a new incident of a service: it goes to the end
          next.put(event.service(), d);
          wentDown.add(d);
        }
        case RECOVERED -> {
          next.remove(event.service());
          recovered.add(
              new GroupMessage.Recovered(event.service(), event.incidentId(), event.downtime()));
        }
        case REMINDER -> {
          reminders++;
          GroupMessage.Down was = next.get(event.service());
          Instant since = event.openedAt() != null ? event.openedAt() : event.occurredAt();
          // still down; a reminder of a service whose FAILED went out before this group joins it
          next.put(
              event.service(),
              new GroupMessage.Down(
                  event.service(),
                  event.incidentId(),
                  event.lastError() != null || was == null ? event.lastError() : was.lastError(),
                  was != null ? was.since() : since));
        }
      }
    }
    GroupMessage message =
        new GroupMessage(
            groupId, seq, wentDown, recovered, reminders, List.copyOf(next.values()), max);
    return new Step(new GroupState(next), message);
  }

  /** Services still DOWN. */
  public List<GroupMessage.Down> down() {
    return List.copyOf(down.values());
  }

  /** The state as stored on the group row. */
  public String toJson() {
    ArrayNode array = JSON.createArrayNode();
    for (GroupMessage.Down d : down.values()) {
      ObjectNode node = array.addObject();
      node.put("service", d.service());
      node.put("incidentId", d.incidentId().toString());
      node.put("lastError", d.lastError());
      node.put("since", d.since().toString());
    }
    return array.toString();
  }

  /** Reads {@link #toJson}'s form (written only by this class). */
  public static GroupState fromJson(String json) {
    JsonNode array;
    try {
      array = JSON.readTree(json);
    } catch (IOException e) {
      throw new UncheckedIOException("group state is not JSON", e);
    }
    Map<String, GroupMessage.Down> down = new LinkedHashMap<>();
    for (JsonNode node : array) {
      JsonNode error = node.get("lastError");
      down.put(
          node.get("service").asText(),
          new GroupMessage.Down(
              node.get("service").asText(),
              UUID.fromString(node.get("incidentId").asText()),
              error == null || error.isNull() ? null : error.asText(),
              Instant.parse(node.get("since").asText())));
    }
    return new GroupState(down);
  }
}
