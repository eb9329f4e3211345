-- The order in which events were written, kept by the database. A transaction's "latest"
-- event (what a resend delivers) was the one with the greatest `created_at`, which is the
-- clock of the process that wrote it: two processes whose clocks differ (an API replica and
-- the indexer, on two hosts) could give the later event the earlier time, and a resend then
-- delivered the older state. A transaction's events are written by transitions that hold its
-- row lock, so the one written later takes its number from the sequence after the earlier
-- one committed. No cache: a per-session cache would hand out numbers out of that order.
--
-- Added without a default first, then given one: existing rows keep NULL (no rewrite of a
-- large table), and count as older than every numbered one (store.ts latestEventOfTransaction).
CREATE SEQUENCE events_seq;
ALTER TABLE events ADD COLUMN seq bigint;
ALTER TABLE events ALTER COLUMN seq SET DEFAULT nextval('events_seq');
ALTER SEQUENCE events_seq OWNED BY events.seq;
