-- One recovery of a sender at a time on a chain named by rpcUrl (modules/salvage/foreign.ts),
-- from reading its nonce on that chain's node to the broadcast. A claim row, not a lock held in
-- a transaction: a lock would keep a pool connection for as long as the client's node takes to
-- answer, while the recovery needs further connections to record itself (enough recoveries at
-- once held every connection and waited for one more). A claim past expires_at, whose holder
-- crashed, is taken over.
CREATE TABLE foreign_salvage_claims (
  chain_id bigint NOT NULL,
  sender_key text NOT NULL,
  token uuid NOT NULL,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (chain_id, sender_key)
);
