package dev.vigil.drills;

import dev.vigil.drills.chaos.ChaosProxy;
import dev.vigil.drills.reconcile.DownstreamWatch;
import dev.vigil.drills.stack.ServiceProcess;
import dev.vigil.drills.stack.Stack;
import dev.vigil.drills.workload.OutboxWorkload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** What a drill script works with while it runs, and the faults it injected. */
final class DrillContext {
  private static final Logger LOG = LoggerFactory.getLogger(DrillContext.class);

  /** A fault as injected; recovery times are computed after the drain. */
  record Injected(String fault, long atNanos, long healedNanos, int exitCode) {}

  final DrillOptions options;
  final Stack stack;
  final ChaosProxy proxy;
  final OutboxWorkload workload;
  final DownstreamWatch watch;
  final String webhookUrl;
  final long startNanos = System.nanoTime();
  final List<Injected> injected = new ArrayList<>();
  final List<String> notes = new ArrayList<>();

  /**
   * Events the drill publishes at least once by design (a PostgreSQL transaction published in
   * chunks): their read_committed duplicates are reported, not failed; every other event of the
   * drill is still held to exactly-once.
   */
  final Set<UUID> atLeastOnce = ConcurrentHashMap.newKeySet();

  DrillContext(
      DrillOptions options,
      Stack stack,
      ChaosProxy proxy,
      OutboxWorkload workload,
      DownstreamWatch watch,
      String webhookUrl) {
    this.options = options;
    this.stack = stack;
    this.proxy = proxy;
    this.workload = workload;
    this.watch = watch;
    this.webhookUrl = webhookUrl;
  }

  void record(String fault, long atNanos, long healedNanos, int exitCode) {
    injected.add(new Injected(fault, atNanos, healedNanos, exitCode));
    LOG.info(
        "fault injected fault=\"{}\" outageMs={} exit={}",
        fault,
        (healedNanos - atNanos) / 1_000_000,
        exitCode);
  }

  /** Kills {@code process} with SIGKILL, starts it again at once, and records the fault. */
  void killAndRestart(ServiceProcess process) {
    long at = System.nanoTime();
    int exit = process.kill9();
    process.start();
    record("kill -9 " + process.name(), at, System.nanoTime(), exit);
  }

  /**
   * Waits until the stage behind {@code counter} moved on since {@code before} (so the next fault
   * hits a flowing stream), then the configured pause.
   */
  void awaitProgressThenPause(String what, LongSupplier counter, long before) {
    Stack.await(what + " progress", Duration.ofSeconds(120), () -> counter.getAsLong() > before);
    Stack.pause(options.pauseBetweenFaults().toMillis());
  }

  void note(String note) {
    notes.add(note);
    LOG.warn("drill note: {}", note);
  }
}
