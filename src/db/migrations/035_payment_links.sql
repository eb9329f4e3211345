-- Payment links and checkout sessions (issue 30): docs/checkout.md.
--
-- A payment link belongs to a business and accepts some (wallet, asset) pairs of it, each a
-- USD stablecoin. Each payer who opens it gets a checkout session: a dedicated child address
-- of the chosen wallet, the amount in the chosen asset's base units, a deadline and a
-- monitoring window after it. The session's payments are the deposits to its address, each
-- recorded once with the time the service first saw it (late or not).
CREATE TABLE payment_links (
  id                uuid PRIMARY KEY,
  business_id       uuid NOT NULL REFERENCES businesses(id),
  -- Unique per installation, compared without case (the page's URL); ^[A-Za-z0-9-]+$.
  slug              text NOT NULL CHECK (slug ~ '^[A-Za-z0-9-]{1,250}$'),
  name              text NOT NULL,
  description       text,
  -- In `currency` (USD); NULL: the payer chooses.
  amount            numeric CHECK (amount > 0),
  currency          text NOT NULL DEFAULT 'USD',
  active            boolean NOT NULL DEFAULT true,
  -- Settled sessions it takes; NULL: no limit.
  payment_limit     integer CHECK (payment_limit >= 1),
  redirect_url      text,
  success_message   text,
  inactive_message  text,
  metadata          jsonb,
  image             bytea,
  image_type        text CHECK (image_type IN ('image/png', 'image/jpeg', 'image/gif', 'image/webp')),
  -- expiresInMinutes, monitoringMinutes, underpaymentTolerance (percent, decimal string).
  configurations    jsonb NOT NULL,
  network           text NOT NULL CHECK (network IN ('testnet', 'mainnet')),
  created_channel   text NOT NULL CHECK (created_channel IN ('api', 'dashboard')),
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL,
  CHECK ((image IS NULL) = (image_type IS NULL))
);
CREATE UNIQUE INDEX payment_links_slug ON payment_links (lower(slug));
CREATE INDEX payment_links_business ON payment_links (business_id, created_at DESC);

-- What a link accepts: assets of the business's wallets.
CREATE TABLE payment_link_assets (
  link_id     uuid NOT NULL REFERENCES payment_links(id) ON DELETE CASCADE,
  wallet_id   uuid NOT NULL REFERENCES wallets(id),
  asset_id    uuid NOT NULL REFERENCES assets(id),
  position    integer NOT NULL,
  PRIMARY KEY (link_id, wallet_id, asset_id)
);

CREATE TABLE checkouts (
  id                uuid PRIMARY KEY,
  link_id           uuid NOT NULL REFERENCES payment_links(id),
  business_id       uuid NOT NULL REFERENCES businesses(id),
  wallet_id         uuid NOT NULL REFERENCES wallets(id),
  asset_id          uuid NOT NULL REFERENCES assets(id),
  address_id        uuid NOT NULL UNIQUE REFERENCES addresses(id),
  address           text NOT NULL,
  -- Base units of the asset: what is due, and what settles it (the tolerance taken off).
  amount            numeric(78,0) NOT NULL CHECK (amount > 0),
  threshold         numeric(78,0) NOT NULL CHECK (threshold > 0 AND threshold <= amount),
  -- Payments in base units, as last counted: seen before expires_at (pending or confirmed), seen
  -- after it (within the monitoring window), and confirmed of all of them.
  seen_in_time      numeric(78,0) NOT NULL DEFAULT 0,
  seen_late         numeric(78,0) NOT NULL DEFAULT 0,
  amount_confirmed  numeric(78,0) NOT NULL DEFAULT 0,
  status            text NOT NULL CHECK (status IN ('new', 'processing', 'settled', 'expired', 'invalid')),
  partial           boolean NOT NULL DEFAULT false,
  overpaid          boolean NOT NULL DEFAULT false,
  paid_late         boolean NOT NULL DEFAULT false,
  expires_at        timestamptz NOT NULL,
  monitor_until     timestamptz NOT NULL CHECK (monitor_until >= expires_at),
  -- Solana Pay's reference key (a random public key the payer's wallet adds to its transfer).
  payment_reference text,
  reference         text,
  email             text,
  payer_name        text,
  redirect_url      text,
  metadata          jsonb,
  created_channel   text NOT NULL CHECK (created_channel IN ('api', 'page')),
  settled_at        timestamptz,
  created_at        timestamptz NOT NULL,
  updated_at        timestamptz NOT NULL
);
CREATE INDEX checkouts_link ON checkouts (link_id, created_at DESC);
-- The sessions whose deadline or monitoring window the tick still has to close.
CREATE INDEX checkouts_open ON checkouts (monitor_until) WHERE status IN ('new', 'processing', 'expired');

CREATE TABLE checkout_payments (
  transaction_id  uuid PRIMARY KEY REFERENCES transactions(id),
  checkout_id     uuid NOT NULL REFERENCES checkouts(id),
  -- When the service first saw the deposit (its clock), and whether that was after expires_at.
  seen_at         timestamptz NOT NULL,
  late            boolean NOT NULL
);
CREATE INDEX checkout_payments_checkout ON checkout_payments (checkout_id);
