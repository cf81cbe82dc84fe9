-- Channels: each (event, channel) pair is its own delivery row with its own attempts, dead state and head of
-- line. Order is kept per (service, channel): a failing channel holds back only its own deliveries.
-- Rows stored before this version belong to the default signed-webhook channel.
alter table notifier_receipt add column channel text not null default 'webhook';
alter table notifier_receipt drop constraint notifier_receipt_pkey;
alter table notifier_receipt add primary key (event_id, channel);

-- REMINDER (same incident as its FAILED, new event id) is delivered like the other kinds.
alter table notifier_receipt drop constraint notifier_receipt_kind_check;
alter table notifier_receipt
    add constraint notifier_receipt_kind_check check (kind in ('FAILED', 'RECOVERED', 'REMINDER'));

-- Finding the next head of a (service, channel), counting unfinished work per service and channel.
create index notifier_receipt_unfinished_channel
    on notifier_receipt (service, channel, seq) where status in ('PENDING', 'DEAD');
drop index notifier_receipt_unfinished;

-- Events of a kind this notifier does not know (added to the contract later): skipped, not parked and not
-- delivered; one row per record so an operator (and the hostile-records drill) can see what was skipped.
create table notifier_skipped_kind (
    kafka_topic     text        not null,
    kafka_partition int         not null,
    kafka_offset    bigint      not null,
    kind            text        not null,   -- as received, at most 40 characters (sanitised)
    skipped_at      timestamptz not null default now(),
    primary key (kafka_topic, kafka_partition, kafka_offset)
);
create index notifier_skipped_kind_at on notifier_skipped_kind (skipped_at);
