package dev.vigil.monitor.alert;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for results that arrive concurrently (probes finishing, pushes): callers {@link
 * #submit} a result and wait for its outcome; a few workers each take what is queued, up to the
 * batch limit, and record it with {@link Recorder#recordAll} in one transaction. Nothing waits for
 * a batch to fill: a worker takes whatever is queued the moment it is free, so a lone result is
 * recorded at once and results queue up only while every worker is in a transaction.
 *
 * <p>Each caller gets its own result's outcome or failure, exactly as from {@link
 * Recorder#record(ProbeResult, Recorder.AlsoInTransaction)}. At {@link #close} the workers record
 * what is still queued before they stop; a result submitted after that fails at once.
 */
public final class RecordQueue implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RecordQueue.class);

  private record Item(Recorder.Pending pending, CompletableFuture<RecordOutcome> done) {}

  private final Recorder recorder;
  private final int maxBatch;
  private final BlockingQueue<Item> queue = new LinkedBlockingQueue<>();
  private final List<Thread> workers = new ArrayList<>();
  private volatile boolean closed;

  /**
   * @param workers transactions at once (each holds one pooled connection while it records)
   * @param maxBatch most results one worker takes per transaction
   */
  public RecordQueue(Recorder recorder, int workers, int maxBatch) {
    if (workers < 1 || maxBatch < 1) {
      throw new IllegalArgumentException(
          "workers and maxBatch must be at least 1, were " + workers + " and " + maxBatch);
    }
    this.recorder = recorder;
    this.maxBatch = maxBatch;
    for (int i = 0; i < workers; i++) {
      this.workers.add(Thread.ofPlatform().name("recorder-" + i).daemon().start(this::work));
    }
  }

  /** Queues {@code result}; the future completes once it was committed, or with its failure. */
  public CompletableFuture<RecordOutcome> submit(
      ProbeResult result, Recorder.AlsoInTransaction also) {
    CompletableFuture<RecordOutcome> done = new CompletableFuture<>();
    if (closed) {
      done.completeExceptionally(new IllegalStateException("recorder queue closed"));
      return done;
    }
    Item item = new Item(new Recorder.Pending(result, also), done);
    queue.add(item);
    if (closed && queue.remove(item)) {
      // Closed meanwhile and no worker took it: nobody would record it.
      done.completeExceptionally(new IllegalStateException("recorder queue closed"));
    }
    return done;
  }

  /**
   * Submits {@code result} and waits for its outcome, rethrowing its failure as {@link
   * Recorder#record(ProbeResult, Recorder.AlsoInTransaction)} would.
   */
  public RecordOutcome record(ProbeResult result, Recorder.AlsoInTransaction also) {
    CompletableFuture<RecordOutcome> done = submit(result, also);
    try {
      return done.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for " + result.service(), e);
    } catch (java.util.concurrent.ExecutionException e) {
      if (e.getCause() instanceof RuntimeException failure) {
        throw failure;
      }
      throw new IllegalStateException("recording " + result.service() + " failed", e.getCause());
    }
  }

  private void work() {
    List<Item> batch = new ArrayList<>(maxBatch);
    while (!(closed && queue.isEmpty())) {
      try {
        Item first = queue.poll(100, TimeUnit.MILLISECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
      queue.drainTo(batch, maxBatch - 1);
      record(batch);
      batch.clear();
    }
  }

  private void record(List<Item> batch) {
    List<Recorder.Pending> pending = new ArrayList<>(batch.size());
    for (Item item : batch) {
      pending.add(item.pending());
    }
    List<Recorder.Recorded> recorded;
    try {
      recorded = recorder.recordAll(pending);
    } catch (RuntimeException e) {
      // recordAll reports failures per result; this is a bug, and no caller may wait forever.
      LOG.error("batch recording failed results={} error={}", batch.size(), e.toString(), e);
      batch.forEach(item -> item.done().completeExceptionally(e));
      return;
    }
    for (int i = 0; i < batch.size(); i++) {
      Recorder.Recorded r = recorded.get(i);
      if (r.committed()) {
        batch.get(i).done().complete(r.outcome());
      } else {
        batch.get(i).done().completeExceptionally(r.failure());
      }
    }
  }

  /** Stops taking results; the workers record what is queued, then end. */
  @Override
  public void close() {
    closed = true;
    for (Thread worker : workers) {
      try {
        worker.join(30_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        break;
      }
    }
    Item left;
    while ((left = queue.poll()) != null) {
      left.done().completeExceptionally(new IllegalStateException("recorder queue closed"));
    }
  }
}
