package dev.vigil.notifier.delivery;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/** Delivery meters: attempts by outcome, request duration, receipt-to-delivery latency. */
final class DeliveryMetrics {
  private final MeterRegistry registry;
  private final Map<String, Counter> attempts = new ConcurrentHashMap<>();
  private final Timer request;
  private final Timer latency;

  DeliveryMetrics(MeterRegistry registry) {
    this.registry = registry;
    for (String outcome : new String[] {"delivered", "retry", "dead", "lease_lost"}) {
      attempt(outcome, 0);
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

  void attempt(String outcome) {
    attempt(outcome, 1);
  }

  private void attempt(String outcome, int amount) {
    attempts
        .computeIfAbsent(
            outcome,
            o ->
                Counter.builder("vigil.notifier.attempts")
                    .description("Webhook attempts by outcome")
                    .tag("outcome", o)
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
