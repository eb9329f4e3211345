-- Key custody (docs/architecture.md, "Key custody").
--
-- master_keys: every master key that has sealed secrets in this database, by key id. A key
-- id is derived from the key itself (a key check value: HMAC of a fixed label for a local
-- key, a MAC computed inside the HSM for a PKCS#11 key), so a process started with a wrong
-- or lost key is refused before it writes anything. Rows are written at the first start
-- with a key (migrations run without the key, so they cannot) and by rotate-master-key.
--   active:   seals every new secret (exactly one)
--   retiring: a rotation is moving its secrets to the active key; still needed to open
--   retired:  nothing is sealed under it any more; it can be destroyed
CREATE TABLE master_keys (
  id            text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{16}$'),
  kind          text NOT NULL CHECK (kind IN ('local', 'pkcs11')),
  state         text NOT NULL CHECK (state IN ('active', 'retiring', 'retired')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  activated_at  timestamptz,
  retired_at    timestamptz
);
CREATE UNIQUE INDEX master_keys_one_active ON master_keys ((true)) WHERE state = 'active';

-- The account xpub moves under the vault: with the clear xpub, one exported child key gives
-- the account's private key (BIP32 non-hardened derivation). Existing rows keep their clear
-- xpub until the first start with the master key seals it and clears account_xpub (a
-- migration has no key); new wallets never write it.
ALTER TABLE wallets ALTER COLUMN account_xpub DROP NOT NULL;
ALTER TABLE wallets ADD COLUMN account_xpub_sealed bytea;
ALTER TABLE wallets ADD CONSTRAINT wallets_account_xpub_kept CHECK (account_xpub IS NOT NULL OR account_xpub_sealed IS NOT NULL);
-- Each start looks for clear xpubs left to seal: an index over what is left keeps that free.
CREATE INDEX wallets_clear_xpub_idx ON wallets (id) WHERE account_xpub IS NOT NULL;
