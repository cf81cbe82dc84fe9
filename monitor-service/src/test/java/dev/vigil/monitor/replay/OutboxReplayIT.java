package dev.vigil.monitor.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.vigil.harness.junit.TestDatabase;
import dev.vigil.harness.junit.VigilInfraExtension;
import dev.vigil.monitor.MonitorSchema;
import dev.vigil.monitor.targets.TargetSpec;
import dev.vigil.monitor.targets.TargetStore;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Replays against the real database, read back from the WAL with {@code test_decoding}: what the
 * relay would see.
 */
@ExtendWith(VigilInfraExtension.class)
class OutboxReplayIT {
  private static final Pattern INSERTED_SEQ =
      Pattern.compile(
          "table public\\.outbox: INSERT: id\\[uuid\\]:'([^']+)'.* seq\\[bigint\\]:(\\d+)");

  private TestDatabase db;
  private SimpleMeterRegistry registry;

  @BeforeEach
  void schema(TestDatabase db) throws SQLException {
    this.db = db;
    MonitorSchema.migrate(db.dataSource());
    registry = new SimpleMeterRegistry();
    new TargetStore(db.dataSource()).add(TargetSpec.push("svc-idle"));
  }

  @Test
  void rowsArePublishedAgainUnchangedInSeqOrderOneTransactionPerChunk() throws Exception {
    Map<Long, String> before = new LinkedHashMap<>();
    insertRows("svc-a", 25);
    insertRows("svc-b", 5);
    before.putAll(rows());
    String slot = "replay_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    try (Connection c = db.connect();
        Statement s = c.createStatement()) {
      s.execute("select pg_create_logical_replication_slot('" + slot + "', 'test_decoding')");
    }
    try {
      ReplayResult result =
          new OutboxReplay(db.dataSource(), 1000, 10, registry)
              .replay(new ReplaySelection("svc-a", null, null, null, null), false);

      assertThat(result.selected()).isEqualTo(25);
      assertThat(result.replayed()).isEqualTo(25);
      assertThat(result.chunks()).isEqualTo(3);
      assertThat(result.dryRun()).isFalse();
      // Every row as it was: id, seq, created_at, payload and the CloudEvents columns.
      assertThat(rows()).isEqualTo(before);
      assertThat(registry.get("vigil.monitor.outbox.replayed").counter().count()).isEqualTo(25);

      // The last commit reaches the decoder once its WAL is flushed (the test server commits
      // asynchronously), as it reaches the relay.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> insertedSeqsByTransaction(slot).stream().mapToInt(List::size).sum() == 25);
      List<List<Long>> transactions = insertedSeqsByTransaction(slot);
      assertThat(transactions).extracting(List::size).containsExactly(10, 10, 5);
      List<Long> replayedSeqs = transactions.stream().flatMap(List::stream).toList();
      assertThat(replayedSeqs).isSorted().doesNotHaveDuplicates();
      assertThat(replayedSeqs).containsExactlyElementsOf(seqsOf("svc-a"));
    } finally {
      try (Connection c = db.connect();
          Statement s = c.createStatement()) {
        s.execute("select pg_drop_replication_slot('" + slot + "')");
      }
    }
  }

  @Test
  void seqAndTimeBoundsAreInclusiveAndADryRunWritesNothing() throws Exception {
    insertRows("svc-a", 10);
    List<Long> seqs = seqsOf("svc-a");
    Map<Long, String> before = rowsWithXmin();
    OutboxReplay replay = new OutboxReplay(db.dataSource(), 1000, 100, registry);

    ReplayResult counted =
        replay.replay(new ReplaySelection(null, seqs.get(2), seqs.get(6), null, null), true);
    assertThat(counted).isEqualTo(new ReplayResult(5, 0, 0, seqs.get(2), seqs.get(6), true));
    assertThat(rowsWithXmin()).isEqualTo(before);

    Instant third = createdAt(seqs.get(2));
    ReplayResult byTime =
        replay.replay(new ReplaySelection("svc-a", null, null, third, third), false);
    assertThat(byTime.replayed()).isEqualTo(1);
    assertThat(byTime.firstSeq()).isEqualTo(seqs.get(2));
  }

  @Test
  void refusalsNameTheFieldAndWriteNothing() throws Exception {
    insertRows("svc-a", 25);
    Map<Long, String> before = rowsWithXmin();
    OutboxReplay replay = new OutboxReplay(db.dataSource(), 20, 10, registry);

    assertRefused(() -> new ReplaySelection(null, null, null, null, null), null, true);
    assertRefused(() -> new ReplaySelection("bad name!", null, null, null, null), "service", true);
    assertRefused(() -> new ReplaySelection(null, 0L, null, null, null), "fromSeq", true);
    assertRefused(() -> new ReplaySelection(null, 5L, 4L, null, null), "toSeq", true);
    Instant now = Instant.now();
    assertRefused(
        () -> new ReplaySelection(null, null, null, now, now.minusSeconds(1)), "to", true);
    assertRefused(
        () -> replay.replay(new ReplaySelection("nobody", null, null, null, null), false),
        "service",
        true);
    // A known service without rows, and a range past the end: nothing matches.
    assertRefused(
        () -> replay.replay(new ReplaySelection("svc-idle", null, null, null, null), false),
        null,
        false);
    assertRefused(
        () -> replay.replay(new ReplaySelection(null, 1_000_000L, null, null, null), false),
        null,
        false);
    // 25 rows, more than the limit of 20.
    assertThatThrownBy(
            () -> replay.replay(new ReplaySelection("svc-a", null, null, null, null), false))
        .isInstanceOf(InvalidReplayException.class)
        .hasMessageContaining("25 rows, more than VIGIL_MONITOR_REPLAY_MAX_ROWS=20");
    assertThat(rowsWithXmin()).isEqualTo(before);
  }

  @Test
  void aSecondReplayIsRefusedWhileOneRuns() throws Exception {
    insertRows("svc-a", 3);
    OutboxReplay replay = new OutboxReplay(db.dataSource(), 1000, 10, registry);
    try (Connection other = db.connect();
        Statement s = other.createStatement()) {
      // What a running replay holds, taken by another session.
      try (ResultSet rs =
          s.executeQuery("select pg_try_advisory_lock(" + OutboxReplay.LOCK_KEY + ")")) {
        rs.next();
        assertThat(rs.getBoolean(1)).isTrue();
      }
      assertThatThrownBy(
              () -> replay.replay(new ReplaySelection("svc-a", null, null, null, null), false))
          .isInstanceOf(ReplayBusyException.class);
      s.execute("select pg_advisory_unlock(" + OutboxReplay.LOCK_KEY + ")");
    }
    assertThat(
            replay.replay(new ReplaySelection("svc-a", null, null, null, null), false).replayed())
        .isEqualTo(3);
  }

  private static void assertRefused(Runnable action, String field, boolean invalidRequest) {
    assertThatThrownBy(action::run)
        .isInstanceOfSatisfying(
            InvalidReplayException.class,
            e -> {
              assertThat(e.field()).isEqualTo(field);
              assertThat(e.invalidRequest()).isEqualTo(invalidRequest);
            });
  }

  private void insertRows(String service, int n) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement ps =
            c.prepareStatement(
                "insert into outbox (id, aggregatetype, aggregateid, type, payload, incident_id,"
                    + " schema_version, created_at) values (?, 'service', ?, ?, ?::jsonb, ?, 1,"
                    + " now() - make_interval(secs => ?))")) {
      for (int i = 0; i < n; i++) {
        UUID id = UUID.randomUUID();
        String kind = i % 2 == 0 ? "FAILED" : "RECOVERED";
        ps.setObject(1, id);
        ps.setString(2, service);
        ps.setString(3, kind);
        ps.setString(
            4,
            "{\"eventId\":\"" + id + "\",\"occurredAt\":\"2026-12-03T10:00:" + (10 + i) + "Z\"}");
        ps.setObject(5, UUID.randomUUID());
        ps.setInt(6, 1000 - i);
        ps.executeUpdate();
      }
    }
  }

  /** seq → the whole row as text, for every outbox row. */
  private Map<Long, String> rows() throws SQLException {
    return query("select seq, o::text from outbox o order by seq");
  }

  /** seq → the row and the transaction that wrote it: changes when a row is written again. */
  private Map<Long, String> rowsWithXmin() throws SQLException {
    return query("select seq, o::text || ' xmin=' || o.xmin from outbox o order by seq");
  }

  private Map<Long, String> query(String sql) throws SQLException {
    Map<Long, String> rows = new LinkedHashMap<>();
    try (Connection c = db.connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      while (rs.next()) {
        rows.put(rs.getLong(1), rs.getString(2));
      }
    }
    return rows;
  }

  private List<Long> seqsOf(String service) throws SQLException {
    List<Long> seqs = new ArrayList<>();
    try (Connection c = db.connect();
        PreparedStatement ps =
            c.prepareStatement("select seq from outbox where aggregateid = ? order by seq")) {
      ps.setString(1, service);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          seqs.add(rs.getLong(1));
        }
      }
    }
    return seqs;
  }

  private Instant createdAt(long seq) throws SQLException {
    try (Connection c = db.connect();
        PreparedStatement ps = c.prepareStatement("select created_at from outbox where seq = ?")) {
      ps.setLong(1, seq);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getObject(1, java.time.OffsetDateTime.class).toInstant();
      }
    }
  }

  /** The outbox inserts the WAL holds since the slot was made, as one list per transaction. */
  private List<List<Long>> insertedSeqsByTransaction(String slot) throws SQLException {
    List<List<Long>> transactions = new ArrayList<>();
    List<Long> current = null;
    try (Connection c = db.connect();
        PreparedStatement ps =
            c.prepareStatement("select data from pg_logical_slot_peek_changes(?, null, null)")) {
      ps.setString(1, slot);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          String data = rs.getString(1);
          if (data.startsWith("BEGIN")) {
            current = new ArrayList<>();
          } else if (data.startsWith("COMMIT")) {
            if (current != null && !current.isEmpty()) {
              transactions.add(current);
            }
            current = null;
          } else {
            Matcher m = INSERTED_SEQ.matcher(data);
            if (m.find() && current != null) {
              current.add(Long.parseLong(m.group(2)));
            }
          }
        }
      }
    }
    return transactions;
  }
}
