-- The transactional outbox, in Debezium's outbox shape (see dev.vigil.contract.OutboxContract).
-- One row per announced transition; the relay streams inserts from the WAL, so rows are never updated.
create table outbox (
    id             uuid        primary key,          -- the event id
    aggregatetype  text        not null,             -- always 'service'
    aggregateid    text        not null,             -- the service name: the Kafka key
    type           text        not null check (type in ('FAILED', 'RECOVERED')),
    payload        jsonb       not null,             -- the AlertEvent JSON
    incident_id    uuid        not null,
    schema_version int         not null,
    created_at     timestamptz not null default now(),
    constraint outbox_one_kind_per_incident unique (incident_id, type)
);

create index outbox_created_at on outbox (created_at);

-- Append-only: an update would be invisible to the relay (the publication carries inserts only) and would
-- silently diverge the database from what consumers saw.
create function outbox_forbid_update() returns trigger language plpgsql as $$
begin
    raise exception 'outbox rows are append-only (id %)', old.id;
end;
$$;

create trigger outbox_append_only before update on outbox
    for each row execute function outbox_forbid_update();
