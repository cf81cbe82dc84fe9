-- Nothing unpublishable enters the outbox. The relay publishes the payload's jsonb text as the Kafka
-- record value and aggregateid as its key; a row Kafka refuses for good would stop the relay for every
-- service, so the table refuses it when it is written, for every writer (the monitor, an operator
-- re-inserting rows, a bulk COPY). Limits: dev.vigil.contract.OutboxContract.MAX_PAYLOAD_BYTES and
-- MAX_AGGREGATE_ID_BYTES. 64 KiB is also what consumers accept when they read an event
-- (AlertEventJson.MAX_PAYLOAD_BYTES). The relay's producer (max.request.size) and the topic it creates
-- (max.message.bytes) allow 256 KiB per record, leaving room for the key, headers and batching.
-- The monitor's own payloads are a few hundred bytes (lastError is cut at 500 characters).
--
-- not valid: enforced for every row inserted from now on, without scanning (and locking) the rows
-- already there: those were written before the limit and were either published already or are
-- reported by the relay's /health if Kafka refuses them; the monitor's retention deletes them.
alter table outbox
    add constraint outbox_payload_at_most_64_kib
        check (octet_length(payload::text) <= 65536) not valid;

alter table outbox
    add constraint outbox_aggregateid_at_most_255_bytes
        check (octet_length(aggregateid) <= 255) not valid;
