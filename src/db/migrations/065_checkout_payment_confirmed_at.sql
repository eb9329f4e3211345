-- When the service saw a session's payment confirmed (its clock, in the transaction that
-- confirmed it, or released it from an AML hold): a session settles when what was confirmed
-- before its monitoring window ended reaches its threshold, however late it is next
-- recomputed (a worker behind, a page read just after the window). Before, the recompute's
-- own time decided, and a payment confirmed in time could end the session `invalid`.
ALTER TABLE checkout_payments ADD COLUMN confirmed_at timestamptz;

-- Payments confirmed before this column: when their transaction last changed (at or after
-- its confirmation), only where that was within the session's window.
UPDATE checkout_payments p
   SET confirmed_at = t.updated_at
  FROM transactions t, checkouts c
 WHERE t.id = p.transaction_id AND c.id = p.checkout_id
   AND t.status = 'SUCCESS' AND NOT t.aml_held AND t.updated_at < c.monitor_until AND p.confirmed_at IS NULL;
