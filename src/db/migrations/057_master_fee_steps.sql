-- The parts of a sweep's or a recovery's master_fee (migrations 053, 054) that its top-up and
-- its lend burn: once that step is mined (before a balance read), the read shows it paid, and
-- holding it still counted it twice, refusing a payout of the master's coin that fits until the
-- sweep or recovery ended. The give-back's part is the rest of master_fee. Rows written before
-- this column hold their whole master_fee while in flight, as before.
ALTER TABLE sweeps ADD COLUMN master_fee_topup numeric(78,0) CHECK (master_fee_topup >= 0);
ALTER TABLE sweeps ADD COLUMN master_fee_lend numeric(78,0) CHECK (master_fee_lend >= 0);
ALTER TABLE salvages ADD COLUMN master_fee_topup numeric(78,0) CHECK (master_fee_topup >= 0);
ALTER TABLE salvages ADD COLUMN master_fee_lend numeric(78,0) CHECK (master_fee_lend >= 0);
