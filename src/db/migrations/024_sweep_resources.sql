-- Sweeps on families other than EVM (issue 15, Tron): the sweep keeps its family's quote as
-- opaque network data instead of EVM fee columns, and may lend the child resources for its
-- transfer (Tron: energy delegated from the master's staked TRX) and take them back after.
-- EVM sweeps keep filling the fee columns exactly as before; the others leave them NULL.
ALTER TABLE sweeps
  ALTER COLUMN gas_limit DROP NOT NULL,
  ALTER COLUMN max_fee_per_gas DROP NOT NULL,
  ALTER COLUMN max_priority_fee_per_gas DROP NOT NULL,
  -- The transfer's fixed network data (Sender.quote's `fixed`): signed with exactly what was funded.
  ADD COLUMN network jsonb CHECK (network IS NULL OR jsonb_typeof(network) = 'object'),
  -- The family's lend and give-back steps (ChildFeeFunding 'lend'): their network data, decimal strings.
  ADD COLUMN lend jsonb CHECK (lend IS NULL OR jsonb_typeof(lend) = 'object'),
  ADD COLUMN give_back jsonb CHECK (give_back IS NULL OR jsonb_typeof(give_back) = 'object'),
  ADD COLUMN lend_outbound_id uuid REFERENCES outbound_txs(id),
  ADD COLUMN give_back_outbound_id uuid REFERENCES outbound_txs(id);

-- Stages: topup (native coin first: a gas top-up, a Tron activation or bandwidth) -> lend
-- (resources lent) -> transfer -> give_back (the loan taken back, whatever the transfer's
-- outcome) -> done | failed.
ALTER TABLE sweeps DROP CONSTRAINT sweeps_stage_check;
ALTER TABLE sweeps ADD CONSTRAINT sweeps_stage_check
  CHECK (stage IN ('topup', 'lend', 'transfer', 'give_back', 'done', 'failed'));

-- Resources a mined transaction used besides its fee (Tron: energy and bandwidth), as the
-- family's receipt reports them: decimal strings, absent on EVM.
ALTER TABLE outbound_txs ADD COLUMN resources_used jsonb;
