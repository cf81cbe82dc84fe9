package dev.vigil.notifier.channel;

import java.util.Optional;

/**
 * A channel that can carry a group of transitions in one message (Slack, PagerDuty, email). Pure,
 * like {@link Channel#request}: the delivery side decides what a message carries and sends it
 * ({@link EmailChannel} builds a mail instead, {@link EmailChannel#message(GroupMessage)}).
 */
public interface GroupChannel extends Channel {
  /**
   * The request carrying {@code message}; empty when this channel sends nothing for it (the
   * transitions are then recorded as skipped by the channel).
   */
  Optional<ChannelRequest> request(GroupMessage message);

  /**
   * How many characters of service names one message can list, counting each name's length plus
   * {@value #NAME_OVERHEAD} (its separator): a message carries no more transitions than it can
   * name, so that every service a message carries is named in it; the rest wait for the next
   * message, which is then due at once (at the channel's rate) rather than one {@code interval}
   * later.
   */
  default int nameBudget() {
    return Integer.MAX_VALUE;
  }

  /** The characters counted per name on top of its length (a separator such as {@code ", "}). */
  int NAME_OVERHEAD = 3;
}
