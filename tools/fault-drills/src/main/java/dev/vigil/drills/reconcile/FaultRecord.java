package dev.vigil.drills.reconcile;

/**
 * One injected fault and how long the pipeline took to come back from it.
 *
 * @param fault what was done, e.g. {@code kill -9 relay-1}
 * @param atMs when, in milliseconds since the drill started
 * @param outageMs from the fault until it was healed (process restarted, broker started); 0 when
 *     nothing had to be healed (a standby takes over)
 * @param exitCode the killed process's exit code (137 = SIGKILL), or -1
 * @param kafkaRecoveryMs from healing until the first event committed after it was on Kafka; -1
 *     when not observed
 * @param receiverRecoveryMs from healing until the first event committed after it was stored at the
 *     receiver; -1 when not observed
 */
public record FaultRecord(
    String fault,
    long atMs,
    long outageMs,
    int exitCode,
    long kafkaRecoveryMs,
    long receiverRecoveryMs) {}
