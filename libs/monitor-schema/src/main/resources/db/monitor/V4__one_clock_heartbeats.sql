-- One clock for ordering, push heartbeats.
--
-- Ordering no longer uses any host's wall clock:
-- * result_order numbers results in the database. A scheduled probe takes its number when it is
--   claimed, a pushed result or a missed heartbeat when it is recorded; alert_state.last_result_seq
--   holds the number of the last recorded result, and a result with a number not above it is stale.
-- * outbox.seq numbers outbox rows as they are inserted. The recorder holds the service's
--   alert_state row lock while it inserts, so one service's rows get increasing numbers in commit
--   order; a snapshot replays them "order by seq".
create sequence result_order as bigint;

alter table alert_state add column last_result_seq bigint;

-- The startedAt an external checker gave with its last pushed result (its own clock, compared only
-- with its own earlier values), or null.
alter table alert_state add column last_pushed_started_at timestamptz;

-- Existing rows are numbered in table order; rows written from now on in commit order per service.
alter table outbox add column seq bigint generated always as identity;
create index outbox_seq on outbox (seq);

-- Times written by the database when no value is given.
alter table outbox alter column created_at set default clock_timestamp();

-- How often a push target's checker promises to report. When no result arrives within it (plus the
-- monitor's grace) the monitor records a DOWN result. probe_schedule.next_due_at of such a target is
-- the deadline: moved to (time of the result + heartbeat) by every recorded result.
alter table targets add column heartbeat_ms int check (heartbeat_ms > 0);
alter table targets add constraint targets_heartbeat_push_only check (kind = 'push' or heartbeat_ms is null);

-- A missed heartbeat is recorded as a result of its own source.
alter table health_status drop constraint health_status_source_check;
alter table health_status add constraint health_status_source_check
    check (source in ('probe', 'push', 'heartbeat'));
alter table check_history drop constraint check_history_source_check;
alter table check_history add constraint check_history_source_check
    check (source in ('probe', 'push', 'heartbeat'));
