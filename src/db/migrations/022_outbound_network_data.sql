-- Family-specific fields of an outbound transaction leave the row's columns for one jsonb
-- (issue 14): the EVM family keeps its gas limit and EIP-1559 fee caps there; Tron and
-- Solana will keep theirs (fee_limit and expiration; blockhash and last valid height) in the
-- same place, and the lifecycle's columns stay the same for every family. Values are
-- decimal strings: money and gas never pass through a JSON number.
ALTER TABLE outbound_txs ADD COLUMN network_data jsonb NOT NULL DEFAULT '{}'::jsonb
  CHECK (jsonb_typeof(network_data) = 'object');

UPDATE outbound_txs
   SET network_data = jsonb_strip_nulls(jsonb_build_object(
         'gasLimit', gas_limit::text,
         'maxFeePerGas', max_fee_per_gas::text,
         'maxPriorityFeePerGas', max_priority_fee_per_gas::text));

ALTER TABLE outbound_txs
  DROP COLUMN gas_limit,
  DROP COLUMN max_fee_per_gas,
  DROP COLUMN max_priority_fee_per_gas;
