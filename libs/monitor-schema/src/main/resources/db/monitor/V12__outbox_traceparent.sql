-- Trace context with the event (issue 33): the W3C traceparent of the monitor's span for the probe or pushed
-- result that decided the event, written by the monitor with the row, like Debezium's `tracingspancontext`
-- column. The relay and the Kafka Connect connector place it as the record header `traceparent` with the Outbox
-- EventRouter's additional placement (dev.vigil.relay.stream.OutboxRouting, tools/kafka-connect/connector),
-- so both publish the same bytes; the notifier continues the trace for each delivery.
--
-- Null when unknown (a row written by hand, or one written before this migration): the header is then sent with
-- a null value, which consumers read as "no trace". The check keeps anything but a well-formed version-00 value
-- out, so the header never carries text a tracer would refuse.
alter table outbox
    add column traceparent text
        check (traceparent ~ '^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$'
               and traceparent !~ '^00-0{32}-' and traceparent !~ '^00-[0-9a-f]{32}-0{16}-');
