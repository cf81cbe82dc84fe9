package dev.vigil.bench.polling;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/**
 * The polling baseline's table: the outbox's columns plus the status, lease and claim token a
 * polling relay must update (the real outbox is append-only, so the baseline gets its own table).
 */
final class PollingSchema {
  static final String TABLE = "polling_outbox";

  private static final String DDL =
      """
      create table if not exists polling_outbox (
          id             uuid        primary key,
          aggregatetype  text        not null,
          aggregateid    text        not null,
          type           text        not null check (type in ('FAILED', 'RECOVERED')),
          payload        jsonb       not null,
          incident_id    uuid        not null,
          schema_version int         not null,
          created_at     timestamptz not null default now(),
          status         text        not null default 'NEW' check (status in ('NEW', 'DONE')),
          locked_until   timestamptz,
          claim_token    uuid,
          published_at   timestamptz,
          constraint polling_outbox_one_kind_per_incident unique (incident_id, type)
      );
      create index if not exists polling_outbox_pending
          on polling_outbox (created_at) where status = 'NEW';
      """;

  private PollingSchema() {}

  static void create(DataSource db) throws SQLException {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute(DDL);
    }
  }

  /**
   * Empties the table between cases so a backlog left by one cannot slow the next, then puts back
   * {@code history} rows already marked done and refreshes the statistics — the steady state of a
   * polling outbox in production, where the planner knows the pending rows are a small part of the
   * table and claims through the partial index.
   */
  static void reset(DataSource db, int history) throws SQLException {
    try (Connection c = db.getConnection();
        Statement s = c.createStatement()) {
      s.execute("truncate " + TABLE);
      s.execute(
          """
          insert into polling_outbox (id, aggregatetype, aggregateid, type, payload, incident_id,
                                      schema_version, status, published_at)
          select gen_random_uuid(), 'service', 'svc-' || (g %% 100), 'FAILED',
                 jsonb_build_object('note', repeat('x', 300)), gen_random_uuid(), 1, 'DONE', now()
          from generate_series(1, %d) g
          """
              .formatted(history));
      s.execute("vacuum analyze " + TABLE);
    }
  }
}
