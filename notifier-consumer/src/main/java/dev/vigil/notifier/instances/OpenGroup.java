package dev.vigil.notifier.instances;

import java.util.UUID;

/**
 * One open group of a grouping channel (Slack, PagerDuty) as every instance sees it: since when it
 * is open, how many services it holds DOWN, how many transitions wait for its next message, and
 * when that message is due.
 *
 * @param openedAt when the group opened (ISO-8601)
 * @param messages messages sent for the group so far
 * @param servicesDown services still DOWN as of the last message sent
 * @param waiting pending transitions routed to the channel that no message has carried yet
 * @param nextSendAt when the next message may go (ISO-8601): opened + wait, then last message +
 *     interval
 * @param nextSendInSeconds until then, by the database's clock; 0 when due
 */
public record OpenGroup(
    UUID groupId,
    String channel,
    String openedAt,
    int messages,
    int servicesDown,
    long waiting,
    String nextSendAt,
    double nextSendInSeconds) {}
