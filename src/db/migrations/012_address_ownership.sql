-- Address ownership across tenants (issue 11, item 1).
--
-- Before: any wallet could register another wallet's master or child address as EXTERNAL,
-- and the indexer's watch set mapped an address to ONE wallet, so the deposits of the
-- wallet holding the key could be recorded for the registering wallet instead (no history
-- entry, webhook or sweep for the owner). Now an address the service holds a key for is
-- credited to its key holder only, an outside address is credited to every wallet that
-- watches it (one record each), and registering one of the service's addresses as external
-- is refused. This migration changes the deposit key and repairs what the old rule wrote.

-- 1. A deposit is one log of one chain transaction FOR ONE WALLET: two wallets watching one
--    outside address each keep their own record, and each is still written exactly once
--    (replays, two indexers and the deposit finder all meet this key). The new index keeps
--    (chain_id, hash) as its prefix, so it serves the same lookups as the old one.
CREATE UNIQUE INDEX transactions_deposit_unique_wallet ON transactions (chain_id, hash, log_index, wallet_id) WHERE type = 'DEPOSIT';
DROP INDEX transactions_deposit_unique;

-- 2. External registrations of the service's own addresses, with the wallet holding each
--    address's key (a master address first, then a child address).
CREATE TEMPORARY TABLE misregistered ON COMMIT DROP AS
SELECT DISTINCT ON (x.id) x.id, x.chain_id, held.wallet_id AS owner_wallet_id
  FROM addresses x
  JOIN (SELECT chain_id, lower(address) AS address, id AS wallet_id, 0 AS rank FROM wallets
        UNION ALL
        SELECT chain_id, lower(address), wallet_id, 1 FROM addresses WHERE type = 'INTERNAL') held
    ON held.chain_id = x.chain_id AND held.address = lower(x.address)
 WHERE x.type = 'EXTERNAL'
 ORDER BY x.id, held.rank;

-- 3. Deposits the old rule recorded for the registering wallet instead of the key holder.
--    Each is queued here; the chain's indexer works through the queue (src/modules/deposits/
--    repair.ts): it records the key holder's deposit with the deposit finder (read again from
--    the chain, so nothing is taken on trust from the wrong record; idempotent; the owner gets
--    its history entry, webhooks and sweep), then sends the registering wallet
--    `deposit.failed` for its record, once (done_at is set in the same transaction).
CREATE TABLE deposit_repairs (
  id               uuid PRIMARY KEY,
  chain_id         uuid NOT NULL REFERENCES chains(id),
  -- The record written for the wrong wallet.
  transaction_id   uuid NOT NULL UNIQUE REFERENCES transactions(id),
  owner_wallet_id  uuid NOT NULL REFERENCES wallets(id),
  hash             text NOT NULL,
  note             text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  done_at          timestamptz
);
CREATE INDEX deposit_repairs_due ON deposit_repairs (chain_id) WHERE done_at IS NULL;

INSERT INTO deposit_repairs (id, chain_id, transaction_id, owner_wallet_id, hash)
SELECT gen_random_uuid(), t.chain_id, t.id, m.owner_wallet_id, t.hash
  FROM transactions t JOIN misregistered m ON m.id = t.address_id
 WHERE t.type = 'DEPOSIT' AND t.status <> 'FAILED' AND t.wallet_id <> m.owner_wallet_id;

-- The wrong records stop counting at once: FAILED, so the indexer never confirms a pending
-- one and no reader takes one for money received. They stay in the registering wallet's
-- history with the reason (they are never deleted: webhooks and events point at them).
-- Their addresses are EXTERNAL, so none was ever swept or settled.
UPDATE transactions t
   SET status = 'FAILED', stage = 'reassigned', confirmed = false, updated_at = now(),
       reason = 'Recorded in error: this address cannot be watched as an external address, and the deposit belongs to the wallet that holds its key'
  FROM deposit_repairs r
 WHERE r.transaction_id = t.id;

-- 4. The registrations themselves are removed (softly, as DELETE .../whitelist/{id} does:
--    their records keep pointing at them), so the watch set drops them.
UPDATE addresses SET deleted_at = now(), is_active = false, updated_at = now()
 WHERE id IN (SELECT id FROM misregistered) AND deleted_at IS NULL;
