-- Receipts: one row per alert event id, written by the Kafka consumer, worked off by delivery workers.
-- Per service, the unfinished (PENDING or DEAD) receipt with the lowest seq is the head of line (head = true);
-- only heads are claimed, so a service's events go out strictly in arrival (= partition) order.
create table notifier_receipt (
    event_id        uuid        primary key,
    seq             bigserial   not null unique,          -- arrival order; Kafka partition order per service
    service         text        not null,
    kind            text        not null check (kind in ('FAILED', 'RECOVERED')),
    incident_id     uuid        not null,
    payload         text        not null,                 -- the event JSON exactly as consumed; sent as the body
    kafka_topic     text        not null,
    kafka_partition int         not null,
    kafka_offset    bigint      not null,
    received_at     timestamptz not null default now(),
    status          text        not null default 'PENDING'
                                check (status in ('PENDING', 'DELIVERED', 'DEAD', 'SKIPPED')),
    head            boolean     not null default false,
    attempts        int         not null default 0,
    available_at    timestamptz not null default now(),   -- next attempt; while claimed: the lease expiry
    claim_token     uuid,
    last_status     int,
    last_error      text,
    delivered_at    timestamptz,
    dead_at         timestamptz,
    replayed_by     text,
    replayed_at     timestamptz,
    skipped_by      text,
    skipped_at      timestamptz
);

-- Claim: due heads only. A claimed head has available_at = lease expiry, so it drops out until the lease ends.
create index notifier_receipt_due_heads on notifier_receipt (available_at) where head and status = 'PENDING';
-- Finding the next head of a service, counting unfinished work.
create index notifier_receipt_unfinished on notifier_receipt (service, seq) where status in ('PENDING', 'DEAD');

-- Same event id, different payload: kept for an operator, the original receipt untouched.
create table notifier_conflict (
    id                  bigserial   primary key,
    event_id            uuid        not null,
    original_payload    text        not null,
    conflicting_payload text        not null,
    kafka_topic         text        not null,
    kafka_partition     int         not null,
    kafka_offset        bigint      not null,
    recorded_at         timestamptz not null default now()
);
create unique index notifier_conflict_once on notifier_conflict (event_id, md5(conflicting_payload));

-- Records that are not valid alert events, parked with where they came from and why.
create table notifier_rejected (
    id              bigserial   primary key,
    kafka_topic     text        not null,
    kafka_partition int         not null,
    kafka_offset    bigint      not null,
    record_key      bytea,
    record_value    bytea,
    field           text        not null,
    reason          text        not null,
    rejected_at     timestamptz not null default now(),
    unique (kafka_topic, kafka_partition, kafka_offset)
);

-- What operators did, and who did it.
create table notifier_operator_action (
    id          bigserial   primary key,
    event_id    uuid        not null,
    action      text        not null check (action in ('REPLAY', 'SKIP')),
    operator    text        not null,
    at          timestamptz not null default now()
);
