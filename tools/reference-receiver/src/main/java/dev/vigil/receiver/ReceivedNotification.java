package dev.vigil.receiver;

import dev.vigil.contract.AlertEvent;
import java.time.Instant;

/** A notification the receiver stored for the first time. */
public record ReceivedNotification(String webhookId, AlertEvent event, Instant receivedAt) {}
