-- Finished receipts (DELIVERED or SKIPPED) by when they finished: the retention job deletes the oldest in batches.
create index notifier_receipt_finished on notifier_receipt (coalesce(delivered_at, skipped_at))
    where status in ('DELIVERED', 'SKIPPED');
