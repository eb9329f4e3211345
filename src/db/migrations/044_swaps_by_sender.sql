-- A swap reads its sender's allowance before its transaction opens, then checks under the
-- sender's swap lock that no swap of the sender began or ended since (swaps/flow.ts): the
-- newest swap id of a sender, read twice per swap, wants an index over all of its swaps.
CREATE INDEX swaps_by_sender ON swaps (chain_id, sender, id);
