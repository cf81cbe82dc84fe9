package dev.vigil.notifier.delivery;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Delivery meters: attempts by outcome and channel, request duration, receipt-to-delivery latency.
 */
final class DeliveryMetrics {
  static final String[] OUTCOMES = {
    "delivered", "retry", "throttled", "dead", "lease_lost", "not_sent"
  };

  private final MeterRegistry registry;
  private final Map<String, Counter> attempts = new ConcurrentHashMap<>();
  private final Timer request;
  private final Timer latency;

  DeliveryMetrics(MeterRegistry registry) {
    this(registry, List.of("webhook"));
  }

  /** With every channel's counters registered at 0, so rates work from the first attempt. */
  DeliveryMetrics(MeterRegistry registry, List<String> channels) {
    this.registry = registry;
    for (String channel : channels) {
      for (String outcome : OUTCOMES) {
        attempt(outcome, channel, 0);
      }
    }
    this.request =
        Timer.builder("vigil.notifier.request.duration")
            .description("HTTP request duration of webhook attempts")
            .register(registry);
    this.latency =
        Timer.builder("vigil.notifier.delivery.latency")
            .description("From receipt stored to webhook delivered")
            .register(registry);
  }

  void attempt(String outcome, String channel) {
    attempt(outcome, channel, 1);
  }

  private void attempt(String outcome, String channel, int amount) {
    attempts
        .computeIfAbsent(
            outcome + "\n" + channel,
            k ->
                Counter.builder("vigil.notifier.attempts")
                    .description("Delivery attempts by outcome and channel")
                    .tag("outcome", outcome)
                    .tag("channel", channel)
                    .register(registry))
        .increment(amount);
  }

  void requestTook(long nanos) {
    request.record(nanos, TimeUnit.NANOSECONDS);
  }

  void delivered(Duration sinceReceipt) {
    latency.record(sinceReceipt.isNegative() ? Duration.ZERO : sinceReceipt);
  }
}
