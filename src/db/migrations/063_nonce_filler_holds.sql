-- A row voided before it was signed (a withdrawal cancelled then, or one whose estimate
-- reverted) hands its nonce to a 0-value self-transfer, which pays its fee from the sender's
-- native coin; the voided row's own hold ended with it (the withdrawal CANCELLED at once).
-- withdrawals/store.ts heldBack now holds the voided row's fee ceiling while the filler is in
-- flight, and since a time once it settled, on every payout from the sender: among fillers
-- only (a sender has many rows), one index per arm.
CREATE INDEX outbound_txs_fillers_live ON outbound_txs (chain_id, from_address)
  WHERE purpose = 'nonce-filler' AND stage IN ('created', 'signed', 'broadcast');
CREATE INDEX outbound_txs_fillers_settled ON outbound_txs (chain_id, from_address, updated_at)
  WHERE purpose = 'nonce-filler' AND stage IN ('mined', 'failed');
