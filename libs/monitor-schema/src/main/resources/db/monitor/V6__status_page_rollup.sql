-- Hourly sums of check history for the status page (uptime over 24 h / 7 d / 30 d, response-time
-- charts) that outlive the history's own retention and cost one row per service and hour to read.
-- Written by dev.vigil.monitor.status.UptimeRollup, which recomputes recent hours from check_history:
-- a bucket only ever grows (its checks are appended, never changed), so a recomputation with fewer
-- checks (history already trimmed) never overwrites a fuller one, and several monitor instances
-- computing the same bucket agree.
create table status_hourly (
    service         text        not null references targets (name) on delete cascade,
    hour            timestamptz not null,            -- start of the clock hour (UTC)
    up_count        int         not null check (up_count >= 0),
    down_count      int         not null check (down_count >= 0),
    latency_sum_ms  bigint      not null check (latency_sum_ms >= 0),
    latency_count   int         not null check (latency_count >= 0),   -- checks that had a latency
    latency_max_ms  bigint,
    primary key (service, hour)
);

create index status_hourly_hour on status_hourly (hour);

-- The status page's incident timeline lists the newest incidents of every service.
create index incidents_opened on incidents (opened_at desc);
