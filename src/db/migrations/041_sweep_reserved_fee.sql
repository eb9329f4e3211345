-- What a sweep's transfer may cost the child in the native coin (the quote's fee; 0 where
-- the master pays it as fee payer; a lend's TRX transfer on Tron), so that the child's own
-- withdrawals hold it back while the sweep is in flight, as they hold their own fees
-- (withdrawals/store.ts heldBack). Sweeps planned before this column read as 0.
ALTER TABLE sweeps ADD COLUMN reserved_fee numeric(78,0) CHECK (reserved_fee >= 0);

-- heldBack reads an address's sweeps pending or settled since a time on every withdrawal
-- from it: by address, not by a scan of every sweep ever made.
CREATE INDEX sweeps_address_updated ON sweeps (address_id, updated_at);

-- heldBack also reads the master's top-ups to children in flight or settled since a time on
-- every payout from the master: by sender, among top-ups only (a master sends many rows).
CREATE INDEX outbound_txs_topups ON outbound_txs (chain_id, from_address, updated_at)
  WHERE purpose IN ('sweep-topup', 'autosettle-topup', 'salvage-topup', 'swap-topup');
