-- Probing from several locations with a quorum, and fast re-checks (issue #29 parts 2 and 3).
--
-- locations: the locations a target is probed from (null: from one place, by any instance, as
-- before). quorum: how many fresh locations must be failing to open the incident (null: a majority
-- of the listed ones). retry_interval_ms: the shorter interval used while failures count towards an
-- incident, or successes towards its recovery (null: the interval). The targets file and the API
-- check the same rules with a message naming the field; these checks keep hand-edited rows sane.
alter table targets add column locations text[]
    check (locations is null
           or (cardinality(locations) between 1 and 16
               and array_position(locations, null) is null));
alter table targets add column quorum int check (quorum is null or quorum >= 1);
alter table targets add constraint targets_quorum_of_locations
    check (quorum is null or (locations is not null and quorum <= cardinality(locations)));
alter table targets add column retry_interval_ms int
    check (retry_interval_ms is null or (retry_interval_ms >= 1000 and retry_interval_ms <= interval_ms));

-- One row per (service, location) that has recorded a result: the location's own consecutive
-- counters, whether it is failing (past its failure threshold and not yet past its recovery
-- threshold), its last verdict and when its last result was recorded (the database's clock; a
-- location without a result for longer than 3 intervals plus the timeout is stale). Written only
-- under the service's alert_state row lock, like everything the recorder writes.
create table location_state (
    service                   text        not null references targets (name) on delete cascade,
    location                  text        not null check (location ~ '^[a-z0-9][a-z0-9-]{0,31}$'),
    consecutive_failures      int         not null default 0 check (consecutive_failures >= 0),
    consecutive_successes     int         not null default 0 check (consecutive_successes >= 0),
    failures_before_successes int         not null default 0,
    failing                   boolean     not null default false,
    last_result_seq           bigint,
    last_pushed_started_at    timestamptz,
    last_status               text        not null check (last_status in ('UP', 'DOWN')),
    last_error                text,
    recorded_at               timestamptz not null,
    primary key (service, location)
);

-- Scheduling per (target, location): claimed only by instances of that location, with the same
-- lease rules as probe_schedule (which keeps its row for such a target, unclaimed, for the parts
-- that read it per target).
create table location_schedule (
    target          text        not null references targets (name) on delete cascade,
    location        text        not null check (location ~ '^[a-z0-9][a-z0-9-]{0,31}$'),
    next_due_at     timestamptz not null,
    lease_owner     text,
    lease_token     uuid,
    lease_until     timestamptz,
    primary key (target, location)
);

create index location_schedule_due on location_schedule (location, next_due_at);

-- Which location a result came from (null: a target probed from one place).
alter table check_history add column location text;
