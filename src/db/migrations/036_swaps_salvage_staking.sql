-- Issue 27: swaps through the API, asset recovery (salvage) and staking.

-- An amount whose asset the catalogue does not list (a salvaged token) is shown in the
-- token's own decimals, read on chain when the salvage was made; NULL: the asset's (or the
-- native coin's) decimals, as before.
ALTER TABLE transactions ADD COLUMN amount_decimals smallint CHECK (amount_decimals BETWEEN 0 AND 77);

-- Salvages and stakes spend the sender's funds like withdrawals: the reservation reads
-- (withdrawals/store.ts heldBack) cover them, and their indexes match the wider predicate.
DROP INDEX transactions_spending_pending;
DROP INDEX transactions_spending_settled;
CREATE INDEX transactions_spending_pending ON transactions (chain_id, sender_address)
  WHERE type IN ('WITHDRAW', 'SWAP', 'AUTO_SETTLEMENT', 'CUSTOM_SMART_CONTRACT', 'SALVAGE', 'STAKING') AND status = 'PENDING';
CREATE INDEX transactions_spending_settled ON transactions (chain_id, sender_address, updated_at)
  WHERE type IN ('WITHDRAW', 'SWAP', 'AUTO_SETTLEMENT', 'CUSTOM_SMART_CONTRACT', 'SALVAGE', 'STAKING');

-- A swap quote given to a client: executed by its id until it expires (then quoted again,
-- never executed at its stale rate), once.
CREATE TABLE swap_quotes (
  id                 uuid PRIMARY KEY,
  wallet_id          uuid NOT NULL REFERENCES wallets(id),
  address_id         uuid REFERENCES addresses(id),
  chain_id           uuid NOT NULL REFERENCES chains(id),
  from_asset_id      uuid NOT NULL REFERENCES assets(id),
  to_asset_id        uuid NOT NULL REFERENCES assets(id),
  amount_in          numeric(78,0) NOT NULL CHECK (amount_in > 0),
  amount_out         numeric(78,0) NOT NULL,
  min_out            numeric(78,0) NOT NULL,
  "order"            text NOT NULL,
  slippage_tolerance text NOT NULL,
  recipient          text,
  -- Route, reference and gas as quoted (decimal strings).
  plan               jsonb NOT NULL CHECK (jsonb_typeof(plan) = 'object'),
  expires_at         timestamptz NOT NULL,
  -- The swap (transaction id) that used it; a quote is executed once.
  used_by            uuid,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX swap_quotes_expired ON swap_quotes (expires_at) WHERE used_by IS NULL;

-- A swap executed through the API (its SWAP transaction has the same id): from the master
-- address or a child (a gas top-up first), [approve(0)] [approve] and the router's swap,
-- whose minimum output and deadline are signed into it; the output goes straight to the
-- recipient. Stages: topup -> sending -> swapped (final: the output is read) -> done | failed.
CREATE TABLE swaps (
  id                 uuid PRIMARY KEY REFERENCES transactions(id),
  wallet_id          uuid NOT NULL REFERENCES wallets(id),
  address_id         uuid REFERENCES addresses(id),
  chain_id           uuid NOT NULL REFERENCES chains(id),
  from_index         integer NOT NULL CHECK (from_index >= 0),
  sender             text NOT NULL,
  recipient          text NOT NULL,
  asset_in_id        uuid NOT NULL REFERENCES assets(id),
  asset_out_id       uuid NOT NULL REFERENCES assets(id),
  amount_in          numeric(78,0) NOT NULL CHECK (amount_in > 0),
  min_out            numeric(78,0) NOT NULL,
  plan               jsonb NOT NULL CHECK (jsonb_typeof(plan) = 'object'),
  status             text NOT NULL CHECK (status IN ('pending', 'success', 'failed')),
  stage              text NOT NULL CHECK (stage IN ('topup', 'sending', 'swapped', 'done', 'failed')),
  amount_out         numeric(78,0),
  error              text,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX swaps_in_flight ON swaps (chain_id, sender) WHERE status = 'pending';

-- An asset recovery (its SALVAGE transaction has the same id): one transfer from an address
-- of the wallet, its fee funded as a sweep's is (a top-up, or resources lent and taken back).
-- Stages: topup -> lend -> transfer -> give_back -> done | failed.
CREATE TABLE salvages (
  id                    uuid PRIMARY KEY REFERENCES transactions(id),
  wallet_id             uuid NOT NULL REFERENCES wallets(id),
  chain_id              uuid NOT NULL REFERENCES chains(id),
  -- The sender's derivation index (0: the master), or NULL for an address whose key was imported.
  from_index            integer CHECK (from_index >= 0),
  sender                text NOT NULL,
  recipient             text NOT NULL,
  -- The token moved; NULL: the native coin.
  token                 text,
  amount                numeric(78,0) NOT NULL CHECK (amount > 0),
  -- The transfer's fixed network data (what its funding paid for), and the lend and give-back steps.
  network               jsonb NOT NULL CHECK (jsonb_typeof(network) = 'object'),
  lend                  jsonb CHECK (lend IS NULL OR jsonb_typeof(lend) = 'object'),
  give_back             jsonb CHECK (give_back IS NULL OR jsonb_typeof(give_back) = 'object'),
  -- The whole balance moves: the family may close what held it (Solana: the token account, its rent to the fee payer).
  whole_balance         boolean NOT NULL DEFAULT false,
  status                text NOT NULL CHECK (status IN ('pending', 'success', 'failed')),
  stage                 text NOT NULL CHECK (stage IN ('topup', 'lend', 'transfer', 'give_back', 'done', 'failed')),
  topup_outbound_id     uuid REFERENCES outbound_txs(id),
  lend_outbound_id      uuid REFERENCES outbound_txs(id),
  transfer_outbound_id  uuid REFERENCES outbound_txs(id),
  give_back_outbound_id uuid REFERENCES outbound_txs(id),
  error                 text,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX salvages_in_flight ON salvages (chain_id, sender) WHERE status = 'pending';
