-- The outbound pipeline: one row per on-chain transaction we send (gas top-ups, sweeps,
-- withdrawals, contract calls, nonce fillers). Sweeps and withdrawals point at their rows
-- through owner_id and learn the outcome from the completion handler of their purpose.
--
-- Lifecycle (stage):
--   created   -> nonce allocated, row and its send job written in the caller's transaction
--   signed    -> raw and hash stored BEFORE any broadcast; from here on the same bytes are
--                re-broadcast after any crash, never re-signed, so one nonce never yields
--                two different transactions of ours
--   broadcast -> a node accepted the raw at least once (re-broadcast while unmined)
--   mined     -> receipt status success               (terminal)
--   failed    -> mined with receipt status reverted   (terminal; the fee was paid)
--   dropped   -> never mined and never will be: a transaction that is not ours used the
--                nonce (terminal)
--   replaced  -> this row gave its nonce to another row (replaced_by): e.g. a row whose
--                transaction would revert is voided before signing and a 0-value
--                self-transfer fills its nonce, so later nonces are not blocked (terminal)

CREATE TABLE outbound_txs (
  id                        uuid PRIMARY KEY,
  chain_id                  uuid NOT NULL REFERENCES chains(id),
  wallet_id                 uuid NOT NULL REFERENCES wallets(id),
  from_address              text NOT NULL,
  from_index                integer NOT NULL CHECK (from_index >= 0),
  nonce                     bigint NOT NULL CHECK (nonce >= 0),
  to_address                text NOT NULL,
  value                     numeric(78,0) NOT NULL CHECK (value >= 0),
  data                      text,
  -- Given by the caller, or estimated (with a margin) when the row is signed.
  gas_limit                 numeric(78,0) CHECK (gas_limit > 0),
  max_fee_per_gas           numeric(78,0) CHECK (max_fee_per_gas >= 0),
  max_priority_fee_per_gas  numeric(78,0) CHECK (max_priority_fee_per_gas >= 0),
  raw                       text,
  hash                      text,
  stage                     text NOT NULL CHECK (stage IN ('created', 'signed', 'broadcast', 'mined', 'failed', 'dropped', 'replaced')),
  purpose                   text NOT NULL,
  owner_id                  uuid,
  -- Deferred: the original steps aside before the row that takes its nonce is inserted.
  replaced_by               uuid REFERENCES outbound_txs(id) DEFERRABLE INITIALLY DEFERRED,
  block_number              bigint,
  block_hash                text,
  gas_used                  numeric(78,0),
  effective_gas_price       numeric(78,0),
  status                    text CHECK (status IN ('success', 'reverted')),
  error                     text,
  -- Broadcasts made (accepted or not), re-broadcasts included.
  attempts                  integer NOT NULL DEFAULT 0,
  -- When a node first said the nonce is used by a transaction it does not know as ours;
  -- the row is declared dropped only if that is still true after a grace period.
  conflict_seen_at          timestamptz,
  created_at                timestamptz NOT NULL DEFAULT now(),
  updated_at                timestamptz NOT NULL DEFAULT now(),
  broadcast_at              timestamptz,
  CHECK (stage IN ('created', 'replaced') OR (raw IS NOT NULL AND hash IS NOT NULL)),
  CHECK (stage <> 'created' OR raw IS NULL),
  CHECK ((stage IN ('mined', 'failed')) = (status IS NOT NULL))
);

-- At most one live row per (chain, sender, nonce): two concurrent allocations, a bug or a
-- replayed job can never produce two different transactions of ours for one nonce (which
-- would race each other on chain, and whichever lost would look "failed" while the other
-- moved money). A replacement must reuse its original's nonce, hence the predicate: the
-- original steps aside as 'replaced' in the same database transaction that inserts its
-- replacement.
CREATE UNIQUE INDEX outbound_txs_live_nonce ON outbound_txs (chain_id, from_address, nonce) WHERE stage <> 'replaced';
CREATE UNIQUE INDEX outbound_txs_hash ON outbound_txs (chain_id, hash) WHERE hash IS NOT NULL;
CREATE INDEX outbound_txs_owner ON outbound_txs (owner_id) WHERE owner_id IS NOT NULL;
-- The safety net's scan of unfinished rows.
CREATE INDEX outbound_txs_unfinished ON outbound_txs (updated_at) WHERE stage IN ('created', 'signed', 'broadcast');
