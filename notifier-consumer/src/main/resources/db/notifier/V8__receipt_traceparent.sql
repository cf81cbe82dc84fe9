-- Trace context (issue 33): the W3C traceparent the record carried (header `traceparent`, the monitor's span
-- for the probe or pushed result that decided the event), kept with each receipt so every delivery of the
-- event, on every channel and at every attempt, continues the same trace with a span of its own. Null when the
-- record had none or an invalid one (checked at intake: an invalid value never parks an event, it is dropped).
alter table notifier_receipt add column traceparent text;
