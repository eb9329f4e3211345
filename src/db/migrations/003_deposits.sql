-- Deposits: lookups the indexer makes on every range, and the chain's cursor.

-- Deposits of a chain transaction (matching a replayed or re-mined transfer to its record).
CREATE INDEX transactions_chain_hash ON transactions (chain_id, hash) WHERE type = 'DEPOSIT';
-- Deposits still waiting for confirmations (re-counted on every new head).
CREATE INDEX transactions_pending_deposits ON transactions (chain_id, block_number) WHERE type = 'DEPOSIT' AND status = 'PENDING';
-- Transaction history filters.
CREATE INDEX transactions_wallet_reference ON transactions (wallet_id, reference);
-- Addresses of a chain by last change, for the indexer's incremental watch list.
CREATE INDEX addresses_chain_updated ON addresses (chain_id, updated_at);

-- External (whitelisted) addresses are removed softly: their deposits keep their address.
ALTER TABLE addresses ADD COLUMN deleted_at timestamptz;
