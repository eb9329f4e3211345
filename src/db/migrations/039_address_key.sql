-- address_key(): the SQL twin of src/chains/address-key.ts. Hex addresses (0x…, EVM) are
-- case-insensitive and compare lowercased; base58 addresses (Tron, Solana) are case-sensitive
-- and compare as written, so two spellings that differ in case are two different accounts.
-- Policies' velocity windows per destination count by it (a window of a Solana address
-- must not merge with its case look-alike's).
CREATE FUNCTION address_key(address text) RETURNS text
  LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
  RETURN CASE WHEN left(address, 2) IN ('0x', '0X') THEN lower(address) ELSE address END;

DROP INDEX transactions_recipient_created;
CREATE INDEX transactions_recipient_created ON transactions (address_key(recipient_address), created_at)
  WHERE type IN ('WITHDRAW', 'SIGNED', 'AUTO_SETTLEMENT', 'SWAP', 'CUSTOM_SMART_CONTRACT');
