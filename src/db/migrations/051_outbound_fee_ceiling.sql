-- What a payout reserved for its fee, kept with its outbound row. The fee was quoted when the
-- payout was accepted (and held against the sender's balance) but quoted again when the row
-- was signed: a base fee that rose in between was signed at the new price, above what was
-- held, and a payout of everything the sender could spare was then refused by every node
-- (insufficient funds for gas * price + value) for good. Signing now bids at most this much
-- (null: rows of other purposes, and of older versions, are priced as before).
ALTER TABLE outbound_txs ADD COLUMN fee_ceiling numeric(78,0) CHECK (fee_ceiling >= 0);

-- The fee fields a client fixed (gasLimit, gasPrice) of a payout held for approval: it is
-- sent with them once approved (they were dropped, so it was signed with fresh quotes).
ALTER TABLE transactions ADD COLUMN send_network jsonb;
