-- Every slug a payment link has held, and the business that held it. A slug renamed away
-- stayed free for anyone: another business could take it and receive the payments of
-- whoever still opens the old URL (a printed QR code, an e-mail sent last month), on its
-- own wallets. A slug is now its first business's for good: links of that business may
-- take it again, no other business can (409 SLUG_TAKEN). Compared without case, as the
-- page's URL is (payment_links_slug). Renames before this migration are not known.
CREATE TABLE payment_link_slugs (
  slug_key     text PRIMARY KEY,
  business_id  uuid NOT NULL REFERENCES businesses(id),
  -- The link that holds it now, or held it last.
  link_id      uuid NOT NULL REFERENCES payment_links(id),
  claimed_at   timestamptz NOT NULL DEFAULT now()
);
INSERT INTO payment_link_slugs (slug_key, business_id, link_id)
SELECT lower(slug), business_id, id FROM payment_links
ON CONFLICT (slug_key) DO NOTHING;
