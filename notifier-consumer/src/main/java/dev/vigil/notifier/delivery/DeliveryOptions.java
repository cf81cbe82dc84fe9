package dev.vigil.notifier.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Tuning of the delivery loop, built with named options and validated once by {@link
 * Builder#build()} (gruelbox {@code TransactionOutbox.builder()} style):
 *
 * <pre>{@code
 * DeliveryOptions.builder()
 *     .workers(4).batchSize(32).maxAttempts(5)
 *     .lease(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
 *     .connectTimeout(Duration.ofSeconds(2)).readTimeout(Duration.ofSeconds(5))
 *     .backoff(Duration.ofSeconds(1), Duration.ofMinutes(5)).retryAfterMax(Duration.ofMinutes(10))
 *     .build();
 * }</pre>
 *
 * Every option must be given: the notifier's defaults live in its settings, not here.
 */
public final class DeliveryOptions {
  private final Builder b;

  private DeliveryOptions(Builder builder) {
    this.b = builder.copy();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Delivery worker threads in this instance. */
  public int workers() {
    return b.workers;
  }

  /** Requests one worker keeps in flight (each a different service's head of line). */
  public int batchSize() {
    return b.batchSize;
  }

  /** Attempts before a delivery is parked as dead. */
  public int maxAttempts() {
    return b.maxAttempts;
  }

  /** How long a claim is exclusive; exceeds connect + read timeout. */
  public Duration lease() {
    return b.lease;
  }

  /** How often an idle worker looks for due deliveries. */
  public Duration pollInterval() {
    return b.pollInterval;
  }

  public Duration connectTimeout() {
    return b.connectTimeout;
  }

  /** Total time for one request: connecting, sending and the complete response. */
  public Duration readTimeout() {
    return b.readTimeout;
  }

  Backoff backoff() {
    return new Backoff(b.backoffInitial, b.backoffMax, b.retryAfterMax);
  }

  /** Collects the options; {@link #build()} checks them all and names every problem. */
  public static final class Builder {
    private int workers;
    private int batchSize;
    private int maxAttempts;
    private Duration lease;
    private Duration pollInterval;
    private Duration connectTimeout;
    private Duration readTimeout;
    private Duration backoffInitial;
    private Duration backoffMax;
    private Duration retryAfterMax;

    private Builder() {}

    public Builder workers(int count) {
      this.workers = count;
      return this;
    }

    public Builder batchSize(int requests) {
      this.batchSize = requests;
      return this;
    }

    public Builder maxAttempts(int attempts) {
      this.maxAttempts = attempts;
      return this;
    }

    public Builder lease(Duration duration) {
      this.lease = duration;
      return this;
    }

    public Builder pollInterval(Duration interval) {
      this.pollInterval = interval;
      return this;
    }

    public Builder connectTimeout(Duration timeout) {
      this.connectTimeout = timeout;
      return this;
    }

    public Builder readTimeout(Duration timeout) {
      this.readTimeout = timeout;
      return this;
    }

    /**
     * Delay after the first failed attempt, doubling per attempt (with jitter) up to {@code max}.
     */
    public Builder backoff(Duration initial, Duration max) {
      this.backoffInitial = initial;
      this.backoffMax = max;
      return this;
    }

    /** Upper bound for a receiver's {@code Retry-After}. */
    public Builder retryAfterMax(Duration bound) {
      this.retryAfterMax = bound;
      return this;
    }

    /**
     * The options, if every one is set and consistent.
     *
     * @throws IllegalArgumentException naming every missing or inconsistent option
     */
    public DeliveryOptions build() {
      List<String> problems = new ArrayList<>();
      positive(problems, "workers", workers);
      positive(problems, "batchSize", batchSize);
      positive(problems, "maxAttempts", maxAttempts);
      positive(problems, "lease", lease);
      positive(problems, "pollInterval", pollInterval);
      positive(problems, "connectTimeout", connectTimeout);
      positive(problems, "readTimeout", readTimeout);
      positive(problems, "backoff initial", backoffInitial);
      positive(problems, "backoff max", backoffMax);
      positive(problems, "retryAfterMax", retryAfterMax);
      if (problems.isEmpty() && lease.compareTo(connectTimeout.plus(readTimeout)) <= 0) {
        problems.add("lease must exceed connectTimeout + readTimeout");
      }
      if (problems.isEmpty() && backoffMax.compareTo(backoffInitial) < 0) {
        problems.add("backoff max must not be below backoff initial");
      }
      if (!problems.isEmpty()) {
        throw new IllegalArgumentException("delivery options: " + String.join("; ", problems));
      }
      return new DeliveryOptions(this);
    }

    private Builder copy() {
      return new Builder()
          .workers(workers)
          .batchSize(batchSize)
          .maxAttempts(maxAttempts)
          .lease(lease)
          .pollInterval(pollInterval)
          .connectTimeout(connectTimeout)
          .readTimeout(readTimeout)
          .backoff(backoffInitial, backoffMax)
          .retryAfterMax(retryAfterMax);
    }

    private static void positive(List<String> problems, String option, int value) {
      if (value < 1) {
        problems.add(option + " must be at least 1, was " + value);
      }
    }

    private static void positive(List<String> problems, String option, Duration value) {
      if (value == null) {
        problems.add(option + " is not set");
      } else if (value.isNegative() || value.isZero()) {
        problems.add(option + " must be positive, was " + value);
      }
    }
  }
}
