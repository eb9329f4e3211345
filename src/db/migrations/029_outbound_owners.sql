-- Several owners of one outbound transaction (a Solana transaction carrying several
-- withdrawals of one sender, docs/solana.md "Batch withdrawals in one transaction"). Such a
-- row's owner_id is a group id (no other table's id) listed here with its owners (the
-- withdrawals' Transactions) in order; the rows rebuilt from it keep the owner_id, so the
-- group follows every version of the transaction. A row of one owner has none here.
CREATE TABLE outbound_owners (
  group_id uuid NOT NULL,
  owner_id uuid NOT NULL,
  position integer NOT NULL CHECK (position >= 0),
  PRIMARY KEY (group_id, position),
  UNIQUE (group_id, owner_id)
);
CREATE INDEX outbound_owners_owner ON outbound_owners (owner_id);
