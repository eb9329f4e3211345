import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';

export interface NewWallet {
  id: string;
  businessId: string;
  chainId: string;
  name: string;
  description: string;
  address: string;
  derivationPath: string;
  /** The account xpub, sealed (keys/sealed-columns.ts WALLET_XPUB); never stored in clear. */
  /** Null on a seed family's wallet (childrenFromSeed). */
  accountXpubSealed: Buffer | null;
  /** A seed family (derivation.childKeysFrom 'seed'): no account xpub, children derived from the seed at issuance. */
  childrenFromSeed?: boolean;
  seedCiphertext: Buffer;
  addressLimit: number;
  configurations: Record<string, unknown>;
}

export async function insertWallet(db: DbConn, w: NewWallet): Promise<void> {
  await db
    .insertInto('wallets')
    .values({
      id: w.id,
      business_id: w.businessId,
      chain_id: w.chainId,
      name: w.name,
      description: w.description,
      address: w.address,
      derivation_path: w.derivationPath,
      account_xpub_sealed: w.accountXpubSealed,
      children_from_seed: w.childrenFromSeed ?? false,
      seed_ciphertext: w.seedCiphertext,
      address_limit: w.addressLimit,
      configurations: JSON.stringify(w.configurations),
      webhook_url: null,
    })
    .execute();
}

const walletColumns = [
  'wallets.id',
  'wallets.business_id',
  'wallets.chain_id',
  'wallets.name',
  'wallets.description',
  'wallets.address',
  'wallets.derivation_path',
  'wallets.next_index',
  'wallets.address_limit',
  'wallets.is_active',
  'wallets.status',
  'wallets.configurations',
  'wallets.webhook_url',
  'wallets.created_at',
  'wallets.updated_at',
  'businesses.name as business_name',
  'businesses.created_at as business_created_at',
  'businesses.updated_at as business_updated_at',
] as const;

function walletQuery(db: DbConn) {
  return db.selectFrom('wallets').innerJoin('businesses', 'businesses.id', 'wallets.business_id').select(walletColumns);
}

export function findWallet(db: DbConn, id: string) {
  return walletQuery(db).where('wallets.id', '=', id).executeTakeFirst();
}

export type WalletRow = NonNullable<Awaited<ReturnType<typeof findWallet>>>;

export function findWallets(db: DbConn, ids: string[]) {
  return walletQuery(db)
    .where('wallets.id', '=', sql<string>`any(${ids}::uuid[])`)
    .execute();
}

export function listWallets(db: DbConn, businessId: string, offset: number, limit: number) {
  return walletQuery(db)
    .where('wallets.business_id', '=', businessId)
    .orderBy('wallets.created_at')
    .orderBy('wallets.id')
    .offset(offset)
    .limit(limit)
    .execute();
}

export async function countWallets(db: DbConn, businessId: string): Promise<number> {
  const row = await db
    .selectFrom('wallets')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('business_id', '=', businessId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface WalletPatch {
  name?: string;
  description?: string;
  isActive?: boolean;
  configurations?: Record<string, unknown>;
  webhookUrl?: string | null;
}

export async function updateWallet(db: DbConn, id: string, patch: WalletPatch): Promise<void> {
  await db
    .updateTable('wallets')
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.description !== undefined ? { description: patch.description } : {}),
      ...(patch.isActive !== undefined ? { is_active: patch.isActive } : {}),
      ...(patch.configurations !== undefined ? { configurations: JSON.stringify(patch.configurations) } : {}),
      ...(patch.webhookUrl !== undefined ? { webhook_url: patch.webhookUrl } : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * The lock of a wallet's standing as a payer: whether it is active and which assets are
 * enabled on it. A write that changes either takes it (exclusive) until its COMMIT; a
 * transaction that accepts a payout takes it shared, reads the standing, and keeps it until
 * its own COMMIT. So a payout is either decided before the change (and committed before
 * the change is answered) or sees it: never accepted after a deactivation was answered,
 * whichever process handles each.
 */
export async function lockStanding(db: DbConn, id: string, shared: boolean): Promise<void> {
  const key = `wallet-standing:${id}`;
  if (shared) await sql`SELECT pg_advisory_xact_lock_shared(hashtextextended(${key}, 0))`.execute(db);
  else await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(db);
}

export async function lockWallet(db: DbConn, id: string) {
  return db.selectFrom('wallets').select(['id', 'configurations', 'is_active']).where('id', '=', id).forNoKeyUpdate().executeTakeFirst();
}

/** The account xpub: sealed, or in clear on a row not yet upgraded (016_key_custody.sql). */
export function readAccountXpub(db: DbConn, id: string) {
  return db.selectFrom('wallets').select(['chain_id', 'account_xpub', 'account_xpub_sealed']).where('id', '=', id).executeTakeFirst();
}

export async function readSeedCiphertext(db: DbConn, id: string): Promise<Buffer | undefined> {
  const row = await db.selectFrom('wallets').select('seed_ciphertext').where('id', '=', id).executeTakeFirst();
  return row?.seed_ciphertext;
}

/** Enables assets on a new wallet (idempotent). */
export async function insertWalletAssets(db: DbConn, rows: { id: string; walletId: string; assetId: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('wallet_assets')
    .values(rows.map((r) => ({ id: r.id, wallet_id: r.walletId, asset_id: r.assetId, is_active: true })))
    .onConflict((oc) => oc.columns(['wallet_id', 'asset_id']).doNothing())
    .execute();
}

export function findBusinessWalletOnChain(db: DbConn, businessId: string, chainId: string) {
  return walletQuery(db)
    .where('wallets.business_id', '=', businessId)
    .where('wallets.chain_id', '=', chainId)
    .orderBy('wallets.created_at')
    .executeTakeFirst();
}

/** The stored address of a wallet's child by derivation index (a seed family's addresses are only stored). */
export async function childAddress(db: DbConn, walletId: string, index: number): Promise<string | undefined> {
  const row = await db
    .selectFrom('addresses')
    .select('address')
    .where('wallet_id', '=', walletId)
    .where('derivation_index', '=', index)
    .executeTakeFirst();
  return row?.address;
}
