/**
 * Every database column that holds a value sealed by the KeyVault, in one list. Rotation
 * (rotate-master-key) re-seals exactly these, the start-time check samples them, and each
 * writer takes its associated data from its entry here, so the two can never drift apart.
 *
 * Adding a sealed column is one entry: the table, its primary key column (a uuid), the
 * bytea column (NULL allowed: skipped) and the associated-data rule the writer uses.
 * Associated data binds a value to its row and its purpose: a ciphertext copied onto
 * another row, or into another sealed column of the same row, does not open.
 */
export interface SealedColumn {
  table: string;
  idColumn: string;
  column: string;
  /** The associated data the value is sealed with, from its row's id. */
  associatedData(id: string): string;
}

/** A wallet's BIP39 mnemonic (UTF-8). The bare wallet id, as since the first release. */
export const WALLET_SEED: SealedColumn = {
  table: 'wallets',
  idColumn: 'id',
  column: 'seed_ciphertext',
  associatedData: (id) => id,
};

/** A wallet's account-node xpub (text): sealed, because with one exported child key it gives the account's private key. */
export const WALLET_XPUB: SealedColumn = {
  table: 'wallets',
  idColumn: 'id',
  column: 'account_xpub_sealed',
  associatedData: (id) => `wallet-xpub:${id}`,
};

/** An API key's copy in clear (a wallet key is its webhooks' HMAC secret). The key id, as since the first release. */
export const API_KEY: SealedColumn = {
  table: 'api_keys',
  idColumn: 'id',
  column: 'key_ciphertext',
  associatedData: (id) => id,
};

/** A wallet's whsec_ webhook signing secret (32 bytes; modules/webhooks/secrets.ts). The row id. */
export const WEBHOOK_SECRET: SealedColumn = {
  table: 'webhook_secrets',
  idColumn: 'id',
  column: 'secret_ciphertext',
  associatedData: (id) => id,
};

/**
 * A private key a client imported for an outside address (`POST .../addresses/whitelist`
 * with `privateKey`; modules/addresses/keys.ts): 32 bytes. The address row's id.
 */
export const ADDRESS_KEY: SealedColumn = {
  table: 'address_keys',
  idColumn: 'address_id',
  column: 'key_ciphertext',
  associatedData: (id) => `address-key:${id}`,
};

/** A dashboard user's TOTP secret (20 bytes; dashboard/service.ts). The user's id. */
export const DASHBOARD_TOTP: SealedColumn = {
  table: 'dashboard_users',
  idColumn: 'id',
  column: 'totp_secret_sealed',
  associatedData: (id) => `dashboard-totp:${id}`,
};

export const SEALED_COLUMNS: readonly SealedColumn[] = [WALLET_SEED, WALLET_XPUB, API_KEY, WEBHOOK_SECRET, ADDRESS_KEY, DASHBOARD_TOTP];

export const columnName = (c: SealedColumn) => `${c.table}.${c.column}`;
