-- Per-wallet webhook signing secrets (issue 17): the Standard Webhooks `webhook-signature`
-- is keyed with a `whsec_` secret, so a receiver need not hold the wallet's API key (which
-- can move funds). `x-service-signature` stays keyed with the API key, as the spec says.
CREATE TABLE webhook_secrets (
  id                  uuid PRIMARY KEY,
  wallet_id           uuid NOT NULL REFERENCES wallets(id),
  -- The secret's 32 bytes sealed by the key vault; associated data: this row's id.
  secret_ciphertext   bytea NOT NULL,
  created_at          timestamptz NOT NULL,
  -- Set when a newer secret replaced this one: it keeps signing beside the new one until
  -- then (the rotation's overlap), so receivers can move over without losing a delivery.
  retires_at          timestamptz,
  -- Only on a wallet's first secret: the API key keeps signing webhook-signature until
  -- then, as it did before the wallet had a secret (the same overlap).
  api_key_signs_until timestamptz
);
-- One current secret per wallet.
CREATE UNIQUE INDEX webhook_secrets_current ON webhook_secrets (wallet_id) WHERE retires_at IS NULL;
CREATE INDEX webhook_secrets_wallet ON webhook_secrets (wallet_id, created_at DESC);
