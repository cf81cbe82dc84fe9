package dev.vigil.notifier.delivery;

import java.time.Instant;
import java.util.UUID;

/**
 * A head-of-line receipt claimed by one worker: only the holder of {@code token} may record its
 * outcome, and only until another worker claims it after the lease.
 *
 * @param attempts attempts including this one
 */
record Claim(
    UUID eventId,
    String service,
    String kind,
    String payload,
    int attempts,
    UUID token,
    Instant receivedAt) {}
