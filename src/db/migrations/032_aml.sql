-- AML screening (src/modules/aml, docs/aml.md).

-- A deposit whose sender is on a list is credited but held: not swept, not auto-settled,
-- not settled, until an operator releases it (aml_screening says why and who released it).
ALTER TABLE transactions ADD COLUMN aml_held boolean NOT NULL DEFAULT false;
CREATE INDEX transactions_aml_held_idx ON transactions (address_id, asset_id) WHERE aml_held;

-- Offline lists (the OFAC SDN list's digital currency addresses), each replaced whole, in
-- one transaction, by `aml import`; `version` tells running processes to reload.
CREATE TABLE aml_lists (
  source       text PRIMARY KEY CHECK (source ~ '^[a-z][a-z0-9-]{0,31}$'),
  file_name    text NOT NULL,
  file_sha256  text NOT NULL,
  format       text NOT NULL CHECK (format IN ('sdn-xml', 'sdn-advanced-xml', 'plain')),
  published_at timestamptz,
  imported_at  timestamptz NOT NULL DEFAULT now(),
  entries      integer NOT NULL,
  version      bigint NOT NULL
);

CREATE TABLE aml_list_entries (
  source      text NOT NULL REFERENCES aml_lists (source) ON DELETE CASCADE,
  -- addressKey(): hex addresses lower-cased, others as published.
  address_key text NOT NULL,
  address     text NOT NULL,
  -- The list's own tag ("Digital Currency Address - ETH": ETH), '' for a plain list.
  ticker      text NOT NULL DEFAULT '',
  -- Who the list names (the SDN entry), when it says.
  entity      text,
  PRIMARY KEY (source, address_key, ticker)
);
