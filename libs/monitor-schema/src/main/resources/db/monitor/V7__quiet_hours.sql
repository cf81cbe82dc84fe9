-- Maintenance windows, silences, reminders and acknowledgement (issue #15 parts 3 and 4). Quiet is
-- decided by the monitor in the transaction that records a result, so the outbox stays the one
-- source of truth: while a service is quiet its state, history and incident are recorded, but no
-- FAILED is written; the announcer job writes it when the quiet period ends and the incident is
-- still open, and a RECOVERED is written only for an incident whose FAILED was written.

-- REMINDER rows: any number per incident (one per period), so the one-row-per-kind rule now holds
-- for FAILED and RECOVERED only. The index keeps the constraint's name.
alter table outbox drop constraint outbox_type_check;
alter table outbox add constraint outbox_type_check
    check (type in ('FAILED', 'RECOVERED', 'REMINDER'));
alter table outbox drop constraint outbox_one_kind_per_incident;
create unique index outbox_one_kind_per_incident on outbox (incident_id, type)
    where type in ('FAILED', 'RECOVERED');

-- announced_at: when the incident's FAILED was written (null: opened while quiet, not announced
-- yet). last_announced_at: when its FAILED or last REMINDER was written; the next reminder is due
-- one remind_every after it (the target's current setting), so a monitor restart neither repeats
-- nor skips one. acknowledged_by/at: who acknowledged it and when (database clock); stops reminders.
alter table incidents add column announced_at timestamptz;
alter table incidents add column last_announced_at timestamptz;
alter table incidents add column acknowledged_by text
    check (acknowledged_by is null or char_length(acknowledged_by) between 1 and 100);
alter table incidents add column acknowledged_at timestamptz;
alter table incidents add constraint incidents_acknowledged_both
    check ((acknowledged_by is null) = (acknowledged_at is null));
-- Every incident opened before this migration had its FAILED written when it was opened.
update incidents set announced_at = opened_at, last_announced_at = opened_at;

-- remind_every_ms: a REMINDER every this long while the incident is open, announced and not
-- acknowledged (null: none). The targets file and the API accept 1m..7d; 1 s is the floor here so
-- tests can run at a short period. maintenance: the target's recurring windows as written in the
-- definition (days, start, length, zone), read back through the same parser.
alter table targets add column remind_every_ms bigint
    check (remind_every_ms is null or remind_every_ms between 1000 and 604800000);
alter table targets add column maintenance jsonb not null default '[]'::jsonb
    check (jsonb_typeof(maintenance) = 'array' and octet_length(maintenance::text) <= 65536);

-- Recurring windows for every service whose name starts with a prefix (from the API or the targets
-- file's top-level 'maintenance' list; the file's rows are replaced at every start).
create table maintenance_windows (
    id          uuid        primary key,
    prefix      text        not null check (prefix ~ '^[a-z0-9][a-z0-9_-]{0,49}$'),
    definition  jsonb       not null check (jsonb_typeof(definition) = 'object'
                                            and octet_length(definition::text) <= 4096),
    source      text        not null check (source in ('file', 'api')),
    created_at  timestamptz not null default clock_timestamp()
);

-- Ad-hoc silences of one service or of every service with a name prefix, until a time.
create table silences (
    id          uuid        primary key,
    service     text        check (service ~ '^[a-z0-9][a-z0-9_-]{0,49}$'),
    prefix      text        check (prefix ~ '^[a-z0-9][a-z0-9_-]{0,49}$'),
    created_by  text        not null check (char_length(created_by) between 1 and 100),
    reason      text        not null check (char_length(reason) between 1 and 500),
    created_at  timestamptz not null default clock_timestamp(),
    ends_at     timestamptz not null check (ends_at > created_at),
    check ((service is null) <> (prefix is null))
);

create index silences_ends_at on silences (ends_at);
