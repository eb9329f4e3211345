-- Contract writes that move a wallet's assets obey the withdrawal rules (whitelist, balance
-- reservation). What a write moves, or lets a spender move, is recorded in the transaction
-- that creates the write, so the balance check of every later withdrawal and contract
-- write of the owner holds it back (modules/withdrawals/funds.ts).

-- One row per asset a contract write moves while it is PENDING, and for a while after
-- (see funds.ts: "settled since the balance was read").
CREATE TABLE contract_moves (
  transaction_id  uuid NOT NULL REFERENCES transactions(id) ON DELETE CASCADE,
  -- A call may move two things (a token call carrying native value): one row each.
  position        smallint NOT NULL CHECK (position >= 0),
  chain_id        uuid NOT NULL REFERENCES chains(id),
  -- Whose asset moves: the calling address, or (transferFrom) the wallet address pulled from.
  owner_address   text NOT NULL,
  asset_id        uuid NOT NULL REFERENCES assets(id),
  amount          numeric(78,0) NOT NULL CHECK (amount >= 0),
  -- transfer: `amount` leaves the owner once mined. allowance: approve / increaseAllowance,
  -- held while the call is pending; once mined the allowance itself is held (below).
  kind            text NOT NULL CHECK (kind IN ('transfer', 'allowance')),
  -- The recipient (transfer) or the spender (allowance).
  beneficiary     text NOT NULL,
  -- When the write left PENDING, set with its status (same transaction, same now()); NULL
  -- while pending; -infinity for sign-only writes, which reserve nothing (as sign-only
  -- withdrawals).
  settled_at      timestamptz,
  PRIMARY KEY (transaction_id, position)
);
CREATE INDEX contract_moves_held ON contract_moves (chain_id, owner_address, settled_at);

-- Every (owner, token, spender) an allowance was ever granted through a contract write: the
-- spender may pull at any time, so each balance check of the owner reads these allowances on
-- chain and holds them back for as long as they stand.
CREATE TABLE contract_spenders (
  chain_id       uuid NOT NULL REFERENCES chains(id),
  owner_address  text NOT NULL,
  token_address  text NOT NULL,
  spender        text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, owner_address, token_address, spender)
);

-- Contract writes now reserve their gas (reserved_fee) like withdrawals; the reservation
-- reads cover every spending type, so they get indexes that match their predicate.
CREATE INDEX transactions_spending_pending ON transactions (chain_id, sender_address)
  WHERE type IN ('WITHDRAW', 'SWAP', 'AUTO_SETTLEMENT', 'CUSTOM_SMART_CONTRACT') AND status = 'PENDING';
CREATE INDEX transactions_spending_settled ON transactions (chain_id, sender_address, updated_at)
  WHERE type IN ('WITHDRAW', 'SWAP', 'AUTO_SETTLEMENT', 'CUSTOM_SMART_CONTRACT');
