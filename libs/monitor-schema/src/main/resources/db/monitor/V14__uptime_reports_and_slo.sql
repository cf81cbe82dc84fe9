-- Uptime reports and SLOs (issue #33 part 4).

-- slo: the target's objective, the percentage of checks that must be UP over slo_window_days
-- (null: none). The targets file and the API accept 0 < slo < 100 and whole days 1..30.
alter table targets add column slo numeric(7, 4)
    check (slo is null or (slo > 0 and slo < 100));
alter table targets add column slo_window_days int not null default 30
    check (slo_window_days between 1 and 30);

-- maintenance: the check was recorded while a maintenance window or a silence held the service
-- (decided by the recorder at the recording's database time, as for a deferred FAILED). Such
-- checks count neither as UP nor as DOWN in uptime: they are counted apart.
alter table check_history add column maintenance boolean not null default false;

-- The hourly buckets count maintenance checks apart; up_count and down_count hold the others.
alter table status_hourly add column maintenance_count int not null default 0
    check (maintenance_count >= 0);

-- Daily sums (UTC days) of the same counts, written by dev.vigil.monitor.status.UptimeRollup from
-- status_hourly and kept 400 days, so a year of daily uptime stays queryable after check history
-- and hourly buckets are trimmed. Like an hourly bucket, a day only grows.
create table uptime_daily (
    service           text        not null references targets (name) on delete cascade,
    day               date        not null,
    up_count          int         not null check (up_count >= 0),
    down_count        int         not null check (down_count >= 0),
    maintenance_count int         not null check (maintenance_count >= 0),
    primary key (service, day)
);

create index uptime_daily_day on uptime_daily (day);
