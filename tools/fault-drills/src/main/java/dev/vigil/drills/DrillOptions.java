package dev.vigil.drills;

import java.time.Duration;
import java.util.List;

/**
 * Sizes of a drill suite run.
 *
 * @param label "full" or "short"
 * @param services services the workload writes for
 * @param writerThreads outbox writer threads (each service belongs to one)
 * @param eventsPerSecond workload rate while faults are injected
 * @param minEventsPerDrill a drill keeps writing until at least this many events are committed
 * @param relayKills kill -9 of the active relay, per relay drill
 * @param notifierKills kill -9 of a notifier instance
 * @param brokerRestarts Kafka stops and starts
 * @param brokerOutage how long the broker stays down
 * @param postgresRestarts PostgreSQL stops and starts
 * @param postgresOutage how long PostgreSQL stays down
 * @param chaosPhase how long each receiver misbehaviour lasts at least (it goes on until the proxy
 *     answered a webhook request with it), and how long the normal phase after it lasts
 * @param pauseBetweenFaults at least this long between faults, after the pipeline made progress
 * @param notifierKillsAwaitDelivery true: before each notifier kill, wait until the receiver got
 *     something new (every kill lands during delivery, but each waits out the consumer group's
 *     recovery); false: only the first kill waits, the others follow once the restarted instance is
 *     healthy
 * @param hostileRounds sets of hostile records produced in the hostile-records drill
 * @param drainTimeout give up waiting for the receiver when it made no progress for this long
 * @param drills the drills to run, by name; empty = all
 */
public record DrillOptions(
    String label,
    int services,
    int writerThreads,
    double eventsPerSecond,
    long minEventsPerDrill,
    int relayKills,
    int notifierKills,
    int brokerRestarts,
    Duration brokerOutage,
    int postgresRestarts,
    Duration postgresOutage,
    Duration chaosPhase,
    Duration pauseBetweenFaults,
    boolean notifierKillsAwaitDelivery,
    int hostileRounds,
    Duration drainTimeout,
    List<String> drills) {

  public DrillOptions {
    if (services < 100 && label.equals("full")) {
      throw new IllegalArgumentException("the full drill needs at least 100 services");
    }
    if (writerThreads < 1 || services < writerThreads) {
      throw new IllegalArgumentException("need 1 <= writerThreads <= services");
    }
    drills = List.copyOf(drills);
  }

  /**
   * The full drill: 7 drills of at least 9,000 events each (63,000+ in total, written at 100 per
   * second while faults are injected) over 120 services, 10 relay kills without and 10 with a
   * standby, 10 notifier kills, 2 broker and 2 PostgreSQL restarts, 5 kinds of receiver
   * misbehaviour, 5 sets of hostile records.
   */
  public static DrillOptions full() {
    return new DrillOptions(
        "full",
        120,
        4,
        100,
        9_000,
        10,
        10,
        2,
        Duration.ofSeconds(15),
        2,
        Duration.ofSeconds(8),
        Duration.ofSeconds(4),
        Duration.ofSeconds(2),
        true,
        5,
        Duration.ofSeconds(90),
        List.of());
  }

  /**
   * The short drill for the normal test suite: fewer events and faults, and without the relay-kill
   * drill (a relay JVM restarting under load takes 20-40 s here; the failover drill also kills the
   * streaming relay with SIGKILL, and its standby resumes from the stored offsets), nor the
   * database-restore and oversized-transaction drills (a minute or two each; opt-in ITs, and
   * cdc-relay's DatabaseRestoreIT and LargeTransactionIT prove the same behaviour).
   */
  public static DrillOptions quick() {
    return new DrillOptions(
        "short",
        40,
        4,
        40,
        300,
        1,
        2,
        1,
        Duration.ofSeconds(3),
        1,
        Duration.ofSeconds(3),
        Duration.ofSeconds(1),
        Duration.ofMillis(300),
        false,
        1,
        Duration.ofSeconds(60),
        List.of(
            "relay-failover",
            "bulk-transactions",
            "kafka-restart",
            "postgres-restart",
            "notifier-kill",
            "receiver-chaos",
            "hostile-records",
            "relay-freeze",
            "bad-input-sweep"));
  }

  /** kill -9 of the Kafka Connect worker in the connect-worker-kill drill. */
  public int connectWorkerKills() {
    return label.equals("full") ? 5 : 1;
  }

  /** SIGSTOP/SIGCONT of the streaming relay in the relay-freeze drill. */
  public int relayFreezes() {
    return label.equals("full") ? 3 : 1;
  }

  /**
   * Rows of the one COPY transaction of the oversized-transaction drill: far more than the relay
   * can put into one Kafka transaction within its (drill) transaction timeout of 1 s.
   */
  public int oversizedTransactionRows() {
    return label.equals("full") ? 40_000 : 20_000;
  }

  /**
   * Events relayed after the database-restore drill's copy was taken, before the restore (the
   * issue's reproduction relays 1,000).
   */
  public long relayedAfterCopy() {
    return Math.min(1_000, minEventsPerDrill);
  }

  /** Rows of each COPY transaction in the bulk-transactions drill. */
  public int bulkTransactionRows() {
    return label.equals("full") ? 2_000 : 500;
  }

  /** COPY transactions committed back to back before each relay kill of that drill. */
  public int bulkTransactionsPerRound() {
    return 2;
  }

  /** Relay kills inside bulk transactions (each round of them is delivered to the receiver). */
  public int bulkTransactionKills() {
    return label.equals("full") ? 4 : 1;
  }

  public DrillOptions onlyDrills(List<String> names) {
    return new DrillOptions(
        label,
        services,
        writerThreads,
        eventsPerSecond,
        minEventsPerDrill,
        relayKills,
        notifierKills,
        brokerRestarts,
        brokerOutage,
        postgresRestarts,
        postgresOutage,
        chaosPhase,
        pauseBetweenFaults,
        notifierKillsAwaitDelivery,
        hostileRounds,
        drainTimeout,
        names);
  }
}
