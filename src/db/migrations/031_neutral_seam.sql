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

-- 2. Fee fields. What a transaction is signed with stays the family's own network data
-- (outbound_txs.network_data); the other tables keep one representation of it too.
-- Sweeps: the network data their transfer is signed with (Sender.fundedNetwork: EVM the
-- quoted gas limit and fees, which its top-up paid for), instead of three EVM columns that
-- only EVM sweeps filled.
UPDATE sweeps
   SET network = jsonb_build_object('gasLimit', gas_limit::text, 'maxFeePerGas', max_fee_per_gas::text,
                                    'maxPriorityFeePerGas', max_priority_fee_per_gas::text)
 WHERE network IS NULL AND gas_limit IS NOT NULL AND status <> 'failed';
ALTER TABLE sweeps DROP COLUMN gas_limit, DROP COLUMN max_fee_per_gas, DROP COLUMN max_priority_fee_per_gas;

-- Settlements: the network data a child sender's legs are signed with (the same rule), each
-- leg with its own limit (transfer_gas_limit for the transfer, in the family's units).
ALTER TABLE auto_settlements ADD COLUMN network jsonb CHECK (network IS NULL OR jsonb_typeof(network) = 'object');
UPDATE auto_settlements
   SET network = jsonb_build_object('maxFeePerGas', max_fee_per_gas::text, 'maxPriorityFeePerGas', max_priority_fee_per_gas::text)
 WHERE max_fee_per_gas IS NOT NULL AND max_priority_fee_per_gas IS NOT NULL;
ALTER TABLE auto_settlements DROP COLUMN max_fee_per_gas, DROP COLUMN max_priority_fee_per_gas;

-- Transactions: the public fee fields a signed transaction carried, as its family shows them
-- (ChainAdapter.fees.ofNetwork: EVM gasLimit, maxFeePerGas, maxPriorityFeePerGas; nothing
-- on families without them), for the record of withdrawals and contract calls.
ALTER TABLE transactions ADD COLUMN signed_fees jsonb CHECK (signed_fees IS NULL OR jsonb_typeof(signed_fees) = 'object');
UPDATE transactions
   SET signed_fees = jsonb_strip_nulls(jsonb_build_object('maxFeePerGas', max_fee_per_gas::text,
                                                          'maxPriorityFeePerGas', max_priority_fee_per_gas::text))
 WHERE max_fee_per_gas IS NOT NULL OR max_priority_fee_per_gas IS NOT NULL;
ALTER TABLE transactions DROP COLUMN max_fee_per_gas, DROP COLUMN max_priority_fee_per_gas;
