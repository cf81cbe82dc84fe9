-- Why a stored target definition could not be read when it was last claimed (a rule tightened
-- since it was stored, or a row edited by hand): such a target is not probed, and this makes it
-- visible on /health and in /api/services instead of only in a log line. Cleared by the next
-- probe of that target.
alter table probe_schedule add column unreadable text;
