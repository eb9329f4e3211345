-- Holds the reservation reads (withdrawals/store.ts heldBack) did not see, and indexes for them.

-- 1. What a sweep's transfer may cost the child in the native coin (the quote's fee; 0 where
-- the master pays it as fee payer; a lend's TRX transfer on Tron), so that the child's own
-- withdrawals hold it back while the sweep is in flight, as they hold their own fees.
-- Sweeps planned before this column read as 0.
ALTER TABLE sweeps ADD COLUMN reserved_fee numeric(78,0) CHECK (reserved_fee >= 0);
-- An address's sweeps settled since a time, on every withdrawal from it (the pending one is
-- found by sweeps_one_in_flight).
CREATE INDEX sweeps_address_updated ON sweeps (address_id, updated_at);

-- 2. The master's top-ups to children, in flight or settled since a time, on every payout from
-- the master: among top-ups only (a master sends many rows), one index per arm.
CREATE INDEX outbound_txs_topups_live ON outbound_txs (chain_id, from_address)
  WHERE purpose IN ('sweep-topup', 'autosettle-topup', 'salvage-topup', 'swap-topup') AND stage IN ('created', 'signed', 'broadcast');
CREATE INDEX outbound_txs_topups_settled ON outbound_txs (chain_id, from_address, updated_at)
  WHERE purpose IN ('sweep-topup', 'autosettle-topup', 'salvage-topup', 'swap-topup') AND stage IN ('mined', 'failed');

-- 3. The spending transactions' indexes cover every type heldBack reads: 038 rebuilt the
-- pending one without SALVAGE and STAKING, and neither had the fee-only staking operations,
-- so those arms of the read could only scan.
DROP INDEX transactions_spending_pending;
CREATE INDEX transactions_spending_pending ON transactions (chain_id, sender_address)
  WHERE type IN ('WITHDRAW', 'SWAP', 'AUTO_SETTLEMENT', 'CUSTOM_SMART_CONTRACT', 'SALVAGE', 'STAKING',
                 'UNSTAKING', 'RESTAKING', 'UNSTAKING_WITHDRAW')
    AND status IN ('PENDING', 'PENDING_APPROVAL');
DROP INDEX transactions_spending_settled;
CREATE INDEX transactions_spending_settled ON transactions (chain_id, sender_address, updated_at)
  WHERE type IN ('WITHDRAW', 'SWAP', 'AUTO_SETTLEMENT', 'CUSTOM_SMART_CONTRACT', 'SALVAGE', 'STAKING',
                 'UNSTAKING', 'RESTAKING', 'UNSTAKING_WITHDRAW');

