import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { ApiKeyScope } from './scopes.js';

export interface NewApiKey {
  id: string;
  businessId: string;
  walletId: string | null;
  prefix: string;
  hash: Buffer;
  ciphertext: Buffer;
  name?: string;
  scopes?: readonly ApiKeyScope[];
  rateLimit?: number | null;
}

export async function insertKey(db: DbConn, key: NewApiKey): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({
      id: key.id,
      business_id: key.businessId,
      wallet_id: key.walletId,
      prefix: key.prefix,
      key_hash: key.hash,
      key_ciphertext: key.ciphertext,
      name: key.name ?? '',
      scopes: [...(key.scopes ?? [])],
      rate_limit: key.rateLimit ?? null,
    })
    .execute();
}

/** Revokes the wallet's live key; the keys revoked (none or one), for the audit trail. */
export async function revokeWalletKeys(db: DbConn, walletId: string): Promise<{ id: string; prefix: string }[]> {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: sql`now()` })
    .where('wallet_id', '=', walletId)
    .where('revoked_at', 'is', null)
    .returning(['id', 'prefix'])
    .execute();
}

export interface LiveKeyRow {
  id: string;
  business_id: string;
  wallet_id: string | null;
  key_hash: Buffer;
  scopes: string[];
  rate_limit: number | null;
}

/** The live keys among these hashes: one round trip for a whole batch of requests. */
export function findLiveKeysByHashes(db: DbConn, hashes: Buffer[]): Promise<LiveKeyRow[]> {
  return db
    .selectFrom('api_keys')
    .select(['id', 'business_id', 'wallet_id', 'key_hash', 'scopes', 'rate_limit'])
    .where(sql<boolean>`key_hash = ANY(${hashes}::bytea[])`)
    .where('revoked_at', 'is', null)
    .execute();
}

export function findLiveWalletKey(db: DbConn, walletId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'key_ciphertext', 'scopes', 'created_at', 'last_used_at'])
    .where('wallet_id', '=', walletId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
}

/** The newest live business key without restrictions (what the credentials file shows). */
export function findLiveBusinessKey(db: DbConn, businessId: string) {
  return db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'key_ciphertext'])
    .where('business_id', '=', businessId)
    .where('wallet_id', 'is', null)
    .where('revoked_at', 'is', null)
    .where(sql<boolean>`cardinality(scopes) = 0`)
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/** What may be shown of a business key: never the key, its hash or its sealed copy. */
const LISTED = ['id', 'name', 'prefix', 'scopes', 'rate_limit', 'created_at', 'last_used_at', 'revoked_at'] as const;
export type BusinessKeyRow = Awaited<ReturnType<typeof findBusinessKey>> & {};

export function findBusinessKey(db: DbConn, businessId: string, id: string) {
  return db
    .selectFrom('api_keys')
    .select(LISTED)
    .where('id', '=', id)
    .where('business_id', '=', businessId)
    .where('wallet_id', 'is', null)
    .executeTakeFirst();
}

export async function listBusinessKeys(
  db: DbConn,
  businessId: string,
  opts: { includeRevoked: boolean; offset: number; limit: number },
): Promise<{ rows: NonNullable<BusinessKeyRow>[]; total: number }> {
  let base = db.selectFrom('api_keys').where('business_id', '=', businessId).where('wallet_id', 'is', null);
  if (!opts.includeRevoked) base = base.where('revoked_at', 'is', null);
  const [rows, count] = await Promise.all([
    base.select(LISTED).orderBy('created_at', 'desc').orderBy('id', 'desc').offset(opts.offset).limit(opts.limit).execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

/** Revokes one business key; the row as it is now, or undefined when it is not the business's. */
export function revokeBusinessKey(db: DbConn, businessId: string, id: string) {
  return db
    .updateTable('api_keys')
    .set({ revoked_at: sql`coalesce(revoked_at, now())` })
    .where('id', '=', id)
    .where('business_id', '=', businessId)
    .where('wallet_id', 'is', null)
    .returning(LISTED)
    .executeTakeFirst();
}

/**
 * Records when keys were last used: one statement for every key seen since the last flush.
 * A value never moves backwards (another process may have written a later one). The rows are
 * locked in id order first, as a deciding approval vote holds its voters' keys (FOR SHARE,
 * policies/store.ts standingVoters): an UPDATE locks in whatever order its plan visits rows,
 * and two keys taken in opposite orders deadlocked the flush with the vote.
 */
export async function recordLastUse(db: DbConn, uses: { id: string; at: Date }[]): Promise<void> {
  if (uses.length === 0) return;
  await sql`
    WITH locked AS (SELECT id FROM api_keys WHERE id = ANY(${uses.map((u) => u.id)}::uuid[]) ORDER BY id FOR NO KEY UPDATE)
    UPDATE api_keys AS k SET last_used_at = u.at
      FROM unnest(${uses.map((u) => u.id)}::uuid[], ${uses.map((u) => u.at.toISOString())}::timestamptz[]) AS u(id, at), locked l
     WHERE k.id = u.id AND l.id = u.id AND (k.last_used_at IS NULL OR k.last_used_at < u.at)`.execute(db);
}
