-- Initial schema: every resource of the spec. Amounts are numeric(78,0) base units (a
-- uint256 has 78 decimal digits); nothing here is ever a float.

CREATE TABLE blockchains (
  id                uuid PRIMARY KEY,
  slug              text NOT NULL UNIQUE,
  name              text NOT NULL,
  symbol            text NOT NULL,
  derivation_path   text NOT NULL,
  is_evm_compatible boolean NOT NULL,
  is_l2             boolean NOT NULL DEFAULT false,
  logo_url          text NOT NULL DEFAULT '',
  token_standard    text,
  is_active         boolean NOT NULL DEFAULT false,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- One row per (blockchain, network): the unit a wallet, an RPC endpoint and a cursor belong to.
CREATE TABLE chains (
  id             uuid PRIMARY KEY,
  blockchain_id  uuid NOT NULL REFERENCES blockchains(id),
  network        text NOT NULL CHECK (network IN ('mainnet', 'testnet')),
  chain_id       bigint NOT NULL,
  confirmations  integer NOT NULL CHECK (confirmations >= 0),
  is_active      boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (blockchain_id, network)
);

CREATE TABLE assets (
  id          uuid PRIMARY KEY,
  chain_id    uuid NOT NULL REFERENCES chains(id),
  name        text NOT NULL,
  symbol      text NOT NULL,
  address     text NOT NULL,
  decimals    integer NOT NULL CHECK (decimals BETWEEN 0 AND 77),
  standard    text,
  is_native   boolean NOT NULL DEFAULT false,
  currency    text,
  logo_url    text NOT NULL DEFAULT '',
  is_active   boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (chain_id, address)
);

CREATE TABLE businesses (
  id          uuid PRIMARY KEY,
  name        text NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE wallets (
  id               uuid PRIMARY KEY,
  business_id      uuid NOT NULL REFERENCES businesses(id),
  chain_id         uuid NOT NULL REFERENCES chains(id),
  name             text NOT NULL,
  description      text NOT NULL DEFAULT '',
  address          text NOT NULL,
  derivation_path  text NOT NULL,
  -- Extended public key of the account node: child addresses are derived from it without
  -- decrypting the seed. The seed itself is only ever stored encrypted.
  account_xpub     text NOT NULL,
  seed_ciphertext  bytea NOT NULL,
  next_index       integer NOT NULL DEFAULT 1 CHECK (next_index >= 1),
  address_limit    integer NOT NULL CHECK (address_limit >= 0),
  is_active        boolean NOT NULL DEFAULT true,
  status           text NOT NULL DEFAULT 'ACTIVE',
  configurations   jsonb NOT NULL,
  webhook_url      text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (chain_id, address)
);
CREATE INDEX wallets_business_idx ON wallets (business_id, created_at);

-- wallet_id NULL = a business-level key (creates and lists wallets).
CREATE TABLE api_keys (
  id           uuid PRIMARY KEY,
  business_id  uuid NOT NULL REFERENCES businesses(id),
  wallet_id    uuid REFERENCES wallets(id),
  prefix       text NOT NULL,
  key_hash     bytea NOT NULL UNIQUE,
  -- The wallet key is also the webhook HMAC secret (spec), so a recoverable copy is kept,
  -- encrypted under the key-encryption key.
  key_ciphertext bytea NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);
CREATE UNIQUE INDEX api_keys_one_live_per_wallet ON api_keys (wallet_id) WHERE revoked_at IS NULL AND wallet_id IS NOT NULL;

CREATE TABLE wallet_assets (
  id          uuid PRIMARY KEY,
  wallet_id   uuid NOT NULL REFERENCES wallets(id),
  asset_id    uuid NOT NULL REFERENCES assets(id),
  is_active   boolean NOT NULL DEFAULT true,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  UNIQUE (wallet_id, asset_id)
);

CREATE TABLE addresses (
  id               uuid PRIMARY KEY,
  wallet_id        uuid NOT NULL REFERENCES wallets(id),
  chain_id         uuid NOT NULL REFERENCES chains(id),
  -- NULL for EXTERNAL addresses, which the service holds no key for.
  derivation_index integer CHECK (derivation_index >= 1),
  address          text NOT NULL,
  name             text,
  metadata         jsonb,
  type             text NOT NULL CHECK (type IN ('INTERNAL', 'EXTERNAL')),
  derivation_path  text,
  is_active        boolean NOT NULL DEFAULT true,
  configurations   jsonb NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (wallet_id, derivation_index)
);
CREATE UNIQUE INDEX addresses_wallet_address ON addresses (wallet_id, lower(address));
CREATE INDEX addresses_chain_address ON addresses (chain_id, lower(address));
CREATE INDEX addresses_wallet_created ON addresses (wallet_id, created_at, id);

CREATE TABLE transactions (
  id                  uuid PRIMARY KEY,
  wallet_id           uuid NOT NULL REFERENCES wallets(id),
  address_id          uuid REFERENCES addresses(id),
  asset_id            uuid REFERENCES assets(id),
  chain_id            uuid NOT NULL REFERENCES chains(id),
  reference           text NOT NULL,
  type                text NOT NULL,
  status              text NOT NULL CHECK (status IN ('PENDING', 'SUCCESS', 'FAILED', 'CANCELLED')),
  -- Internal lifecycle: created -> signed -> broadcast -> mined -> confirmed, or failed,
  -- replaced, dropped. The public status is derived from it and stored for filtering.
  stage               text NOT NULL DEFAULT 'created',
  confirmed           boolean NOT NULL DEFAULT false,
  confirmations       integer,
  amount              numeric(78,0),
  amount_paid         numeric(78,0),
  amount_usd          text,
  currency            text,
  rate                text,
  rate_usd            text,
  to_amount           numeric(78,0),
  to_currency         text,
  fee                 numeric(78,0),
  fee_hash            text,
  fee_metadata        jsonb,
  gas_fee             numeric(78,0),
  gas_price           numeric(78,0),
  gas_used            numeric(78,0),
  hash                text,
  log_index           integer,
  block_hash          text,
  block_number        bigint,
  sender_address      text,
  recipient_address   text,
  token_address       text,
  note                text,
  reason              text,
  metadata            jsonb,
  network             text NOT NULL,
  created_channel     text,
  signed_transaction  jsonb,
  aml_screening       jsonb,
  nonce               bigint,
  raw_transaction     text,
  max_fee_per_gas     numeric(78,0),
  max_priority_fee_per_gas numeric(78,0),
  asset_swept                   boolean NOT NULL DEFAULT false,
  asset_swept_amount            numeric(78,0),
  asset_swept_at                timestamptz,
  asset_swept_gas_fee           numeric(78,0),
  asset_swept_hash              text,
  asset_swept_recipient_address text,
  asset_swept_sender_address    text,
  asset_swept_response          jsonb,
  response            jsonb,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now(),
  UNIQUE (wallet_id, reference)
);
-- A deposit is one log (or one top-level transfer, log_index -1) of one chain transaction:
-- replays and concurrent indexers can never credit it twice.
CREATE UNIQUE INDEX transactions_deposit_unique ON transactions (chain_id, hash, log_index) WHERE type = 'DEPOSIT';
CREATE INDEX transactions_wallet_created ON transactions (wallet_id, created_at DESC, id DESC);
CREATE INDEX transactions_address_created ON transactions (address_id, created_at DESC, id DESC);
CREATE INDEX transactions_hash ON transactions (hash);

CREATE TABLE auto_settlement_configs (
  id          uuid PRIMARY KEY,
  wallet_id   uuid NOT NULL REFERENCES wallets(id),
  address_id  uuid REFERENCES addresses(id),
  name        text NOT NULL DEFAULT '',
  is_active   boolean NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX auto_settlement_configs_owner ON auto_settlement_configs (wallet_id, coalesce(address_id, '00000000-0000-0000-0000-000000000000'::uuid));

CREATE TABLE auto_settlement_rules (
  id                  uuid PRIMARY KEY,
  wallet_id           uuid NOT NULL REFERENCES wallets(id),
  address_id          uuid REFERENCES addresses(id),
  name                text NOT NULL,
  is_active           boolean NOT NULL DEFAULT true,
  "order"             text NOT NULL CHECK ("order" IN ('FASTEST', 'CHEAPEST', 'RECOMMENDED', 'NO_SLIPPAGE')),
  slippage_tolerance  numeric(10,4) NOT NULL DEFAULT 0 CHECK (slippage_tolerance >= 0),
  source              jsonb NOT NULL,
  destination         jsonb NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  updated_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auto_settlement_rules_owner ON auto_settlement_rules (wallet_id, address_id);

CREATE TABLE beneficiaries (
  id                    uuid PRIMARY KEY,
  wallet_id             uuid NOT NULL REFERENCES wallets(id),
  name                  text NOT NULL,
  address               text NOT NULL,
  is_active             boolean NOT NULL DEFAULT true,
  is_default            boolean NOT NULL DEFAULT false,
  is_settlement         boolean NOT NULL DEFAULT false,
  is_whitelisted        boolean NOT NULL DEFAULT false,
  settlement_frequency  text CHECK (settlement_frequency IN ('INSTANT', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY')),
  deleted_at            timestamptz,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX beneficiaries_wallet ON beneficiaries (wallet_id) WHERE deleted_at IS NULL;

-- Outbox: an event row is written in the same database transaction as the state change
-- that causes it; deliveries are made from it by jobs.
CREATE TABLE events (
  id              uuid PRIMARY KEY,
  wallet_id       uuid NOT NULL REFERENCES wallets(id),
  transaction_id  uuid REFERENCES transactions(id),
  name            text NOT NULL,
  reference       text NOT NULL,
  -- The event's `data` (a Transaction) as it was when the event happened.
  payload         jsonb NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_transaction ON events (transaction_id, created_at DESC, id DESC);

CREATE TABLE webhook_deliveries (
  id              uuid PRIMARY KEY,
  event_id        uuid NOT NULL REFERENCES events(id),
  wallet_id       uuid NOT NULL REFERENCES wallets(id),
  transaction_id  uuid REFERENCES transactions(id),
  event           text NOT NULL,
  reference       text NOT NULL,
  url             text NOT NULL,
  -- The exact bytes that are signed and sent, identical for every attempt.
  body            text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'success', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  max_attempts    integer NOT NULL,
  -- When the next attempt is due (service clock). Claiming an attempt moves it to the
  -- following slot first, so a worker dying mid-attempt leaves the schedule intact.
  next_attempt_at timestamptz,
  last_attempt_at timestamptz,
  last_status_code integer,
  response        text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL
);
CREATE INDEX webhook_deliveries_wallet ON webhook_deliveries (wallet_id, created_at DESC, id DESC);
CREATE INDEX webhook_deliveries_transaction ON webhook_deliveries (transaction_id, created_at DESC);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';

-- One row per attempt; the unique key is what makes an attempt impossible to make twice.
CREATE TABLE webhook_attempts (
  id              uuid PRIMARY KEY,
  delivery_id     uuid NOT NULL REFERENCES webhook_deliveries(id),
  attempt         integer NOT NULL,
  attempted_at    timestamptz NOT NULL,
  status_code     integer,
  response        text,
  error           text,
  duration_ms     integer,
  finished_at     timestamptz,
  UNIQUE (delivery_id, attempt)
);

-- Nonces are allocated here, never from a process's memory: no gaps, no duplicates.
CREATE TABLE nonces (
  chain_id    uuid NOT NULL REFERENCES chains(id),
  address     text NOT NULL,
  next_nonce  bigint NOT NULL CHECK (next_nonce >= 0),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain_id, address)
);

CREATE TABLE chain_cursors (
  chain_id      uuid PRIMARY KEY REFERENCES chains(id),
  block_number  bigint NOT NULL,
  block_hash    text,
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- Block hashes of the unconfirmed window, to detect reorgs.
CREATE TABLE chain_blocks (
  chain_id      uuid NOT NULL REFERENCES chains(id),
  block_number  bigint NOT NULL,
  block_hash    text NOT NULL,
  parent_hash   text NOT NULL,
  PRIMARY KEY (chain_id, block_number)
);

CREATE TABLE audit_log (
  id           uuid PRIMARY KEY,
  business_id  uuid REFERENCES businesses(id),
  wallet_id    uuid REFERENCES wallets(id),
  actor        text NOT NULL,
  action       text NOT NULL,
  target_type  text,
  target_id    uuid,
  details      jsonb,
  request_id   text,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_wallet ON audit_log (wallet_id, created_at DESC);
