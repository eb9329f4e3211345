-- What transaction policies counted a row as, kept beside the row's public columns: the
-- velocity windows (policies/store.ts windowGroups) add up these, not the public ones,
-- because the two differ where a payout is not a plain transfer:
--   * a contract write that moves one catalogued asset (a token transfer, an approve, native
--     value) was decided as that amount to its beneficiary, while its row shows no amount and
--     the contract as recipient: counted by the public columns, a CONTRACT_WRITE window never
--     added up its transfers, and a DESTINATION window looked at the contract;
--   * a contract call signed for the client is a SIGNED row like a sign-only withdrawal, but
--     it was decided as CONTRACT_WRITE and must count there, not under SIGN_ONLY;
--   * swaps, settlement legs and recoveries show no amountUSD, while their decision had one:
--     a USD SUM window counted them as 0.
-- policy_type is the window family (BATCH_ITEM counts as WITHDRAW); NULL: a row no policy
-- decides (deposits, signed messages and typed data, staking), never counted.
ALTER TABLE transactions
  ADD COLUMN policy_type text
    CHECK (policy_type IN ('WITHDRAW', 'SIGN_ONLY', 'CONTRACT_WRITE', 'SWAP', 'SALVAGE', 'AUTO_SETTLEMENT')),
  ADD COLUMN policy_asset_id uuid REFERENCES assets(id),
  ADD COLUMN policy_amount numeric(78,0),
  ADD COLUMN policy_amount_usd numeric,
  ADD COLUMN policy_destination text;

-- Rows written before: counted as the windows counted them until now (their public columns),
-- but the signed contract call, which moves to CONTRACT_WRITE. It is told from a sign-only
-- withdrawal by having no asset and, as its reason, the JSON of its method and abi
-- (contracts/records.ts); a signed message or typed data has neither and is no longer
-- counted (no policy decides it). Only rows a window can still see: a window is at most 31
-- days (policies/schemas.ts), so older payouts are left alone (a long history is not
-- rewritten under this migration's lock); one retried later is counted then (its retry
-- writes these columns).
UPDATE transactions
   SET policy_type = CASE
         WHEN type = 'CUSTOM_SMART_CONTRACT' THEN 'CONTRACT_WRITE'
         WHEN type = 'SIGNED' AND asset_id IS NOT NULL THEN 'SIGN_ONLY'
         WHEN type = 'SIGNED' AND reason LIKE '{"method":%' THEN 'CONTRACT_WRITE'
         WHEN type = 'SIGNED' THEN NULL
         ELSE type END,
       policy_asset_id = asset_id,
       policy_amount = CASE WHEN asset_id IS NULL THEN NULL ELSE amount END,
       policy_amount_usd = CASE WHEN amount_usd ~ '^[0-9]+(\.[0-9]+)?$' THEN amount_usd::numeric END,
       policy_destination = recipient_address
 WHERE type IN ('WITHDRAW', 'SIGNED', 'CUSTOM_SMART_CONTRACT', 'SWAP', 'SALVAGE', 'AUTO_SETTLEMENT')
   AND policy_type IS NULL
   AND (created_at > now() - interval '32 days' OR counted_at > now() - interval '32 days');

-- The windows' look-ups: per wallet (WALLET scope) and per destination (DESTINATION scope).
DROP INDEX IF EXISTS transactions_recipient_created;
CREATE INDEX transactions_policy_destination ON transactions (address_key(policy_destination), created_at)
  WHERE policy_type IS NOT NULL;
CREATE INDEX transactions_policy_wallet ON transactions (wallet_id, policy_type, created_at)
  WHERE policy_type IS NOT NULL;

-- During a rolling deploy, instances still running the previous version go on writing
-- payouts without these columns; left NULL, those would count in no window of the new
-- instances for good. Such a row is filled as the backfill above fills one. This version
-- always fills them (NULL only where no policy decides: a signed message, which the
-- function leaves NULL too), so it changes nothing of its own rows.
CREATE FUNCTION transactions_policy_fill() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.policy_type := CASE
      WHEN NEW.type = 'CUSTOM_SMART_CONTRACT' THEN 'CONTRACT_WRITE'
      WHEN NEW.type = 'SIGNED' AND NEW.asset_id IS NOT NULL THEN 'SIGN_ONLY'
      WHEN NEW.type = 'SIGNED' AND NEW.reason LIKE '{"method":%' THEN 'CONTRACT_WRITE'
      WHEN NEW.type = 'SIGNED' THEN NULL
      ELSE NEW.type END;
  IF NEW.policy_type IS NOT NULL THEN
    NEW.policy_asset_id := NEW.asset_id;
    NEW.policy_amount := CASE WHEN NEW.asset_id IS NULL THEN NULL ELSE NEW.amount END;
    NEW.policy_amount_usd := CASE WHEN NEW.amount_usd ~ '^[0-9]+(\.[0-9]+)?$' THEN NEW.amount_usd::numeric END;
    NEW.policy_destination := NEW.recipient_address;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER transactions_policy_fill BEFORE INSERT ON transactions FOR EACH ROW
  WHEN (NEW.policy_type IS NULL AND NEW.type IN ('WITHDRAW', 'SIGNED', 'CUSTOM_SMART_CONTRACT', 'SWAP', 'SALVAGE', 'AUTO_SETTLEMENT'))
  EXECUTE FUNCTION transactions_policy_fill();
