import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { sameAddress } from '../../db/address-sql.js';
import { addressKey } from '../../chains/address-key.js';

export interface NewAddress {
  id: string;
  walletId: string;
  chainId: string;
  index: number | null;
  address: string;
  name: string | null;
  metadata: Record<string, unknown> | null;
  type: 'INTERNAL' | 'EXTERNAL';
  derivationPath: string | null;
  configurations: Record<string, unknown>;
}

/**
 * Reserves `wanted` consecutive derivation indexes under the wallet's row lock, within the
 * address limit, once `admit` accepts the wallet as read under that lock (it throws to refuse). Returns the first index and how many were granted (possibly 0). Must run
 * inside the transaction that inserts the addresses: a rollback releases the indexes, so
 * they never leave a gap.
 */
export async function reserveIndexes(
  db: DbConn,
  walletId: string,
  wanted: number,
  admit: (wallet: { is_active: boolean; configurations: unknown }) => void = () => {},
): Promise<{ first: number; granted: number } | null> {
  const wallet = await db
    .selectFrom('wallets')
    .select(['next_index', 'address_limit', 'is_active', 'configurations'])
    .where('id', '=', walletId)
    // NO KEY: foreign-key checks of rows naming the wallet (deposits, withdrawals) pass.
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!wallet) return null;
  // The wallet as its last change left it (a PATCH holds this row until its COMMIT).
  admit(wallet);
  const used = wallet.next_index - 1;
  const granted = Math.max(0, Math.min(wanted, wallet.address_limit - used));
  if (granted > 0) {
    await db
      .updateTable('wallets')
      .set({ next_index: wallet.next_index + granted })
      .where('id', '=', walletId)
      .execute();
  }
  return { first: wallet.next_index, granted };
}

/** Inserts the rows and returns them as stored (defaults and timestamps filled). */
export async function insertAddresses(db: DbConn, rows: NewAddress[]): Promise<AddressRow[]> {
  if (rows.length === 0) return [];
  return db
    .insertInto('addresses')
    .values(
      rows.map((r) => ({
        id: r.id,
        wallet_id: r.walletId,
        chain_id: r.chainId,
        derivation_index: r.index,
        address: r.address,
        name: r.name,
        metadata: r.metadata === null ? null : JSON.stringify(r.metadata),
        type: r.type,
        derivation_path: r.derivationPath,
        configurations: JSON.stringify(r.configurations),
      })),
    )
    .returningAll()
    .execute();
}

/** A live address of the wallet (removed external addresses are gone from the API). */
export function findAddress(db: DbConn, walletId: string, id: string) {
  return db
    .selectFrom('addresses')
    .selectAll()
    .where('wallet_id', '=', walletId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export type AddressRow = NonNullable<Awaited<ReturnType<typeof findAddress>>>;

export function findAddressById(db: DbConn, id: string) {
  return db.selectFrom('addresses').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findAddressesByIds(db: DbConn, ids: string[]) {
  if (ids.length === 0) return Promise.resolve([] as AddressRow[]);
  return db
    .selectFrom('addresses')
    .selectAll()
    .where('id', '=', sql<string>`any(${ids}::uuid[])`)
    .execute();
}

export function findByAddress(db: DbConn, walletId: string, address: string) {
  return db
    .selectFrom('addresses')
    .selectAll()
    .where('wallet_id', '=', walletId)
    .where(sameAddress('address', address))
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}

export interface AddressFilter {
  type?: 'INTERNAL' | 'EXTERNAL';
  isActive?: boolean;
}

export function listAddresses(db: DbConn, walletId: string, filter: AddressFilter, offset: number, limit: number) {
  let q = db.selectFrom('addresses').selectAll().where('wallet_id', '=', walletId).where('deleted_at', 'is', null);
  if (filter.type) q = q.where('type', '=', filter.type);
  if (filter.isActive !== undefined) q = q.where('is_active', '=', filter.isActive);
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').offset(offset).limit(limit).execute();
}

export async function countAddresses(db: DbConn, walletId: string, filter: AddressFilter): Promise<number> {
  let q = db
    .selectFrom('addresses')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('wallet_id', '=', walletId)
    .where('deleted_at', 'is', null);
  if (filter.type) q = q.where('type', '=', filter.type);
  if (filter.isActive !== undefined) q = q.where('is_active', '=', filter.isActive);
  return Number((await q.executeTakeFirstOrThrow()).n);
}

export async function analytics(db: DbConn, walletId: string) {
  const row = await db
    .selectFrom('addresses')
    .select([
      sql<string>`count(*)`.as('total'),
      sql<string>`count(*) filter (where is_active)`.as('active'),
      sql<string>`count(*) filter (where not is_active)`.as('inactive'),
      sql<string>`count(*) filter (where type = 'INTERNAL')`.as('internal'),
      sql<string>`count(*) filter (where type = 'EXTERNAL')`.as('external'),
    ])
    .where('wallet_id', '=', walletId)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return {
    total: Number(row.total),
    active: Number(row.active),
    inactive: Number(row.inactive),
    internal: Number(row.internal),
    external: Number(row.external),
  };
}

export interface AddressPatch {
  name?: string | null;
  metadata?: Record<string, unknown> | null;
  isActive?: boolean;
  configurations?: Record<string, unknown>;
}

export async function updateAddress(db: DbConn, id: string, patch: AddressPatch): Promise<void> {
  await db
    .updateTable('addresses')
    .set({
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.metadata !== undefined ? { metadata: patch.metadata === null ? null : JSON.stringify(patch.metadata) } : {}),
      ...(patch.isActive !== undefined ? { is_active: patch.isActive } : {}),
      ...(patch.configurations !== undefined ? { configurations: JSON.stringify(patch.configurations) } : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .execute();
}

export function lockAddress(db: DbConn, id: string) {
  return db.selectFrom('addresses').select(['id', 'configurations']).where('id', '=', id).forNoKeyUpdate().executeTakeFirst();
}

/**
 * Serialises registrations of one address on one wallet (transaction-scoped advisory lock):
 * two requests at once would both find no row and both insert (the unique index refuses the
 * second: a 500), or both bring back one removed row (both answered 200).
 */
export async function lockRegistration(db: DbConn, walletId: string, address: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`address_registration:${walletId}:${addressKey(address)}`}, 0))`.execute(db);
}

/** Any row for this on-chain address in the wallet, removed ones included. */
export function findAnyByAddress(db: DbConn, walletId: string, address: string) {
  return db.selectFrom('addresses').selectAll().where('wallet_id', '=', walletId).where(sameAddress('address', address)).executeTakeFirst();
}

export async function setDeleted(
  db: DbConn,
  id: string,
  deleted: boolean,
  patch: { name?: string | null; metadata?: Record<string, unknown> | null } = {},
): Promise<void> {
  await db
    .updateTable('addresses')
    .set({
      deleted_at: deleted ? sql`now()` : null,
      is_active: !deleted,
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.metadata !== undefined ? { metadata: patch.metadata === null ? null : JSON.stringify(patch.metadata) } : {}),
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Whether the service holds the key of this address on the chain: some wallet's master
 * address, a child address of any wallet, or one whose key a wallet imported (whichever
 * tenant's).
 */
export async function isServiceAddress(db: DbConn, chainId: string, address: string): Promise<boolean> {
  const same = sameAddress('address', address);
  const { rows } = await sql<{ held: boolean }>`
    SELECT EXISTS (SELECT 1 FROM wallets WHERE chain_id = ${chainId} AND ${same})
        OR EXISTS (SELECT 1 FROM addresses WHERE chain_id = ${chainId} AND ${same} AND type = 'INTERNAL')
        OR EXISTS (SELECT 1 FROM address_keys WHERE chain_id = ${chainId} AND ${same}) AS held`.execute(db);
  return rows[0]!.held;
}

/** A sealed key imported for an address (keys.ts); one holder per address and chain (unique index). */
export async function insertAddressKey(
  db: DbConn,
  k: { addressId: string; walletId: string; chainId: string; address: string; ciphertext: Buffer },
): Promise<void> {
  await db
    .insertInto('address_keys')
    .values({ address_id: k.addressId, wallet_id: k.walletId, chain_id: k.chainId, address: k.address, key_ciphertext: k.ciphertext })
    .execute();
  await db
    .updateTable('addresses')
    .set({ key_imported: true, updated_at: sql`now()` })
    .where('id', '=', k.addressId)
    .execute();
}

export function readAddressKey(db: DbConn, walletId: string, address: string) {
  return db
    .selectFrom('address_keys')
    .select(['address_id', 'address', 'key_ciphertext'])
    .where('wallet_id', '=', walletId)
    .where(sameAddress('address', address))
    .executeTakeFirst();
}

/** Forgets an imported key (the address is removed with it). */
export async function deleteAddressKey(db: DbConn, addressId: string): Promise<boolean> {
  const res = await db.deleteFrom('address_keys').where('address_id', '=', addressId).executeTakeFirst();
  await db.updateTable('addresses').set({ key_imported: false }).where('id', '=', addressId).execute();
  return Number(res.numDeletedRows) > 0;
}

/**
 * What is still in flight from the address: outbound transactions not yet final (they may
 * be signed again), sweeps under way and recoveries under way (their transfer is signed once
 * the top-up or the loan lands, on whichever chain of the family they recover from). Its
 * imported key must stay while any is.
 */
export async function pendingOutboundFrom(db: DbConn, walletId: string, addressId: string, address: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT (SELECT count(*) FROM outbound_txs
             WHERE wallet_id = ${walletId} AND ${sameAddress('from_address', address)}
               AND stage NOT IN ('mined', 'failed', 'dropped', 'replaced'))
         + (SELECT count(*) FROM sweeps WHERE address_id = ${addressId} AND status = 'pending')
         + (SELECT count(*) FROM salvages WHERE wallet_id = ${walletId} AND ${sameAddress('sender', address)} AND status = 'pending') AS n`.execute(
    db,
  );
  return Number(rows[0]!.n);
}

/**
 * The address row locked (as a removal locks it), and whether the service still holds its
 * key: a flow that will sign from it later (a recovery) is written only under this lock, so a
 * removal either sees it in flight (pendingOutboundFrom) or has forgotten the key first.
 */
export async function lockKeyHolder(db: DbConn, id: string): Promise<boolean> {
  const row = await db
    .selectFrom('addresses')
    .select(['type', 'derivation_index', 'key_imported', 'deleted_at'])
    .where('id', '=', id)
    .forNoKeyUpdate()
    .executeTakeFirst();
  return !!row && row.deleted_at === null && ((row.type === 'INTERNAL' && row.derivation_index !== null) || row.key_imported);
}
