-- Leadership lease of the active relay, one row per replication slot. The active relay renews it on
-- its lock connection, on the database's clock; a standby that finds it expired ends the holder's
-- sessions (a frozen process keeps its advisory lock alive, its lease it cannot renew).
create table relay_lease (
    slot_name  text        primary key,
    holder     text        not null,   -- VIGIL_INSTANCE_ID of the active relay
    lock_pid   integer     not null,   -- backend pid of its lock connection
    renewed_at timestamptz not null,
    expires_at timestamptz not null
);
