package dev.vigil.drills.workload;

import dev.vigil.contract.AlertEvent;
import dev.vigil.contract.AlertEventJson;
import dev.vigil.contract.OutboxContract;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits outbox rows the way the monitor does: one row per transaction, for each service a
 * strictly alternating FAILED / RECOVERED sequence, each pair sharing an incident id. Every service
 * is written by exactly one thread, so the order in which that thread's commits returned is the
 * service's commit order, which the drills check downstream.
 *
 * <p>A failed write (PostgreSQL restarting) is retried with the same event id until it is
 * committed; {@code on conflict (id) do nothing} makes a retry after a commit whose answer was lost
 * harmless, so each event is committed exactly once.
 */
public final class OutboxWorkload {
  private static final Logger LOG = LoggerFactory.getLogger(OutboxWorkload.class);

  private static final String INSERT =
      """
      insert into %s (id, aggregatetype, aggregateid, type, payload, incident_id, schema_version)
      values (?, '%s', ?, ?, ?::jsonb, ?, ?)
      on conflict (id) do nothing
      """
          .formatted(OutboxContract.QUALIFIED_TABLE, OutboxContract.AGGREGATE_TYPE);

  private static final String COPY =
      """
      copy %s (id, aggregatetype, aggregateid, type, payload, incident_id, schema_version)
      from stdin with (format csv)
      """
          .formatted(OutboxContract.QUALIFIED_TABLE);

  /** Services only bulk transactions write, so their order is the bulk writer's commit order. */
  private static final int BULK_SERVICES = 20;

  private final List<ServiceStream> bulkStreams = new ArrayList<>();
  private final String jdbcUrl;
  private final String user;
  private final List<List<ServiceStream>> streamsByThread = new ArrayList<>();
  private final Map<String, ConcurrentLinkedQueue<CommittedEvent>> byDrill =
      new ConcurrentHashMap<>();
  private final AtomicLong drillCommitted = new AtomicLong();
  private final AtomicLong writeErrors = new AtomicLong();
  private final List<Thread> threads = new ArrayList<>();
  private volatile boolean stopRequested;
  private volatile long minEvents;
  private volatile long lastCommitNanos;
  private volatile String currentDrill;

  /**
   * @param services how many services ({@code drill-svc-000} …)
   * @param threads writer threads; service {@code i} belongs to thread {@code i % threads}
   */
  public OutboxWorkload(String jdbcUrl, String user, int services, int threads) {
    if (services < 1 || threads < 1) {
      throw new IllegalArgumentException("services and threads must be >= 1");
    }
    this.jdbcUrl = jdbcUrl;
    this.user = user;
    for (int t = 0; t < threads; t++) {
      streamsByThread.add(new ArrayList<>());
    }
    for (int s = 0; s < services; s++) {
      streamsByThread.get(s % threads).add(new ServiceStream("drill-svc-%03d".formatted(s)));
    }
    for (int s = 0; s < BULK_SERVICES; s++) {
      bulkStreams.add(new ServiceStream("drill-bulk-%02d".formatted(s)));
    }
  }

  /**
   * Commits {@code rows} events in one transaction with {@code COPY}, the way a bulk writer or an
   * operator re-inserting rows would (PostgreSQL writes many of these rows in one multi-insert WAL
   * record), for the drill's bulk services, while the regular writers go on. Call from one thread
   * at a time; the events count as committed for the current drill.
   *
   * @return the rows as committed events
   * @throws IllegalStateException if the transaction fails (the bulk streams are then unusable)
   */
  public synchronized List<CommittedEvent> commitBulk(String drill, int rows) {
    ConcurrentLinkedQueue<CommittedEvent> sink = byDrill.get(drill);
    if (sink == null) {
      throw new IllegalStateException("no workload running for drill " + drill);
    }
    List<AlertEvent> events = new ArrayList<>(rows);
    List<Long> sequence = new ArrayList<>(rows);
    StringBuilder csv = new StringBuilder();
    for (int i = 0; i < rows; i++) {
      ServiceStream stream = bulkStreams.get(i % bulkStreams.size());
      AlertEvent event = stream.nextEvent();
      sequence.add(stream.committed());
      events.add(event);
      csv.append(event.eventId())
          .append(',')
          .append(OutboxContract.AGGREGATE_TYPE)
          .append(',')
          .append(event.service())
          .append(',')
          .append(event.kind().name())
          .append(",\"")
          .append(AlertEventJson.write(event).replace("\"", "\"\""))
          .append("\",")
          .append(event.incidentId())
          .append(',')
          .append(event.schemaVersion())
          .append('\n');
    }
    try (Connection connection = connect()) {
      connection.setAutoCommit(false);
      connection
          .unwrap(PGConnection.class)
          .getCopyAPI()
          .copyIn(COPY, new StringReader(csv.toString()));
      connection.commit();
    } catch (SQLException | IOException e) {
      throw new IllegalStateException("bulk COPY of " + rows + " outbox rows failed", e);
    }
    long now = System.nanoTime();
    lastCommitNanos = now;
    List<CommittedEvent> committed = new ArrayList<>(rows);
    for (int i = 0; i < rows; i++) {
      AlertEvent event = events.get(i);
      committed.add(
          new CommittedEvent(
              event.eventId(),
              event.service(),
              event.kind(),
              event.incidentId(),
              sequence.get(i),
              drill,
              now));
    }
    sink.addAll(committed);
    drillCommitted.addAndGet(rows);
    LOG.info("bulk transaction committed drill={} rows={} method=copy", drill, rows);
    return committed;
  }

  /**
   * Starts writing for {@code drill} at about {@code eventsPerSecond} in total, until {@link
   * #finish(long)}.
   */
  public synchronized void start(String drill, double eventsPerSecond) {
    if (!threads.isEmpty()) {
      throw new IllegalStateException("workload already running");
    }
    stopRequested = false;
    minEvents = Long.MAX_VALUE;
    drillCommitted.set(0);
    ConcurrentLinkedQueue<CommittedEvent> sink = new ConcurrentLinkedQueue<>();
    byDrill.put(drill, sink);
    currentDrill = drill;
    long intervalNanos = (long) (streamsByThread.size() * 1_000_000_000L / eventsPerSecond);
    for (int t = 0; t < streamsByThread.size(); t++) {
      List<ServiceStream> mine = streamsByThread.get(t);
      Thread thread =
          Thread.ofPlatform()
              .name("outbox-writer-" + t)
              .daemon(true)
              .start(() -> write(drill, mine, intervalNanos, sink));
      threads.add(thread);
    }
    LOG.info(
        "workload started drill={} threads={} eventsPerSecond={}",
        drill,
        threads.size(),
        eventsPerSecond);
  }

  /**
   * Stops the writers at once and starts them again for {@code drill}, whose record of committed
   * events starts afresh: for a drill that rolls the database back (a restore), after which what
   * was committed before is no longer the drill's to account for.
   *
   * @return the events committed for {@code drill} before, which the drill no longer counts
   */
  public synchronized List<CommittedEvent> startOver(String drill, double eventsPerSecond) {
    finish(0);
    List<CommittedEvent> before = committed(drill);
    start(drill, eventsPerSecond);
    return before;
  }

  /**
   * Stops the writers at once (a write in progress is finished and counted); {@link #startOver} or
   * {@link #start} writes again.
   */
  public synchronized void pause() {
    finish(0);
  }

  /** Stops once at least {@code atLeast} events of the current drill are committed; waits. */
  public synchronized void finish(long atLeast) {
    minEvents = atLeast;
    stopRequested = true;
    for (Thread thread : threads) {
      try {
        thread.join();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while stopping the workload", e);
      }
    }
    threads.clear();
    LOG.info("workload finished committed={} writeErrors={}", drillCommitted.get(), writeErrors);
  }

  /** Events committed during {@code drill}, in no particular order across services. */
  public List<CommittedEvent> committed(String drill) {
    ConcurrentLinkedQueue<CommittedEvent> events = byDrill.get(drill);
    return events == null ? List.of() : List.copyOf(events);
  }

  /** The drill the workload writes for now (null before the first). */
  public String currentDrill() {
    return currentDrill;
  }

  /** Events committed since the current drill started. */
  public long drillCommitted() {
    return drillCommitted.get();
  }

  public long writeErrors() {
    return writeErrors.get();
  }

  /** {@link System#nanoTime()} of the latest commit, 0 before the first. */
  public long lastCommitNanos() {
    return lastCommitNanos;
  }

  private void write(
      String drill,
      List<ServiceStream> streams,
      long intervalNanos,
      ConcurrentLinkedQueue<CommittedEvent> sink) {
    Connection connection = null;
    long next = System.nanoTime();
    int index = 0;
    while (!(stopRequested && drillCommitted.get() >= minEvents)) {
      long wait = next - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      next += intervalNanos;
      ServiceStream stream = streams.get(index++ % streams.size());
      AlertEvent event = stream.nextEvent();
      while (true) {
        try {
          if (connection == null) {
            connection = connect();
          }
          insert(connection, event);
          break;
        } catch (SQLException e) {
          long errors = writeErrors.incrementAndGet();
          if (errors % 50 == 1) {
            LOG.info("outbox write failed, retrying errors={} reason={}", errors, e.getMessage());
          }
          close(connection);
          connection = null;
          LockSupport.parkNanos(200_000_000L);
          next = System.nanoTime();
        }
      }
      long now = System.nanoTime();
      lastCommitNanos = now;
      sink.add(
          new CommittedEvent(
              event.eventId(),
              event.service(),
              event.kind(),
              event.incidentId(),
              stream.committed(),
              drill,
              now));
      drillCommitted.incrementAndGet();
    }
    close(connection);
  }

  private Connection connect() throws SQLException {
    Properties props = new Properties();
    props.setProperty("user", user);
    props.setProperty("password", "");
    props.setProperty("connectTimeout", "5");
    props.setProperty("socketTimeout", "15");
    return DriverManager.getConnection(jdbcUrl, props);
  }

  private static void insert(Connection connection, AlertEvent event) throws SQLException {
    try (PreparedStatement insert = connection.prepareStatement(INSERT)) {
      insert.setObject(1, event.eventId());
      insert.setString(2, event.service());
      insert.setString(3, event.kind().name());
      insert.setString(4, AlertEventJson.write(event));
      insert.setObject(5, event.incidentId());
      insert.setInt(6, event.schemaVersion());
      insert.executeUpdate();
    }
  }

  private static void close(Connection connection) {
    if (connection == null) {
      return;
    }
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.debug("closing a broken connection failed: {}", e.getMessage());
    }
  }
}
