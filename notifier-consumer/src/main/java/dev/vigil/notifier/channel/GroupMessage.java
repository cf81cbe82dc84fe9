package dev.vigil.notifier.channel;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * What one grouped message says (channel-independent; {@link SlackChannel} and {@link
 * PagerDutyChannel} turn it into their request, {@link EmailChannel} into a mail). Built by {@link
 * GroupState#apply} from the state before the message and the transitions it carries, so re-sending
 * an unrecorded message says exactly the same thing.
 *
 * @param groupId the group (PagerDuty's dedup key)
 * @param seq 1 for the group's first message, then one more per message
 * @param down services that went DOWN in this message, in arrival order
 * @param recovered services that RECOVERED in this message, in arrival order
 * @param reminders REMINDER transitions carried (they change nothing)
 * @param stillDown every service of the group still DOWN after this message
 * @param max the most services the message names individually
 */
public record GroupMessage(
    UUID groupId,
    int seq,
    List<Down> down,
    List<Recovered> recovered,
    int reminders,
    List<Down> stillDown,
    int max) {

  /** A service that is DOWN: since when, its last error (may be null) and its incident. */
  public record Down(String service, UUID incidentId, String lastError, Instant since) {}

  /** A service that RECOVERED, after how long (may be null), closing which incident. */
  public record Recovered(String service, UUID incidentId, Duration downtime) {}

  public GroupMessage {
    down = List.copyOf(down);
    recovered = List.copyOf(recovered);
    stillDown = List.copyOf(stillDown);
  }

  /** Whether this message opens its group (the one sent after {@code wait}). */
  public boolean first() {
    return seq == 1;
  }

  /** Whether a service went down or recovered (a message of reminders only changes nothing). */
  public boolean changed() {
    return !down.isEmpty() || !recovered.isEmpty();
  }

  /** Whether every service of the group has recovered: the group closes with this message. */
  public boolean allRecovered() {
    return stillDown.isEmpty();
  }
}
