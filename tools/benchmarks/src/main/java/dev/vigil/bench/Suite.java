package dev.vigil.bench;

/** A group of related measurements; adds its results (and notes) to the report. */
public interface Suite {
  /**
   * Outbox writer threads (one connection each) in every relay-related suite: with durable commits
   * PostgreSQL's group commit needs about this many concurrent writers to reach its limit here (1
   * writer ≈ 200-650 commits/s, 8 ≈ 2-4k, 16 ≈ 6k, 32 no more).
   */
  int WRITERS = 16;

  /** Distinct service names the outbox rows are spread over. */
  int SERVICES = 100;

  /** Partitions of every alert topic the benchmark creates. */
  int PARTITIONS = 6;

  /**
   * Load run through a freshly started relay before its first measurement, so the JIT has compiled
   * its whole pipeline (the short per-case warm-up is not enough for Debezium's code paths).
   */
  static java.time.Duration pipelineWarmup(BenchOptions options) {
    return java.time.Duration.ofSeconds(options.quick() ? 3 : 15);
  }

  void run(BenchContext context) throws Exception;
}
