-- An API swap and an auto-settlement from one address look at each other's rows under the
-- swap lock (swaps/store.ts senderSwaps, swapsMovedSince, apiSwapsOf), by the sending
-- address's wallet and index as settlements are kept (auto_settlements_by_sender, 044): the
-- swaps in flight, and those written since a time.
CREATE INDEX swaps_pending_by_wallet_sender ON swaps (chain_id, wallet_id, from_index) WHERE status = 'pending';
CREATE INDEX swaps_by_wallet_sender ON swaps (chain_id, wallet_id, from_index, updated_at);
DROP INDEX swaps_in_flight;
DROP INDEX swaps_by_sender;
