-- Withdrawals: idempotency keys, balance reservations, and the lookups that replacing a
-- stuck outbound transaction needs.

-- Idempotency-Key header (Stripe semantics), scoped per wallet. The row is inserted in the
-- database transaction that creates the withdrawals and holds their response, so a key is
-- either stored with the response of work that committed, or not stored at all (a failed
-- request can be retried with the same key). A concurrent request with the same key waits
-- on the unique index until the first one ends, then replays its response.
CREATE TABLE idempotency_keys (
  wallet_id    uuid NOT NULL REFERENCES wallets(id),
  key          text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  -- sha256 of the operation (endpoint and path ids) and the canonical JSON body.
  fingerprint  text NOT NULL,
  response     jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (wallet_id, key)
);
-- For pruning keys past their useful life.
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- What a PENDING withdrawal may spend on gas (gas limit x fee cap at acceptance), reserved
-- from the sender's native balance together with the amounts of pending withdrawals.
ALTER TABLE transactions ADD COLUMN reserved_fee numeric(78,0) CHECK (reserved_fee >= 0);
-- The reservation reads, made under the sender's lock for every withdrawal: its PENDING
-- withdrawals, and those settled since the sender's balance was read.
CREATE INDEX transactions_pending_withdrawals ON transactions (chain_id, sender_address)
  WHERE type = 'WITHDRAW' AND status = 'PENDING';
CREATE INDEX transactions_withdrawals_settled ON transactions (chain_id, sender_address, updated_at)
  WHERE type = 'WITHDRAW';

-- Earlier versions of a replaced (sped-up or cancelled) outbound transaction: its tracker
-- looks them up on every poll, since any of them may be the one that gets mined.
CREATE INDEX outbound_txs_replaced_by ON outbound_txs (replaced_by) WHERE replaced_by IS NOT NULL;
