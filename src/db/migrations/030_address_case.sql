-- Base58 addresses (Tron T…, Solana) are case-sensitive: two spellings that differ in case
-- are two addresses (chains/address-key.ts). The unique indexes compared lower(address),
-- so a wallet could not hold two such addresses, nor two wallets import keys for them.
-- They now compare hex (EVM, 0x…) addresses lowercased and base58 ones as written; the
-- lookup indexes on lower(address) stay (queries keep that term, db/address-sql.ts).
DROP INDEX addresses_wallet_address;
CREATE UNIQUE INDEX addresses_wallet_address
  ON addresses (wallet_id, (CASE WHEN address ILIKE '0x%' THEN lower(address) ELSE address END));
DROP INDEX beneficiaries_wallet_address;
CREATE UNIQUE INDEX beneficiaries_wallet_address
  ON beneficiaries (wallet_id, (CASE WHEN address ILIKE '0x%' THEN lower(address) ELSE address END)) WHERE deleted_at IS NULL;
DROP INDEX address_keys_one_holder;
CREATE UNIQUE INDEX address_keys_one_holder
  ON address_keys (chain_id, (CASE WHEN address ILIKE '0x%' THEN lower(address) ELSE address END));
