package dev.vigil.notifier.intake;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Counts and logs events skipped for an unknown kind: {@code vigil_notifier_skipped_total{kind}},
 * one log line per kind per minute at most. The kind comes from outside, so the tag is bounded: a
 * kind that is not {@code [A-Za-z0-9_]{1,40}} counts as {@code invalid}, and after {@value
 * #MAX_KINDS} distinct kinds every new one counts as {@code other}.
 */
final class SkippedKinds {
  private static final Logger LOG = LoggerFactory.getLogger(SkippedKinds.class);
  static final int MAX_KINDS = 20;
  private static final Duration LOG_EVERY = Duration.ofMinutes(1);

  private final MeterRegistry registry;
  private final LongSupplier nanoTime;
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Long> lastLogged = new ConcurrentHashMap<>();

  SkippedKinds(MeterRegistry registry, LongSupplier nanoTime) {
    this.registry = registry;
    this.nanoTime = nanoTime;
  }

  void skipped(List<Checked.Skipped> skipped) {
    for (Checked.Skipped s : skipped) {
      String tag = tag(s.kind());
      counter(tag).increment();
      long now = nanoTime.getAsLong();
      Long last = lastLogged.get(tag);
      if (last == null || now - last >= LOG_EVERY.toNanos()) {
        lastLogged.put(tag, now);
        LOG.info(
            "event of unknown kind skipped kind={} topic={} partition={} offset={}"
                + " (logged once per kind per minute; see vigil_notifier_skipped_total)",
            tag,
            s.topic(),
            s.partition(),
            s.offset());
      }
    }
  }

  /** The tag for a kind as received: bounded in shape and in number. */
  String tag(String kind) {
    if (kind == null || !kind.matches("[A-Za-z0-9_]{1,40}")) {
      return "invalid";
    }
    if (!counters.containsKey(kind) && counters.size() >= MAX_KINDS) {
      return "other";
    }
    return kind;
  }

  private Counter counter(String tag) {
    return counters.computeIfAbsent(
        tag,
        t ->
            Counter.builder("vigil.notifier.skipped")
                .description("Events skipped because their kind is unknown to this notifier")
                .tag("kind", t)
                .register(registry));
  }
}
