-- One row per vendor endpoint (a Slack incoming webhook, a PagerDuty routing key, an Alertmanager URL), shared by
-- every notifier instance. The key is the channel type and a digest of the endpoint, never the URL or key itself.
-- next_at: the earliest time the next message may be claimed (each claim moves it one interval on, by the database's
-- clock); blocked_until: after the endpoint answered 429, its Retry-After; nothing is claimed for it until then.
create table notifier_rate_limit (
    bucket         text        primary key,
    interval_ms    bigint      not null check (interval_ms >= 0),
    next_at        timestamptz not null default '-infinity',
    blocked_until  timestamptz not null default '-infinity',
    updated_at     timestamptz not null default now()
);
