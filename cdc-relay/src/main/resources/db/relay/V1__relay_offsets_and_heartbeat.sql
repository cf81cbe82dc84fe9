-- The relay's own tables, next to the outbox it streams (Flyway location classpath:db/relay,
-- history table flyway_relay_history).

-- Debezium source offsets (the last LSN whose events Kafka acknowledged), one namespace per
-- replication slot. Stored here rather than in a local file so a standby on another host resumes
-- from them; written only after Kafka acknowledged every record up to that offset.
create table relay_offsets (
    slot_name    text        not null,
    offset_key   text        not null,   -- Kafka Connect offset key (JSON)
    offset_value text        not null,   -- Kafka Connect offset value (JSON)
    updated_at   timestamptz not null default now(),
    primary key (slot_name, offset_key)
);

-- Heartbeat rows, inserted by Debezium's heartbeat action query. The table is in the relay's
-- publication, so an insert here gives the slot something to confirm while the outbox is idle and
-- WAL cannot pile up. Old rows are pruned by the same statement.
create table relay_heartbeat (
    id        bigint generated always as identity primary key,
    slot_name text        not null,
    beat_at   timestamptz not null default now()
);
