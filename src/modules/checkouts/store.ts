/** SQL of payment links and checkout sessions (migration 035). */
import { sql } from 'kysely';
import { isUniqueViolation, type DbConn } from '../../db/pool.js';
import { jobs } from '../../jobs/store.js';
import type { CheckoutStatus } from './schemas.js';

export interface LinkRow {
  id: string;
  business_id: string;
  slug: string;
  name: string;
  description: string | null;
  amount: string | null;
  currency: string;
  active: boolean;
  payment_limit: number | null;
  redirect_url: string | null;
  success_message: string | null;
  inactive_message: string | null;
  metadata: Record<string, unknown> | null;
  image_type: string | null;
  configurations: Record<string, unknown>;
  network: string;
  created_channel: 'api' | 'dashboard';
  created_at: Date;
  updated_at: Date;
  /** Settled sessions. */
  payments: number;
}

const LINK = sql`l.id, l.business_id, l.slug, l.name, l.description, l.amount::text AS amount, l.currency, l.active, l.payment_limit,
  l.redirect_url, l.success_message, l.inactive_message, l.metadata, l.image_type, l.configurations, l.network, l.created_channel,
  l.created_at, l.updated_at,
  (SELECT count(*)::int FROM checkouts c WHERE c.link_id = l.id AND c.status = 'settled') AS payments`;

export interface AcceptRow {
  link_id: string;
  wallet_id: string;
  asset_id: string;
}

export interface NewLink {
  id: string;
  businessId: string;
  slug: string;
  name: string;
  description: string | null;
  amount: string | null;
  paymentLimit: number | null;
  redirectUrl: string | null;
  successMessage: string | null;
  inactiveMessage: string | null;
  metadata: Record<string, unknown> | null;
  image: { data: Buffer; type: string } | null;
  configurations: Record<string, unknown>;
  network: string;
  createdChannel: 'api' | 'dashboard';
  now: Date;
  accepts: { walletId: string; assetId: string }[];
}

/** Inserts a link and what it accepts; false when the slug is taken (compared without case). */
export async function insertLink(db: DbConn, l: NewLink): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    INSERT INTO payment_links (id, business_id, slug, name, description, amount, payment_limit, redirect_url, success_message,
                               inactive_message, metadata, image, image_type, configurations, network, created_channel, created_at, updated_at)
    VALUES (${l.id}, ${l.businessId}, ${l.slug}, ${l.name}, ${l.description}, ${l.amount}::numeric, ${l.paymentLimit}, ${l.redirectUrl},
            ${l.successMessage}, ${l.inactiveMessage}, ${l.metadata === null ? null : JSON.stringify(l.metadata)}::jsonb,
            ${l.image?.data ?? null}, ${l.image?.type ?? null}, ${JSON.stringify(l.configurations)}::jsonb, ${l.network},
            ${l.createdChannel}, ${l.now}, ${l.now})
    ON CONFLICT ((lower(slug))) DO NOTHING
    RETURNING id`.execute(db);
  if (rows.length === 0) return false;
  await sql`
    INSERT INTO payment_link_assets (link_id, wallet_id, asset_id, position)
    SELECT ${l.id}, w, a, n FROM unnest(${l.accepts.map((x) => x.walletId)}::uuid[], ${l.accepts.map((x) => x.assetId)}::uuid[])
      WITH ORDINALITY AS t(w, a, n)`.execute(db);
  return true;
}

/**
 * Claims `slug` for a link of `businessId` (migration 050): false when another business has
 * ever held it (now or before a rename). Run in the transaction that gives the link the slug.
 */
export async function claimSlug(db: DbConn, slug: string, businessId: string, linkId: string): Promise<boolean> {
  const { rows } = await sql<{ slug_key: string }>`
    INSERT INTO payment_link_slugs (slug_key, business_id, link_id) VALUES (lower(${slug}), ${businessId}, ${linkId})
    ON CONFLICT (slug_key) DO UPDATE SET link_id = EXCLUDED.link_id, claimed_at = now()
      WHERE payment_link_slugs.business_id = EXCLUDED.business_id
    RETURNING slug_key`.execute(db);
  return rows.length > 0;
}

/** Whether the link holds this slug's claim (its slug now, or one it was renamed away from and no link of its business took since). */
export async function holdsSlug(db: DbConn, slug: string, linkId: string): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM payment_link_slugs WHERE slug_key = lower(${slug}) AND link_id = ${linkId}`.execute(db);
  return rows.length > 0;
}

export async function findLink(db: DbConn, id: string, forUpdate = false): Promise<LinkRow | undefined> {
  const { rows } = await sql<LinkRow>`SELECT ${LINK} FROM payment_links l WHERE l.id = ${id}
    ${forUpdate ? sql`FOR NO KEY UPDATE` : sql``}`.execute(db);
  return rows[0];
}

export async function findLinkBySlug(db: DbConn, slug: string): Promise<LinkRow | undefined> {
  const { rows } = await sql<LinkRow>`SELECT ${LINK} FROM payment_links l WHERE lower(l.slug) = lower(${slug})`.execute(db);
  return rows[0];
}

/**
 * The business's links, newest first; `walletId` (a wallet key) keeps those that accept only
 * that wallet.
 */
export async function listLinks(db: DbConn, businessId: string, walletId: string | null, offset: number, limit: number) {
  const reach =
    walletId === null
      ? sql``
      : sql`AND NOT EXISTS (SELECT 1 FROM payment_link_assets p WHERE p.link_id = l.id AND p.wallet_id <> ${walletId})`;
  const [{ rows }, { rows: count }] = await Promise.all([
    sql<LinkRow>`SELECT ${LINK} FROM payment_links l WHERE l.business_id = ${businessId} ${reach}
      ORDER BY l.created_at DESC, l.id DESC OFFSET ${offset} LIMIT ${limit}`.execute(db),
    sql<{ n: number }>`SELECT count(*)::int AS n FROM payment_links l WHERE l.business_id = ${businessId} ${reach}`.execute(db),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

export async function acceptsOf(db: DbConn, linkIds: string[]): Promise<AcceptRow[]> {
  if (linkIds.length === 0) return [];
  const { rows } = await sql<AcceptRow>`SELECT link_id, wallet_id, asset_id FROM payment_link_assets
    WHERE link_id = ANY(${linkIds}::uuid[]) ORDER BY link_id, position`.execute(db);
  return rows;
}

export interface LinkPatch {
  name?: string;
  description?: string | null;
  amount?: string | null;
  paymentLimit?: number | null;
  redirectUrl?: string | null;
  successMessage?: string | null;
  inactiveMessage?: string | null;
  metadata?: Record<string, unknown> | null;
  slug?: string;
  active?: boolean;
  configurations?: Record<string, unknown>;
  image?: { data: Buffer; type: string };
}

/** Applies a patch; false when the new slug is taken. */
export async function updateLink(db: DbConn, id: string, p: LinkPatch, now: Date): Promise<boolean> {
  const set: ReturnType<typeof sql>[] = [sql`updated_at = ${now}`];
  const col = (name: string, value: unknown) => set.push(sql`${sql.ref(name)} = ${value}`);
  if (p.name !== undefined) col('name', p.name);
  if (p.description !== undefined) col('description', p.description);
  if (p.amount !== undefined) set.push(sql`amount = ${p.amount}::numeric`);
  if (p.paymentLimit !== undefined) col('payment_limit', p.paymentLimit);
  if (p.redirectUrl !== undefined) col('redirect_url', p.redirectUrl);
  if (p.successMessage !== undefined) col('success_message', p.successMessage);
  if (p.inactiveMessage !== undefined) col('inactive_message', p.inactiveMessage);
  if (p.metadata !== undefined) set.push(sql`metadata = ${p.metadata === null ? null : JSON.stringify(p.metadata)}::jsonb`);
  if (p.slug !== undefined) col('slug', p.slug);
  if (p.active !== undefined) col('active', p.active);
  if (p.configurations !== undefined) set.push(sql`configurations = ${JSON.stringify(p.configurations)}::jsonb`);
  if (p.image !== undefined) {
    col('image', p.image.data);
    col('image_type', p.image.type);
  }
  const taken = p.slug === undefined ? null : await findLinkBySlug(db, p.slug);
  if (taken && taken.id !== id) return false;
  try {
    await sql`UPDATE payment_links SET ${sql.join(set)} WHERE id = ${id}`.execute(db);
  } catch (err) {
    // Another link took the slug after the read above (its transaction not committed then):
    // the unique index decides, and the caller's transaction is rolled back with SLUG_TAKEN.
    if (p.slug !== undefined && isUniqueViolation(err, 'payment_links_slug')) return false;
    throw err;
  }
  return true;
}

export async function imageOf(db: DbConn, id: string): Promise<{ image: Buffer; image_type: string } | undefined> {
  const { rows } = await sql<{ image: Buffer; image_type: string }>`
    SELECT image, image_type FROM payment_links WHERE id = ${id} AND image IS NOT NULL`.execute(db);
  return rows[0];
}

// ---- checkout sessions -------------------------------------------------------------------

export interface CheckoutRow {
  id: string;
  link_id: string;
  business_id: string;
  wallet_id: string;
  asset_id: string;
  address_id: string;
  address: string;
  amount: string;
  threshold: string;
  seen_in_time: string;
  seen_late: string;
  amount_confirmed: string;
  status: CheckoutStatus;
  partial: boolean;
  overpaid: boolean;
  paid_late: boolean;
  expires_at: Date;
  monitor_until: Date;
  payment_reference: string | null;
  reference: string | null;
  email: string | null;
  payer_name: string | null;
  redirect_url: string | null;
  metadata: Record<string, unknown> | null;
  created_channel: 'api' | 'page';
  settled_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

const CHECKOUT = sql`id, link_id, business_id, wallet_id, asset_id, address_id, address, amount::text AS amount, threshold::text AS threshold,
  seen_in_time::text AS seen_in_time, seen_late::text AS seen_late, amount_confirmed::text AS amount_confirmed, status, partial, overpaid, paid_late, expires_at,
  monitor_until, payment_reference, reference, email, payer_name, redirect_url, metadata, created_channel, settled_at, created_at, updated_at`;

export interface NewCheckout {
  id: string;
  linkId: string;
  businessId: string;
  walletId: string;
  assetId: string;
  addressId: string;
  address: string;
  amount: bigint;
  threshold: bigint;
  expiresAt: Date;
  monitorUntil: Date;
  paymentReference: string | null;
  reference: string | null;
  email: string | null;
  payerName: string | null;
  redirectUrl: string | null;
  metadata: Record<string, unknown> | null;
  createdChannel: 'api' | 'page';
  now: Date;
}

export async function insertCheckout(db: DbConn, c: NewCheckout): Promise<CheckoutRow> {
  const { rows } = await sql<CheckoutRow>`
    INSERT INTO checkouts (id, link_id, business_id, wallet_id, asset_id, address_id, address, amount, threshold, status, expires_at,
                           monitor_until, payment_reference, reference, email, payer_name, redirect_url, metadata, created_channel,
                           created_at, updated_at)
    VALUES (${c.id}, ${c.linkId}, ${c.businessId}, ${c.walletId}, ${c.assetId}, ${c.addressId}, ${c.address}, ${c.amount.toString()},
            ${c.threshold.toString()}, 'new', ${c.expiresAt}, ${c.monitorUntil}, ${c.paymentReference}, ${c.reference}, ${c.email},
            ${c.payerName}, ${c.redirectUrl}, ${c.metadata === null ? null : JSON.stringify(c.metadata)}::jsonb, ${c.createdChannel},
            ${c.now}, ${c.now})
    RETURNING ${CHECKOUT}`.execute(db);
  return rows[0]!;
}

/**
 * `forUpdate`: locked against other recomputes, but not against the indexer attaching a
 * payment meanwhile (its checkout_payments row's key share on the session): FOR NO KEY UPDATE,
 * so a page poll or the tick never waits for a whole indexer range.
 */
export async function findCheckout(db: DbConn, id: string, forUpdate = false): Promise<CheckoutRow | undefined> {
  const { rows } =
    await sql<CheckoutRow>`SELECT ${CHECKOUT} FROM checkouts WHERE id = ${id} ${forUpdate ? sql`FOR NO KEY UPDATE` : sql``}`.execute(db);
  return rows[0];
}

/**
 * The session locked against key shares too (FOR UPDATE), without waiting: false when a
 * transaction attaching a payment to it (queuePayments: its checkout_payments row's key share)
 * is still open. Taken by a recompute that would expire the session.
 */
export async function lockCheckoutAlone(db: DbConn, id: string): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM checkouts WHERE id = ${id} FOR UPDATE SKIP LOCKED`.execute(db);
  return rows.length > 0;
}

export async function findCheckouts(db: DbConn, ids: string[]): Promise<CheckoutRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<CheckoutRow>`SELECT ${CHECKOUT} FROM checkouts WHERE id = ANY(${ids}::uuid[])`.execute(db);
  return rows;
}

export async function listCheckouts(db: DbConn, linkId: string, offset: number, limit: number) {
  const [{ rows }, { rows: count }] = await Promise.all([
    sql<CheckoutRow>`SELECT ${CHECKOUT} FROM checkouts WHERE link_id = ${linkId}
      ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`.execute(db),
    sql<{ n: number }>`SELECT count(*)::int AS n FROM checkouts WHERE link_id = ${linkId}`.execute(db),
  ]);
  return { rows, total: count[0]?.n ?? 0 };
}

/**
 * The session's payments, summed: in time or late, seen (not failed) and confirmed, and
 * `everSeenInTime`, what was seen in time failed ones included (a reorg took them away; a
 * deposit mined again is the same row, revived, so nothing counts twice). A deposit AML screening holds (a listed sender,
 * docs/aml.md) is seen but not confirmed: it cannot settle the session until an operator
 * releases it (the release emits deposit.confirmed, which recomputes the session).
 * `confirmedByWindow`: of the confirmed in time, those confirmed (or released) before the
 * monitoring window ended (confirmed_at is only set within it: attachPayments).
 */
export async function totalsOf(db: DbConn, checkoutId: string) {
  const { rows } = await sql<{
    seen_in_time: string;
    ever_in_time: string;
    confirmed_in_time: string;
    confirmed_by_window: string;
    seen_late: string;
    confirmed: string;
  }>`
    SELECT coalesce(sum(t.amount) FILTER (WHERE NOT p.late AND t.status <> 'FAILED'), 0)::text AS seen_in_time,
           coalesce(sum(t.amount) FILTER (WHERE NOT p.late), 0)::text AS ever_in_time,
           coalesce(sum(t.amount) FILTER (WHERE NOT p.late AND t.status = 'SUCCESS' AND NOT t.aml_held), 0)::text AS confirmed_in_time,
           coalesce(sum(t.amount) FILTER (WHERE NOT p.late AND t.status = 'SUCCESS' AND NOT t.aml_held AND p.confirmed_at IS NOT NULL), 0)::text
             AS confirmed_by_window,
           coalesce(sum(t.amount) FILTER (WHERE p.late AND t.status <> 'FAILED'), 0)::text AS seen_late,
           coalesce(sum(t.amount) FILTER (WHERE t.status = 'SUCCESS' AND NOT t.aml_held), 0)::text AS confirmed
      FROM checkout_payments p JOIN transactions t ON t.id = p.transaction_id
     WHERE p.checkout_id = ${checkoutId}`.execute(db);
  const r = rows[0]!;
  return {
    seenInTime: BigInt(r.seen_in_time),
    everSeenInTime: BigInt(r.ever_in_time),
    confirmedInTime: BigInt(r.confirmed_in_time),
    confirmedByWindow: BigInt(r.confirmed_by_window),
    seenLate: BigInt(r.seen_late),
    confirmed: BigInt(r.confirmed),
  };
}

export interface CheckoutUpdate {
  status: CheckoutStatus;
  partial: boolean;
  overpaid: boolean;
  paidLate: boolean;
  seenInTime: bigint;
  seenLate: bigint;
  confirmed: bigint;
  now: Date;
}

export async function updateCheckout(db: DbConn, id: string, u: CheckoutUpdate): Promise<void> {
  await sql`UPDATE checkouts SET status = ${u.status}, partial = ${u.partial}, overpaid = ${u.overpaid}, paid_late = ${u.paidLate},
      seen_in_time = ${u.seenInTime.toString()}, seen_late = ${u.seenLate.toString()}, amount_confirmed = ${u.confirmed.toString()},
      settled_at = CASE WHEN ${u.status} = 'settled' AND settled_at IS NULL THEN ${u.now}::timestamptz ELSE settled_at END,
      updated_at = ${u.now}
    WHERE id = ${id}`.execute(db);
}

/**
 * Attaches deposits to the sessions of their addresses (same asset), each once, with the
 * time the service first saw it; a deposit seen after a session's monitoring window is not
 * the session's. Returns the sessions the deposits concern (attached now or before:
 * queuePayments attaches them as they are recorded; the job's call covers jobs queued before
 * it did).
 */
export async function attachPayments(db: DbConn, depositIds: string[], seenAt: Date): Promise<string[]> {
  const { rows } = await sql<{ checkout_id: string }>`
    WITH d AS (
      SELECT t.id AS transaction_id, c.id AS checkout_id, c.expires_at, c.monitor_until, c.status
        FROM transactions t JOIN checkouts c ON c.address_id = t.address_id AND c.asset_id = t.asset_id
       WHERE t.id = ANY(${depositIds}::uuid[]) AND t.type = 'DEPOSIT'
      -- The key share the insert's foreign key would take, taken here: a recompute expiring the
      -- session (FOR UPDATE, recompute) is waited for, and its status read as it committed it.
      -- Read from this statement's snapshot, the session still looked open: the payment went in
      -- "in time" to a session that had just expired, told by no event.
         FOR KEY SHARE OF c
    ), ins AS (
      INSERT INTO checkout_payments (transaction_id, checkout_id, seen_at, late, confirmed_at)
      -- Late too when the session is closed already: another process (its clock a little ahead,
      -- or between this clock reading and this insert) expired it on seeing nothing in time. In
      -- time, it would be counted by no rule of a final session and told by no event.
      -- Confirmed (or released from an AML hold) now, within the window: when, kept once, so
      -- a recompute after the window still counts it (status.ts, confirmedByWindow).
      SELECT d.transaction_id, d.checkout_id, ${seenAt}, ${seenAt} >= d.expires_at OR d.status IN ('expired', 'invalid'),
             CASE WHEN t.status = 'SUCCESS' AND NOT t.aml_held THEN ${seenAt}::timestamptz END
        FROM d JOIN transactions t ON t.id = d.transaction_id WHERE ${seenAt} < d.monitor_until
      ON CONFLICT (transaction_id) DO UPDATE SET confirmed_at = coalesce(checkout_payments.confirmed_at, EXCLUDED.confirmed_at)
    )
    SELECT DISTINCT d.checkout_id FROM d`.execute(db);
  return rows.map((r) => r.checkout_id);
}

/**
 * Deposits made to a session's address in its asset, in the transaction that recorded or
 * confirmed them (the indexer's): attached to the session there, first sighting kept (seen
 * at `seenAt`, late when at or past its deadline; nothing past its monitoring window), and
 * `checkout_payments` queued to move the sessions on. Attached here, not by the job: a read
 * of the session that comes before the job (past its deadline, with the worker behind or
 * down) counts the payment, and a payment seen in time never turns the session `expired`.
 */
export async function queuePayments(db: DbConn, depositIds: string[], seenAt: Date): Promise<void> {
  if ((await attachPayments(db, depositIds, seenAt)).length === 0) return;
  await jobs.checkout_payments.add(db, { depositIds, seenAt: seenAt.toISOString() });
}

export interface DueCheckout {
  id: string;
  expires_at: Date;
}

/**
 * Open sessions whose deadline or monitoring window has passed by `now` (the tick's work),
 * oldest deadline first, a page of `limit` after `after` (the last of the previous page).
 */
export async function dueCheckouts(db: DbConn, now: Date, limit: number, after?: DueCheckout): Promise<DueCheckout[]> {
  const { rows } = await sql<DueCheckout>`
    SELECT id, expires_at FROM checkouts
     WHERE status IN ('new', 'processing') AND (monitor_until <= ${now} OR (expires_at <= ${now} AND seen_in_time < threshold
       -- Enough seen in time and reorged away since waits out the window (status.ts): not due before it.
       AND (SELECT coalesce(sum(t.amount), 0) FROM checkout_payments p JOIN transactions t ON t.id = p.transaction_id
             WHERE p.checkout_id = checkouts.id AND NOT p.late) < threshold))
       ${after ? sql`AND (expires_at, id) > (${after.expires_at}, ${after.id}::uuid)` : sql``}
     ORDER BY expires_at, id LIMIT ${limit}`.execute(db);
  return rows;
}

/**
 * Sessions that hold one of a link's payments (its paymentLimit): settled, or open and able
 * to settle: before their deadline, or with a payment seen in time (waiting for its
 * confirmations, or for the job that counts it). A session that expired or ended invalid
 * frees its place.
 */
export async function heldPayments(db: DbConn, linkId: string, now: Date): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    SELECT count(*)::int AS n FROM checkouts c
     WHERE c.link_id = ${linkId}
       AND (c.status = 'settled' OR (c.status IN ('new', 'processing') AND (c.expires_at > ${now}
         OR EXISTS (SELECT 1 FROM checkout_payments p WHERE p.checkout_id = c.id AND NOT p.late))))`.execute(db);
  return rows[0]?.n ?? 0;
}

/** The link's payment limit as it stands, its row locked: session starts of one link one at a time. */
export async function lockLinkLimit(db: DbConn, linkId: string): Promise<number | null> {
  const { rows } = await sql<{
    payment_limit: number | null;
  }>`SELECT payment_limit FROM payment_links WHERE id = ${linkId} FOR UPDATE`.execute(db);
  return rows[0]?.payment_limit ?? null;
}
