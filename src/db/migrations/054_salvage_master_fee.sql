-- What a recovery's own steps from the master may burn of the master's native coin beyond
-- its top-up's value (the top-up's fee: on Tron 1.1 TRX more when it activates the sender;
-- the lend and give-back of a Tron recovery that borrows the master's staked energy, their
-- bandwidth), as sweeps.master_fee is for a sweep (migration 053). The master's payouts hold
-- it back while the recovery is in flight (withdrawals/store.ts heldBack), as the top-up's
-- value is held by its outbound row; without it a payout of all the master's coin accepted
-- meanwhile, or the recovery's own step, was refused on chain and waited unsent until the
-- master was refilled. A recovery lent energy with no top-up was not checked against the
-- master's pending payouts at all. Recoveries accepted before this column hold none.
ALTER TABLE salvages ADD COLUMN master_fee numeric(78,0) CHECK (master_fee >= 0);
-- A chain's recoveries in flight that hold a master fee, and those settled since a time, on
-- every payout from a master (joined to their wallet by its key for the master's address:
-- a recovery may run on another chain of the wallet's family than the wallet's own).
CREATE INDEX salvages_master_fee_live ON salvages (chain_id) WHERE status = 'pending' AND master_fee > 0;
CREATE INDEX salvages_master_fee_settled ON salvages (chain_id, updated_at) WHERE status <> 'pending' AND master_fee > 0;
