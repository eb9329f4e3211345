-- Imported private keys of whitelisted addresses (issue 12, item 2).
--
-- `POST .../addresses/whitelist` with `privateKey` turns an outside address into one the
-- service can sweep. Such a key is not derived from the wallet's seed, so it is kept apart:
-- sealed by the key vault like the seeds, in its own table (secrets only, read only to sign),
-- while the address row carries a flag for the readers that only need to know it is there
-- (presentation, the indexer's watch set, auto-sweep).

CREATE TABLE address_keys (
  -- The address the key signs for (type EXTERNAL, key_imported = true).
  address_id      uuid PRIMARY KEY REFERENCES addresses(id),
  wallet_id       uuid NOT NULL REFERENCES wallets(id),
  chain_id        uuid NOT NULL REFERENCES chains(id),
  address         text NOT NULL,
  -- The 32-byte secp256k1 key sealed by the key vault; associated data: address_id.
  key_ciphertext  bytea NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);
-- One holder per address and chain: the service never holds a key for an address twice
-- (two imports racing each other, in any wallets or businesses).
CREATE UNIQUE INDEX address_keys_one_holder ON address_keys (chain_id, lower(address));
CREATE INDEX address_keys_wallet ON address_keys (wallet_id);

ALTER TABLE addresses ADD COLUMN key_imported boolean NOT NULL DEFAULT false;

-- A transaction sent from an imported address has no derivation index: it is signed with
-- the wallet's imported key for from_address.
ALTER TABLE outbound_txs ALTER COLUMN from_index DROP NOT NULL;

-- The indexer's watch set credits an address whose key the service holds to that wallet
-- alone, so a change of key_imported is a change it must pick up (see migration 006).
DROP TRIGGER addresses_watch_xid ON addresses;
CREATE TRIGGER addresses_watch_xid BEFORE UPDATE ON addresses FOR EACH ROW
  WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at OR OLD.address IS DISTINCT FROM NEW.address OR OLD.wallet_id IS DISTINCT FROM NEW.wallet_id
        OR OLD.key_imported IS DISTINCT FROM NEW.key_imported)
  EXECUTE FUNCTION addresses_touch_watch_xid();

-- The wallet's analytics (GET /v1/wallets/{walletId}) count its transactions by type and
-- status on every read: an index-only scan of the wallet's entries instead of its rows.
CREATE INDEX transactions_wallet_type_status ON transactions (wallet_id, type, status);
