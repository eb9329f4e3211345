-- The network fee a payout held for approval was quoted at acceptance (what it is signed within
-- once approved). The reservation (reserved_fee) is what its sender holds of it, 0 where the
-- wallet's master pays the fee as fee payer (a Solana child's payout): the approval then signed
-- it with no fee ceiling at all, so a recipient that closed its token account while the payout
-- waited made the master pay a rent nobody was quoted. What the sender does not hold of it
-- (quoted_fee - reserved_fee) is the master's: held back from the master's payouts while the
-- payout waits (withdrawals/store.ts heldBack), or a payout of all the master's coin accepted
-- meanwhile left the approved one with no fee payer able to pay. Null on other rows and on
-- payouts held before this column (sent within reserved_fee, as before).
ALTER TABLE transactions ADD COLUMN quoted_fee numeric(78,0) CHECK (quoted_fee >= 0);
-- The master's children's payouts waiting for approval whose fee it pays, on every payout from the master.
CREATE INDEX transactions_master_fee_waiting ON transactions (wallet_id)
  WHERE status = 'PENDING_APPROVAL' AND quoted_fee > coalesce(reserved_fee, 0);
