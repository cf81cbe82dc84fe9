-- The recorder's lock asks, once per statement, which targets are parents of another
-- (dev.vigil.monitor.alert.StateLock): only targets with parents are read for it.
create index targets_with_parents on targets (name) where cardinality(depends_on) > 0;
