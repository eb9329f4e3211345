-- Wallets of a seed family (Solana, ed25519 by SLIP-0010: every level hardened) have no
-- account xpub: a child's public key needs the seed, so addresses are derived from it at
-- issuance and stored (chains/types.ts, KeyDerivation). Such a wallet says so, and keeps no
-- xpub; a bip32 wallet keeps its xpub (sealed, or clear until the first start seals it).
ALTER TABLE wallets ADD COLUMN children_from_seed boolean NOT NULL DEFAULT false;
ALTER TABLE wallets DROP CONSTRAINT wallets_account_xpub_kept;
ALTER TABLE wallets ADD CONSTRAINT wallets_account_xpub_kept CHECK (
  CASE WHEN children_from_seed THEN account_xpub IS NULL AND account_xpub_sealed IS NULL
       ELSE account_xpub IS NOT NULL OR account_xpub_sealed IS NOT NULL END
);

-- The account that pays an outbound transaction's fee when the family lets another account
-- pay it (Solana: the wallet's master pays for its children and signs as fee payer); null:
-- the sender pays, as on EVM and Tron.
ALTER TABLE outbound_txs ADD COLUMN fee_payer text;
