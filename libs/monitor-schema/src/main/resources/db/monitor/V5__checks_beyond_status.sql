-- Checks beyond the status code (issue #16): tcp and dns targets, and per-target request shape and
-- conditions in one jsonb column.
--
-- kind: 'tcp' targets are probed by opening a connection to tcp://host:port, 'dns' targets by
-- resolving dns://name. Both need a url, like http targets (the existing check covers that).
alter table targets drop constraint targets_kind_check;
alter table targets add constraint targets_kind_check
    check (kind in ('http', 'push', 'tcp', 'dns'));

-- checks: the target's optional fields beyond the status code in the form they are written in the
-- targets file or the API (headers, body, maxLatency, bodyContains, bodyNotContains, jsonEquals,
-- tlsExpiryDays, expectAddress). The monitor reads it back through the same parser that validated
-- it, so a stored row can never hold a check a new definition could not. '{}' = status code only.
-- Inline header values are kept here because the probe must send them; API responses redact them,
-- and header values read from files (valueFile) are stored as the path only.
alter table targets add column checks jsonb not null default '{}'::jsonb
    check (jsonb_typeof(checks) = 'object' and octet_length(checks::text) <= 1048576);
