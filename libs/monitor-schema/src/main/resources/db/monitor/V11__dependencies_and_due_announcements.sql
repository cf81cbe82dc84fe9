-- Dependency-aware suppression and impact, and an announcer that selects only due incidents
-- (issue #30).
--
-- depends_on: the target's parents (target names; a parent not defined yet is allowed and
-- suppresses nothing). While a parent has an open incident whose FAILED was written, an incident
-- the child opens writes no FAILED; the announcer writes it after the last parent recovered, one
-- dependency_settle later, if the child's incident is still open. dependency_settle_ms: that settle
-- period (null: one interval of the child). The targets file and the API check names, cycles and
-- the 32-parent limit with a message naming the field; these checks keep hand-edited rows sane.
alter table targets add column depends_on text[] not null default '{}'
    check (cardinality(depends_on) <= 32 and array_position(depends_on, null) is null
           and not (name = any(depends_on)));
alter table targets add column dependency_settle_ms int
    check (dependency_settle_ms is null or dependency_settle_ms between 0 and 86400000);
create index targets_depends_on on targets using gin (depends_on);

-- held_reason: why an incident's FAILED is not written yet (e.g. 'parent gateway is down' or the
-- quiet period's reason); null once written. not_before: the announcer does not look at the incident
-- before this time (the end of its quiet period, a parent's recovery plus the settle period, the
-- next reminder); 'infinity' while a parent is down (the parent's RECOVERED brings it forward);
-- null: no time is kept, the announcer looks at it every run as before.
alter table incidents add column held_reason text check (char_length(held_reason) <= 500);
alter table incidents add column not_before timestamptz;
create index incidents_open_not_before on incidents (not_before) where closed_at is null;
