package dev.vigil.notifier.delivery;

import dev.vigil.notifier.channel.RateLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which of an instance's channels share a rate-limited endpoint (a bucket row in {@code
 * notifier_rate_limit}), and when this instance should next ask for a bucket's slot. Channels
 * without a bucket (the signed webhook) are never paced nor blocked; channels of a bucket whose
 * rate is off are claimed freely while no 429 blocks the bucket; the others one per slot.
 */
final class Buckets {
  private static final long MIN_RETRY_NANOS = Duration.ofMillis(10).toNanos();
  private static final long MAX_RETRY_NANOS = Duration.ofMillis(250).toNanos();

  private final List<String> unlimited = new ArrayList<>();
  private final Map<String, String> bucketOf = new LinkedHashMap<>();
  private final Map<String, Duration> intervals = new LinkedHashMap<>();
  private final Map<String, List<String>> channelsOf = new LinkedHashMap<>();
  private final Map<String, Long> nextTry = new ConcurrentHashMap<>();

  Buckets(Collection<String> channels, Map<String, RateLimit> limits) {
    for (String channel : channels) {
      RateLimit limit = limits.get(channel);
      if (limit == null) {
        unlimited.add(channel);
        continue;
      }
      bucketOf.put(channel, limit.bucket());
      channelsOf.computeIfAbsent(limit.bucket(), b -> new ArrayList<>()).add(channel);
      // two channels on one endpoint with different rates: the slower rate holds for both
      intervals.merge(limit.bucket(), limit.interval(), (a, b) -> a.compareTo(b) >= 0 ? a : b);
    }
  }

  /** Every bucket of this instance with its interval (zero: no rate, only 429 blocking). */
  Map<String, Duration> intervals() {
    return intervals;
  }

  /** The bucket of {@code channel}, or null for a channel without one. */
  String bucketOf(String channel) {
    return bucketOf.get(channel);
  }

  List<String> channelsOf(String bucket) {
    return channelsOf.get(bucket);
  }

  List<String> unlimited() {
    return unlimited;
  }

  /** Buckets with a rate: claimed one slot at a time. */
  List<String> paced() {
    return intervals.entrySet().stream()
        .filter(e -> !e.getValue().isZero())
        .map(Map.Entry::getKey)
        .toList();
  }

  /** Buckets without a rate: claimed freely unless a 429 blocks them. */
  List<String> unpaced() {
    return intervals.entrySet().stream()
        .filter(e -> e.getValue().isZero())
        .map(Map.Entry::getKey)
        .toList();
  }

  /** The channels claimed without a slot, given the buckets a 429 blocks now. */
  List<String> free(Set<String> blocked) {
    List<String> free = new ArrayList<>(unlimited);
    for (String bucket : unpaced()) {
      if (!blocked.contains(bucket)) {
        free.addAll(channelsOf.get(bucket));
      }
    }
    return free;
  }

  /** Whether to ask for {@code bucket}'s slot now. */
  boolean due(String bucket) {
    Long at = nextTry.get(bucket);
    return at == null || System.nanoTime() - at >= 0;
  }

  /** New work arrived: ask for every bucket's slot at the next claim. */
  void nudge() {
    nextTry.clear();
  }

  /** No slot (or nothing due): ask again after a quarter of the interval, 10 to 250 ms. */
  void missed(String bucket) {
    long quarter = intervals.get(bucket).toNanos() / 4;
    nextTry.put(
        bucket, System.nanoTime() + Math.max(MIN_RETRY_NANOS, Math.min(MAX_RETRY_NANOS, quarter)));
  }
}
