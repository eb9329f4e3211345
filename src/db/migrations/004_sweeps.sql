-- Sweeps: moving confirmed deposits from child addresses to the master address.
-- One sweep moves one asset's whole balance of one child address; for a token it may need
-- a gas top-up from the master first. The unique index keeps one sweep (and so at most one
-- top-up) in flight per address and asset, whatever the number of deposits, workers and
-- restarts.
CREATE TABLE sweeps (
  id                    uuid PRIMARY KEY,
  wallet_id             uuid NOT NULL REFERENCES wallets(id),
  address_id            uuid NOT NULL REFERENCES addresses(id),
  chain_id              uuid NOT NULL REFERENCES chains(id),
  asset_id              uuid NOT NULL REFERENCES assets(id),
  status                text NOT NULL CHECK (status IN ('pending', 'success', 'failed')),
  stage                 text NOT NULL CHECK (stage IN ('topup', 'transfer', 'done', 'failed')),
  amount                numeric(78,0) NOT NULL CHECK (amount > 0),
  gas_limit             numeric(78,0) NOT NULL,
  max_fee_per_gas       numeric(78,0) NOT NULL,
  max_priority_fee_per_gas numeric(78,0) NOT NULL,
  topup_outbound_id     uuid REFERENCES outbound_txs(id),
  transfer_outbound_id  uuid REFERENCES outbound_txs(id),
  error                 text,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX sweeps_one_in_flight ON sweeps (address_id, asset_id) WHERE status = 'pending';

-- The sweep that moved (or is moving) a deposit.
ALTER TABLE transactions ADD COLUMN sweep_id uuid REFERENCES sweeps(id);
CREATE INDEX transactions_unswept ON transactions (address_id, asset_id) WHERE type = 'DEPOSIT' AND status = 'SUCCESS' AND asset_swept = false;
