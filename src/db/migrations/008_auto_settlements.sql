-- Auto-settlement: one settlement per deposit that a rule takes (docs/settlement.md).
--
-- The unique deposit_id is the exactly-once guard: a replayed hook, a re-run job or two
-- workers can insert the settlement of a deposit only once, and everything that moves money
-- hangs off that one row (its outbound transactions point back at it through owner_id).
--
-- stage: queued   -> planned by the auto_settle job (quote, fees) next
--        topup    -> the master is sending gas to the child address
--        sending  -> approve+swap or the transfer are in the outbound pipeline
--        swapped  -> the swap is mined; the transfer of its output comes next
--        transfer -> the transfer to the destination is in the pipeline
--        done | failed
CREATE TABLE auto_settlements (
  id                    uuid PRIMARY KEY,
  deposit_id            uuid NOT NULL REFERENCES transactions(id),
  rule_id               uuid REFERENCES auto_settlement_rules(id) ON DELETE SET NULL,
  -- The rule as it was when the deposit was taken: later edits do not change a settlement in flight.
  rule                  jsonb NOT NULL,
  wallet_id             uuid NOT NULL REFERENCES wallets(id),
  chain_id              uuid NOT NULL REFERENCES chains(id),
  -- Where the funds are taken from: 0 = the master address (swept, or deposited there), else the child's index.
  from_index            integer NOT NULL CHECK (from_index >= 0),
  asset_in_id           uuid NOT NULL REFERENCES assets(id),
  asset_out_id          uuid NOT NULL REFERENCES assets(id),
  amount_in             numeric(78,0) NOT NULL CHECK (amount_in > 0),
  amount_out            numeric(78,0),
  status                text NOT NULL CHECK (status IN ('pending', 'success', 'failed')),
  stage                 text NOT NULL CHECK (stage IN ('queued', 'topup', 'sending', 'swapped', 'transfer', 'done', 'failed')),
  -- Fees fixed at planning for a child sender: its gas top-up paid for exactly these.
  max_fee_per_gas       numeric(78,0),
  max_priority_fee_per_gas numeric(78,0),
  -- The gas limit planned (and topped up) for the transfer to the destination; null = estimated when signed.
  transfer_gas_limit    numeric(78,0),
  swap_transaction_id   uuid REFERENCES transactions(id),
  settle_transaction_id uuid REFERENCES transactions(id),
  swap                  jsonb,
  error                 text,
  created_at            timestamptz NOT NULL DEFAULT now(),
  updated_at            timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX auto_settlements_deposit ON auto_settlements (deposit_id);
CREATE INDEX auto_settlements_unfinished ON auto_settlements (updated_at) WHERE status = 'pending';

-- Rules are deleted for good (DELETE returns the rule); settlements keep their snapshot.
CREATE INDEX auto_settlement_rules_address ON auto_settlement_rules (address_id) WHERE address_id IS NOT NULL;
