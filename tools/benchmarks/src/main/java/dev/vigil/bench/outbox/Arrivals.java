package dev.vigil.bench.outbox;

import java.util.Arrays;
import org.HdrHistogram.Histogram;

/** Commit, Kafka append and consumer-seen times (epoch micros) of the rows that arrived. */
public final class Arrivals {
  private long[] commit = new long[4096];
  private long[] append = new long[4096];
  private long[] seen = new long[4096];
  private int size;

  void add(long commitMicros, long appendMicros, long seenMicros) {
    if (size == commit.length) {
      commit = Arrays.copyOf(commit, size * 2);
      append = Arrays.copyOf(append, size * 2);
      seen = Arrays.copyOf(seen, size * 2);
    }
    commit[size] = commitMicros;
    append[size] = appendMicros;
    seen[size] = seenMicros;
    size++;
  }

  public int size() {
    return size;
  }

  /** Arrivals whose commit lies in {@code [from, to)}. */
  public long committedBetween(long from, long to) {
    long n = 0;
    for (int i = 0; i < size; i++) {
      if (commit[i] >= from && commit[i] < to) {
        n++;
      }
    }
    return n;
  }

  /** Arrivals appended to Kafka in {@code [from, to)}. */
  public long appendedBetween(long from, long to) {
    long n = 0;
    for (int i = 0; i < size; i++) {
      if (append[i] >= from && append[i] < to) {
        n++;
      }
    }
    return n;
  }

  /**
   * Commit-to-append latency (µs) of rows committed in {@code [from, to)}. The append time has
   * millisecond resolution, so a value is clamped at 0 and carries up to 1 ms of rounding.
   */
  public Histogram ackLatency(long from, long to) {
    return histogram(append, from, to);
  }

  /** Commit-to-consumer latency (µs) of rows committed in {@code [from, to)}. */
  public Histogram seenLatency(long from, long to) {
    return histogram(seen, from, to);
  }

  /** The first and last append times (µs), or null if empty. */
  public long[] appendRange() {
    if (size == 0) {
      return null;
    }
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < size; i++) {
      min = Math.min(min, append[i]);
      max = Math.max(max, append[i]);
    }
    return new long[] {min, max};
  }

  private Histogram histogram(long[] arrival, long from, long to) {
    Histogram h = new Histogram(3_600_000_000L, 3);
    for (int i = 0; i < size; i++) {
      if (commit[i] >= from && commit[i] < to) {
        h.recordValue(Math.max(0, arrival[i] - commit[i]));
      }
    }
    return h;
  }
}
