-- Deposit backfill throughput (issue 4): less work per written event and deposit.
--
-- 1. A delivery's wallet_id and transaction_id are copies of its event's, written in the
--    same statement (or, for a resend, read from the event row). The delivery's key to its
--    event stays, and the event's keys to its wallet and transaction stay, so every
--    delivery still leads to a real event, wallet and transaction. The two extra checks
--    (a row lock on the wallet and on the transaction for every delivery written) cost
--    about 15% of the indexer's event statement and checked nothing the event's did not.
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_wallet_id_fkey;
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_transaction_id_fkey;

-- 2. Two indexes duplicated others, and every transaction written paid for them:
--    (chain_id, hash) for deposits is a prefix of the unique deposit key
--    (chain_id, hash, log_index) with the same predicate, which serves the same lookups;
--    (wallet_id, reference) is the key of the table's UNIQUE (wallet_id, reference)
--    constraint, whose index serves the history's reference filter.
DROP INDEX transactions_chain_hash;
DROP INDEX transactions_wallet_reference;
