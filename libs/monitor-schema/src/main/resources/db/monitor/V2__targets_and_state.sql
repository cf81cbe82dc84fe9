-- Targets: what to probe (kind 'http') or what external checkers push results for (kind 'push').
-- Both the YAML file and the API end here, so every monitor instance sees the same targets.
create table targets (
    name                text        primary key check (name ~ '^[a-z0-9][a-z0-9_-]{0,49}$'),
    kind                text        not null check (kind in ('http', 'push')),
    url                 text,
    method              text        not null default 'GET',
    interval_ms         int         not null check (interval_ms > 0),
    timeout_ms          int         not null check (timeout_ms > 0),
    connect_timeout_ms  int         not null check (connect_timeout_ms > 0),
    accepted_status     text        not null,           -- e.g. '200-299,301'
    failure_threshold   int         not null check (failure_threshold between 1 and 100),
    recovery_threshold  int         not null check (recovery_threshold between 1 and 100),
    follow_redirects    boolean     not null default false,
    enabled             boolean     not null default true,
    source              text        not null check (source in ('file', 'api')),
    created_at          timestamptz not null default now(),
    updated_at          timestamptz not null default now(),
    check (kind = 'push' or url is not null)
);

create table incidents (
    id              uuid        primary key,
    service         text        not null references targets (name),
    opened_at       timestamptz not null,
    closed_at       timestamptz,
    first_error     text,
    last_error      text,
    probe_count     int         not null,            -- results recorded while the incident was open
    check (closed_at is null or closed_at >= opened_at)
);

-- At most one open incident per service.
create unique index incidents_one_open_per_service on incidents (service) where closed_at is null;
create index incidents_service_opened on incidents (service, opened_at desc);

-- The per-service state machine. Its row lock (select ... for update) serialises every recorder of one
-- service, across threads and monitor instances.
create table alert_state (
    service                text        primary key references targets (name),
    consecutive_failures   int         not null default 0 check (consecutive_failures >= 0),
    consecutive_successes  int         not null default 0 check (consecutive_successes >= 0),
    open_incident_id       uuid        references incidents (id),
    last_started_at        timestamptz,              -- probe start of the last recorded result
    failures_before_successes int      not null default 0,   -- the failure streak an UP streak ended
    last_error             text,
    updated_at             timestamptz not null default now()
);

-- The last observed result per service (what the API lists).
create table health_status (
    service         text        primary key references targets (name),
    status          text        not null check (status in ('UP', 'DOWN')),
    since           timestamptz not null,            -- when the status last changed
    checked_at      timestamptz not null,
    started_at      timestamptz not null,
    latency_ms      bigint,
    http_status     int,
    error           text,
    source          text        not null check (source in ('probe', 'push'))
);

-- Every accepted result, append-only; trimmed by the retention job in bounded batches.
create table check_history (
    id              bigint      generated always as identity primary key,
    service         text        not null references targets (name),
    status          text        not null check (status in ('UP', 'DOWN')),
    started_at      timestamptz not null,
    recorded_at     timestamptz not null,
    latency_ms      bigint,
    http_status     int,
    error           text,
    source          text        not null check (source in ('probe', 'push'))
);

create index check_history_service_id on check_history (service, id desc);
create index check_history_recorded_at on check_history (recorded_at);

-- Scheduling across instances: one row per probed target. An instance claims due rows with
-- "for update skip locked" and holds them under a lease; an expired lease may be taken over.
create table probe_schedule (
    target          text        primary key references targets (name) on delete cascade,
    next_due_at     timestamptz not null,
    lease_owner     text,
    lease_token     uuid,
    lease_until     timestamptz
);

create index probe_schedule_due on probe_schedule (next_due_at);
