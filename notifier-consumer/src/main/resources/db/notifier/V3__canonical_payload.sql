-- Documentation only (V1's comments are applied and stay as they are): since this version the intake stores the
-- canonical JSON of the parsed event, not the bytes as consumed, and parks anything it cannot read with its raw bytes.
comment on column notifier_receipt.payload is
    'canonical JSON of the parsed event (AlertEventJson.write): no trailing bytes, no unknown fields; the webhook body';
comment on column notifier_conflict.conflicting_payload is
    'canonical JSON of the conflicting copy; compared with the receipt''s payload as text, never cast';
comment on column notifier_rejected.record_value is
    'the record value exactly as consumed (any bytes); reason and field are sanitised (\uXXXX escapes)';
