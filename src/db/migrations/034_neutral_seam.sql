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

-- 3. Typed intents. An outbound row says what it sends as the seam's intent
-- (chains/intents.ts): `native` (to_address, value: the amount), `token` (token, to_address:
-- the recipient, value: the amount; more: the other payments of a batch, [{ to, amount }]) or
-- `call` (to_address: the contract, value, data: the calldata), with an optional memo. Each
-- family compiles it (EVM and Tron: an ERC-20 / TRC-20 transfer call; Solana: an SPL
-- transferChecked). Rows written before stay calls, except Solana's, whose `data` was the
-- family's own encoding of SPL transfers (0xf1 || recipient || u64 amount; 0xf2 || count ||
-- entries): they become the token intents they meant.
ALTER TABLE outbound_txs
  ADD COLUMN kind text,
  ADD COLUMN token text,
  ADD COLUMN memo text,
  ADD COLUMN more jsonb CHECK (more IS NULL OR jsonb_typeof(more) = 'array');
UPDATE outbound_txs SET kind = CASE WHEN data IS NULL THEN 'native' ELSE 'call' END;

CREATE FUNCTION pg_temp.base58(b bytea) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  alphabet constant text := '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  n numeric := 0;
  out text := '';
BEGIN
  FOR i IN 0 .. length(b) - 1 LOOP n := n * 256 + get_byte(b, i); END LOOP;
  WHILE n > 0 LOOP
    out := substr(alphabet, mod(n, 58)::int + 1, 1) || out;
    n := div(n, 58);
  END LOOP;
  FOR i IN 0 .. length(b) - 1 LOOP
    EXIT WHEN get_byte(b, i) <> 0;
    out := '1' || out;
  END LOOP;
  RETURN out;
END $$;

CREATE FUNCTION pg_temp.hex_amount(h text) RETURNS numeric LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
  n numeric := 0;
BEGIN
  FOR i IN 1 .. length(h) LOOP n := n * 16 + position(substr(h, i, 1) IN '0123456789abcdef') - 1; END LOOP;
  RETURN n;
END $$;

-- One entry (recipient 32 bytes || amount u64) of a Solana transfer's data, at hex offset `at` (1-based).
CREATE FUNCTION pg_temp.spl_entry(h text, at int) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_build_object('to', pg_temp.base58(decode(substr(h, at, 64), 'hex')),
                            'amount', pg_temp.hex_amount(substr(h, at + 64, 16))::text)
$$;

WITH solana AS (
  SELECT o.id, lower(substr(o.data, 3)) AS h
    FROM outbound_txs o JOIN chains c ON c.id = o.chain_id JOIN blockchains b ON b.id = c.blockchain_id
   WHERE b.derivation_path LIKE 'm/44''/501''%'
     AND (lower(o.data) ~ '^0xf1[0-9a-f]{80}$' OR lower(o.data) ~ '^0xf2[0-9a-f]{2}([0-9a-f]{80})+$')
), entries AS (
  SELECT s.id, array_agg(pg_temp.spl_entry(s.h, CASE WHEN s.h LIKE 'f1%' THEN 3 ELSE 5 + k * 80 END) ORDER BY k) AS list
    FROM solana s,
         generate_series(0, CASE WHEN s.h LIKE 'f1%' THEN 0 ELSE ('x' || substr(s.h, 3, 2))::bit(8)::int - 1 END) AS k
   GROUP BY s.id
)
UPDATE outbound_txs o
   SET kind = 'token', token = o.to_address, data = NULL,
       to_address = e.list[1]->>'to', value = (e.list[1]->>'amount')::numeric,
       more = CASE WHEN cardinality(e.list) > 1 THEN to_jsonb(e.list[2:]) END
  FROM entries e
 WHERE e.id = o.id;

ALTER TABLE outbound_txs
  ALTER COLUMN kind SET NOT NULL,
  ADD CHECK (kind IN ('native', 'token', 'call')),
  ADD CHECK ((kind = 'call') = (data IS NOT NULL) AND (kind = 'token') = (token IS NOT NULL)),
  ADD CHECK (more IS NULL OR kind = 'token');
