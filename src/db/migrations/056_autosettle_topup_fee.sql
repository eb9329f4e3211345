-- What a child settlement's top-up costs the master beyond its value (its own fee: on Tron
-- 1.1 TRX more when it creates the child, and its bandwidth). The settlement's reservation
-- checks it against the master's pending spends (autosettlements/planner.ts reserveAtSender);
-- the master's payouts hold it with the top-up's value for as long as the top-up's outbound
-- row does (withdrawals/store.ts heldBack, joined by the row's owner_id). Without it a payout
-- of all the master's coin but the top-up's value, accepted while the top-up was unsent, left
-- one of the two refused on chain, unsent until the master was refilled. Settlements planned
-- before this column hold none.
ALTER TABLE auto_settlements ADD COLUMN topup_fee numeric(78,0) CHECK (topup_fee >= 0);
