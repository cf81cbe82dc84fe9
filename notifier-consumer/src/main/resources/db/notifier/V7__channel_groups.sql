-- Grouping per channel (Slack, PagerDuty): transitions routed to a channel while one of its groups is open go out
-- together, one message per interval. Receipts and delivery rows stay per (event, channel); a group only says
-- which of them each message carried.
--
-- One open group per channel. next_at: when its next message may go (opened: first arrival + wait; then last
-- message + interval), by the database's clock. down: the services still DOWN as of the last message recorded as
-- sent (JSON written by the notifier). A message is being sent while claim_token is set and lease_until lies ahead.
create table notifier_group (
    group_id     uuid        primary key,
    channel      text        not null,
    status       text        not null default 'OPEN' check (status in ('OPEN', 'CLOSED')),
    opened_at    timestamptz not null default now(),
    next_at      timestamptz not null,
    down         jsonb       not null default '[]',
    messages     int         not null default 0 check (messages >= 0),
    claim_token  uuid,
    lease_until  timestamptz not null default '-infinity',
    closed_at    timestamptz
);
create unique index notifier_group_open on notifier_group (channel) where status = 'OPEN';

-- Every message of a group and the events it carried, written before the message is sent. A message still
-- SENDING after its sender's lease (a crash between send and record) is sent again with the same events, so a
-- crash repeats at most that one message and loses none; new transitions wait for the next message.
create table notifier_group_message (
    group_id     uuid        not null references notifier_group (group_id),
    seq          int         not null check (seq >= 1),
    event_ids    uuid[]      not null,
    status       text        not null default 'SENDING'
                             check (status in ('SENDING', 'SENT', 'NOT_SENT', 'FAILED')),
    attempts     int         not null default 0,
    created_at   timestamptz not null default now(),
    sent_at      timestamptz,
    last_status  int,
    last_error   text,
    primary key (group_id, seq)
);
create unique index notifier_group_message_sending
    on notifier_group_message (group_id) where status = 'SENDING';
