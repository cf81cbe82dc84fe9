package dev.vigil.bench;

/** A group of related measurements; adds its results (and notes) to the report. */
public interface Suite {
  /** Outbox writer threads (one connection each) in every relay-related suite. */
  int WRITERS = 8;

  /** Distinct service names the outbox rows are spread over. */
  int SERVICES = 100;

  /** Partitions of every alert topic the benchmark creates. */
  int PARTITIONS = 6;

  void run(BenchContext context) throws Exception;
}
