-- The chain seam in family-neutral terms (issue 25): what the service stores of a
-- transaction no longer speaks one family's vocabulary.

-- 1. Receipts. A mined outbound transaction keeps the seam's neutral receipt: its block
-- (block_number, block_hash), its status, what it cost its fee payer in the native coin's
-- base units (fee: EVM gas used x effective gas price; Tron the TRX burned; Solana the fee
-- and the rent of accounts it opened), and the family's own figures as they are
-- (receipt_details, decimal strings: EVM gasUsed and effectiveGasPrice; Tron energyUsed and
-- bandwidthUsed; Solana rentPaid and rentReclaimed). The family maps them onto the public
-- fee fields (chains/receipts.ts, FeeReport).
ALTER TABLE outbound_txs
  ADD COLUMN fee numeric(78,0) CHECK (fee >= 0),
  ADD COLUMN receipt_details jsonb CHECK (receipt_details IS NULL OR jsonb_typeof(receipt_details) = 'object');
UPDATE outbound_txs
   SET fee = gas_used * effective_gas_price,
       receipt_details = jsonb_strip_nulls(jsonb_build_object(
         'gasUsed', gas_used::text,
         'effectiveGasPrice', effective_gas_price::text,
         'energyUsed', resources_used->>'energy',
         'bandwidthUsed', resources_used->>'bandwidth',
         'rentPaid', resources_used->>'rentPaid',
         'rentReclaimed', resources_used->>'rentReclaimed'))
 WHERE status IS NOT NULL;
ALTER TABLE outbound_txs
  DROP COLUMN gas_used,
  DROP COLUMN effective_gas_price,
  DROP COLUMN resources_used,
  ADD CHECK ((status IS NULL) = (fee IS NULL) AND (status IS NULL) = (receipt_details IS NULL));

-- A settlement's swap plan keeps the swap's receipt as the Transaction shows it, its block
-- as one pointer ({ number, hash }) like every receipt now.
UPDATE auto_settlements
   SET swap = jsonb_set(swap #- '{mined,blockNumber}' #- '{mined,blockHash}', '{mined,block}',
                        jsonb_build_object('number', swap->'mined'->'blockNumber', 'hash', swap->'mined'->'blockHash'))
 WHERE swap ? 'mined' AND swap->'mined' ? 'blockHash';
