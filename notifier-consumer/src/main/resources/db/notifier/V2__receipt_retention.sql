-- Finished receipts (DELIVERED or SKIPPED) by when they finished: the retention job deletes the oldest in batches.
-- Built concurrently (Flyway then runs this script outside a transaction): notifier_receipt was never trimmed
-- before this version and may be large, and a plain build would block intake and delivery while it runs.
create index concurrently if not exists notifier_receipt_finished
    on notifier_receipt (coalesce(delivered_at, skipped_at))
    where status in ('DELIVERED', 'SKIPPED');
