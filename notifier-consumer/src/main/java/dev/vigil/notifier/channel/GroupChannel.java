package dev.vigil.notifier.channel;

import java.util.Optional;

/**
 * A channel that can carry a group of transitions in one message (Slack, PagerDuty). Pure, like
 * {@link Channel#request}: the delivery side decides what a message carries and sends it.
 */
public interface GroupChannel extends Channel {
  /**
   * The request carrying {@code message}; empty when this channel sends nothing for it (the
   * transitions are then recorded as skipped by the channel).
   */
  Optional<ChannelRequest> request(GroupMessage message);
}
