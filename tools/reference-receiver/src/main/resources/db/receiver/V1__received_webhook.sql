-- The reference receiver's own store: each webhook-id once, with the body it was first accepted with.
create table received_webhook (
    webhook_id  text        primary key,
    seq         bigserial   not null unique,
    service     text        not null,
    kind        text        not null,
    event_id    uuid        not null,
    body        text        not null,
    received_at timestamptz not null default now()
);
