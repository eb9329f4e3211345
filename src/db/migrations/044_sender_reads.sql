-- Flows read the chain before their transaction opens and check under the sender's lock that
-- nothing of the sender's moved since (a transaction waiting on a node pins its connection):
-- an API swap looks for its sender's swaps written since its read (swaps/flow.ts), an
-- auto-settlement for the sender's settlements changed since (autosettlements/executor.ts).
CREATE INDEX swaps_by_sender ON swaps (chain_id, sender, updated_at);
CREATE INDEX auto_settlements_by_sender ON auto_settlements (wallet_id, chain_id, from_index, updated_at);
