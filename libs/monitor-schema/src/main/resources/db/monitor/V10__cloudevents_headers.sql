-- CloudEvents binary mode on the topic (the Kafka protocol binding of CloudEvents 1.0): the relay and the Kafka
-- Connect connector place these columns as record headers with the Outbox EventRouter's additional placement
-- (dev.vigil.relay.stream.OutboxRouting, tools/kafka-connect/connector), next to the headers already there, so
-- a generic CloudEvents consumer can route an event without knowing its schema. `ce_id` is the `id` column and
-- `ce_subject` the `aggregateid` column, placed a second time; the record value stays the payload
-- (`content-type: application/json` = the event's datacontenttype).
--
-- Columns, not values computed by the relay: both publishers must write the same bytes, and the EventRouter can
-- only place columns. Filled by a trigger rather than by the monitor's insert, so every writer gets them: the
-- monitor, an operator re-inserting rows, a bulk COPY. pgoutput publishes the row as the trigger left it.
-- Existing rows stay without them (published already, or published without the ce_* headers).
alter table outbox
    add column ce_specversion text,
    add column ce_type text,
    add column ce_source text,
    add column ce_time text,
    add column content_type text;

create function outbox_cloudevents() returns trigger language plpgsql as $$
begin
    new.ce_specversion := '1.0';
    new.ce_type := 'dev.vigil.alert.' || lower(new.type);
    new.ce_source := '/vigil/monitor';
    -- The transition's time: the payload's occurredAt as the monitor wrote it (Java's Instant text, RFC 3339 in
    -- UTC), taken verbatim when it has that shape; else (a hand-written payload) the row's insertion time. Matched,
    -- not cast: a cast that fails would need an exception block, a subtransaction per row.
    new.ce_time := case
        when new.payload ->> 'occurredAt'
             ~ '^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]{1,9})?Z$'
            then new.payload ->> 'occurredAt'
        else to_char(new.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')
    end;
    new.content_type := 'application/json';
    return new;
end;
$$;

create trigger outbox_cloudevents before insert on outbox
    for each row execute function outbox_cloudevents();
