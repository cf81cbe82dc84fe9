package dev.vigil.monitor.replay;

/**
 * What a replay selected and published again.
 *
 * @param selected rows the selection matched when the replay started
 * @param replayed rows deleted and inserted again (fewer than {@code selected} only when retention
 *     deleted some meanwhile)
 * @param chunks transactions used, each one Kafka transaction at an exactly-once relay
 * @param firstSeq the lowest {@code seq} selected
 * @param lastSeq the highest {@code seq} selected
 * @param dryRun true when nothing was written
 */
public record ReplayResult(
    long selected, long replayed, int chunks, long firstSeq, long lastSeq, boolean dryRun) {}
