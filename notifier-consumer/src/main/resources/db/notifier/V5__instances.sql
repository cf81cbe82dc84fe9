-- Running notifier instances advertise the channels they deliver to and the routes they apply, so that
-- (1) a delivery for a channel no running instance has can be shown as waiting, not retried until dead, and
-- (2) every instance's intake applies the routes of its peers too: in a rolling deploy where only some
-- instances know a channel, the events any instance consumes still get that channel's deliveries.
-- seen_at is the database's clock at the last heartbeat (or at a clean stop, with stopped_at).
create table notifier_instance (
    instance_id text        primary key,
    channels    text[]      not null,
    routes      jsonb       not null,   -- [{"match": "pay*", "channels": ["team", "webhook"]}, ...]
    started_at  timestamptz not null default now(),
    seen_at     timestamptz not null default now(),
    stopped_at  timestamptz
);

-- An instance claims due heads of its own channels only: the heads of a channel no running instance has
-- must not be scanned by every claim while they wait.
create index notifier_receipt_due_heads_channel
    on notifier_receipt (channel, available_at) where head and status = 'PENDING';
