/**
 * Replay of outbox rows on demand: a range of rows published again, with their original event ids,
 * through the relay's normal path (the WAL), in chunks of one transaction each.
 */
package dev.vigil.monitor.replay;
