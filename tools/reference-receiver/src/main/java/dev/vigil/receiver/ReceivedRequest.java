package dev.vigil.receiver;

import java.time.Instant;

/**
 * One HTTP request as the receiver saw it (kept in memory for tests and drills).
 *
 * @param webhookId the {@code webhook-id} header, or null
 * @param status the status answered, or -1 when the connection was dropped
 */
public record ReceivedRequest(
    String method, String path, String webhookId, Instant arrivedAt, int status) {}
