-- Webhook throughput (issue 3) and deposit backfill (issue 4).
--
-- 1. The payload is stored once. An event now keeps the exact webhook body it causes
--    (`{"event":...,"data":...}`, the bytes that are signed and sent) in `events.body`, and
--    its deliveries point at it instead of holding a ~4 KB copy each. Rows written before
--    this migration keep `events.payload` and `webhook_deliveries.body` as they are, so a
--    retry of an old delivery still sends its old bytes.
-- 2. Deliveries written by one database transaction share a `batch_id` and are made by ONE
--    graphile-worker job, which claims and records them in groups instead of one job,
--    lock, update and insert per delivery.
--
-- Only adds columns, relaxes NOT NULLs and adds a partial index: no table rewrite, so it
-- applies quickly to a database that already holds deliveries.

ALTER TABLE events ADD COLUMN body text;
ALTER TABLE events ALTER COLUMN payload DROP NOT NULL;
ALTER TABLE events ADD CONSTRAINT events_body_or_payload CHECK (body IS NOT NULL OR payload IS NOT NULL);
-- A ~4 KB JSON text compresses poorly enough that pglz costs more CPU at insert time than
-- the bytes it saves; keep it out of line without compressing it.
ALTER TABLE events ALTER COLUMN body SET STORAGE EXTERNAL;

ALTER TABLE webhook_deliveries ALTER COLUMN body DROP NOT NULL;
ALTER TABLE webhook_deliveries ADD COLUMN batch_id uuid;
CREATE INDEX webhook_deliveries_batch ON webhook_deliveries (batch_id) WHERE status = 'pending' AND batch_id IS NOT NULL;
