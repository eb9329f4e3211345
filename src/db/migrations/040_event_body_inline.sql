-- Event bodies stay in the events row, compressed (STORAGE MAIN), instead of moving to the
-- TOAST table (the default, EXTENDED, moves a value out of line when the row is still over
-- ~2 KB after compression); and are compressed with LZ4 where the server has it.
--
-- Why inline: a deposit's body (the whole Transaction, ~4.6 KB of JSON) compresses to
-- ~1.9 KB, which with the row's other columns is just over that threshold. So every event
-- wrote a TOAST chunk and its TOAST index entry besides its row, and the events heap kept
-- only a pointer per event: a few pages for thousands of events. On a fresh or freshly
-- vacuumed table a sequential scan of so small a heap is the cheapest plan, and the
-- foreign-key check of webhook_deliveries.event_id, planned once per connection, was found
-- planned that way and kept scanning the whole growing table for every delivery (the backfill
-- benchmark at ~850 instead of ~1,900 transfers/s; docs/deposits.md). Inline, each row holds
-- its compressed body (~2 KB): one heap write per event, and a heap on which the index is
-- the cheaper plan from the first few rows. A body too large for a page still moves out of
-- line.
--
-- Why LZ4: compressing the body is most of an event's insert. On PostgreSQL 15 with LZ4,
-- 20,000 deposit bodies inserted in 0.8 s instead of 2.0-2.1 s with pglz, stored in ~2.1 KB
-- each instead of ~1.95 KB (docs/deposits.md). A server built without LZ4 (the embedded
-- PostgreSQL of the default set-up) keeps pglz. An operator who prefers pglz's smaller
-- bodies can run `ALTER TABLE events ALTER COLUMN body SET COMPRESSION pglz`.
--
-- Existing rows keep their storage and compression (each value records its own method);
-- nothing is rewritten.
ALTER TABLE events ALTER COLUMN body SET STORAGE MAIN;
DO $$
BEGIN
  ALTER TABLE events ALTER COLUMN body SET COMPRESSION lz4;
EXCEPTION WHEN feature_not_supported THEN
  RAISE NOTICE 'this PostgreSQL has no LZ4 support: event bodies stay pglz-compressed';
END
$$;
