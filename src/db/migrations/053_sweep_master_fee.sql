-- What a sweep's own steps from the master may burn of the master's native coin beyond its
-- top-up's value (the top-up's fee: on Tron 1.1 TRX more when it creates the child; the lend
-- and give-back of a Tron sweep that borrows the master's staked energy, their bandwidth).
-- The master's payouts hold it back while the sweep is in flight (withdrawals/store.ts
-- heldBack), as the top-up's value is held by its outbound row; without it a payout of all
-- the master's coin accepted meanwhile, or the sweep's own step, was refused on chain and
-- waited unsent until the master was refilled. Sweeps planned before this column hold none.
ALTER TABLE sweeps ADD COLUMN master_fee numeric(78,0) CHECK (master_fee >= 0);
-- A master's sweeps in flight, and those settled since a time, on every payout from the master.
CREATE INDEX sweeps_master_fee_live ON sweeps (wallet_id) WHERE status = 'pending' AND master_fee > 0;
CREATE INDEX sweeps_master_fee_settled ON sweeps (wallet_id, updated_at) WHERE status <> 'pending' AND master_fee > 0;
