-- Families without a nonce (issue 14, the seam's 'expiry' ordering: Tron's expiration,
-- Solana's recent blockhash) send rows with no ordering slot: nonce is NULL for them, and
-- still required and unique per live row on 'nonce' families (the unique index
-- outbound_txs_live_nonce ignores NULLs). Which families are which is the adapter's to say,
-- so the rule is kept by the pipeline (modules/outbound/service.ts, enqueueMany), not here.
-- A row whose transaction expired unmined steps aside as 'replaced' by its rebuild, as a
-- replaced version does on nonce families.
ALTER TABLE outbound_txs ALTER COLUMN nonce DROP NOT NULL;
