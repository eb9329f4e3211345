-- What a child swap's top-up costs the master beyond its value (its own fee, at the fees the
-- swap was accepted with). The swap's reservation checks it against the master's pending
-- spends (withdrawals/guards.ts reserveForMove, `funder`); the master's payouts now hold it with
-- the top-up's value for as long as the top-up's outbound row does (withdrawals/store.ts
-- heldBack, joined by the row's owner_id), as a settlement's top-up holds its own (056). Without
-- it a payout of all the master's coin but the top-up's value, accepted while the top-up was
-- unsent, left one of the two refused on chain. Swaps accepted before this column hold none.
ALTER TABLE swaps ADD COLUMN topup_fee numeric(78,0) CHECK (topup_fee >= 0);
