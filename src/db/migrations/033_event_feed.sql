-- The event feed (GET /v1/events and its Server-Sent Events stream, modules/eventfeed).
--
-- 1. Position. A reader asks for the events after a cursor, so events must be read in an
--    order in which none can appear behind a cursor already handed out. Ids (UUIDv7) and
--    creation times are taken before commit: a long transaction (an indexer range) commits
--    events whose ids are older than those of a withdrawal committed meanwhile, and a reader
--    that had moved past the withdrawal would never see them. So every event records the
--    transaction that wrote it (`txid`, PostgreSQL's 64-bit xid8, never wrapping), and the
--    feed orders by (txid, id) and only hands out events whose transaction is older than
--    every transaction still running (`txid < pg_snapshot_xmin(pg_current_snapshot())`):
--    anything that commits later has a txid at least that horizon, hence sorts after every
--    cursor given so far. Rows written before this migration read txid 0 (a constant
--    default: no table rewrite) and come first, in id order.
ALTER TABLE events ADD COLUMN txid xid8 NOT NULL DEFAULT '0';
ALTER TABLE events ALTER COLUMN txid SET DEFAULT pg_current_xact_id();
CREATE INDEX events_feed ON events (wallet_id, txid, id);

-- 2. Each event shows its latest delivery beside it (the feed's `delivery`): found by event.
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id, created_at DESC, id DESC);

-- 3. Live delivery across processes: every statement that writes events announces, on the
--    change channel the caches already listen to (db/changes.ts, CHANGES_CHANNEL), which
--    wallets and businesses have new events, as `events:<wallet id>:` and
--    `business-events:<business id>:`. pg_notify is transactional (sent at COMMIT, nothing
--    on rollback) and PostgreSQL folds repeats within a transaction, so an indexer range
--    of thousands of events sends one notification per wallet. The table stays the source
--    of truth: a notification only wakes the streams, which read the table after their cursor.
CREATE FUNCTION events_notify_feed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('wallet_service_changes', 'events:' || w.id::text || ':'),
          pg_notify('wallet_service_changes', 'business-events:' || w.business_id::text || ':')
     FROM (SELECT DISTINCT wallet_id FROM new_events) n
     JOIN wallets w ON w.id = n.wallet_id;
  RETURN NULL;
END
$$;

CREATE TRIGGER events_notify_feed AFTER INSERT ON events
  REFERENCING NEW TABLE AS new_events
  FOR EACH STATEMENT EXECUTE FUNCTION events_notify_feed();
