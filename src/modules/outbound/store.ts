import { sql } from 'kysely';
import type { IntentBody, NetworkData, Receipt, ReceiptDetails } from '../../chains/types.js';
import type { DbConn } from '../../db/pool.js';
import type { OutboundRow, Stage } from '../../outbound-row.js';

export type { OutboundRow, Stage } from '../../outbound-row.js';

interface DbRow {
  id: string;
  chain_id: string;
  wallet_id: string;
  from_address: string;
  from_index: number | null;
  nonce: string | null;
  kind: IntentBody['kind'];
  to_address: string;
  value: string;
  data: string | null;
  token: string | null;
  memo: string | null;
  more: { to: string; amount: string }[] | null;
  network_data: NetworkData;
  fee_payer: string | null;
  fee_ceiling: string | null;
  raw: string | null;
  hash: string | null;
  stage: Stage;
  purpose: string;
  owner_id: string | null;
  replaced_by: string | null;
  block_number: string | null;
  block_hash: string | null;
  fee: string | null;
  receipt_details: ReceiptDetails | null;
  status: 'success' | 'reverted' | null;
  error: string | null;
  attempts: number;
  conflict_seen_at: Date | null;
  created_at: Date;
  updated_at: Date;
  broadcast_at: Date | null;
}

const big = (v: string | null): bigint | null => (v === null ? null : BigInt(v));

function toRow(r: DbRow): OutboundRow {
  return {
    id: r.id,
    chainId: r.chain_id,
    walletId: r.wallet_id,
    fromAddress: r.from_address,
    fromIndex: r.from_index,
    nonce: big(r.nonce),
    intent: intentOfColumns(r),
    network: r.network_data,
    feePayer: r.fee_payer,
    feeCeiling: big(r.fee_ceiling),
    raw: r.raw,
    hash: r.hash,
    stage: r.stage,
    purpose: r.purpose,
    ownerId: r.owner_id,
    replacedBy: r.replaced_by,
    receipt:
      r.status === null
        ? null
        : {
            status: r.status,
            block: { number: BigInt(r.block_number!), hash: r.block_hash! },
            fee: BigInt(r.fee!),
            details: r.receipt_details ?? {},
          },
    error: r.error,
    attempts: r.attempts,
    conflictSeenAt: r.conflict_seen_at,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    broadcastAt: r.broadcast_at,
  };
}

const one = (rows: DbRow[]): OutboundRow | undefined => (rows[0] ? toRow(rows[0]) : undefined);

/**
 * An intent as its columns keep it: `to_address` is the recipient (the first, for several
 * payments) or the contract called; `value` the amount moved in the intent's asset (the
 * native coin, or `token`), a call's native value; `data` a call's calldata; `more` the
 * other payments of a token batch.
 */
function columnsOfIntent(i: IntentBody) {
  return {
    kind: i.kind,
    to_address: i.to,
    value: (i.kind === 'call' ? i.value : i.amount).toString(),
    data: i.kind === 'call' ? i.data : null,
    token: i.kind === 'token' ? i.token : null,
    memo: i.kind !== 'call' ? (i.memo ?? null) : null,
    more: i.kind === 'token' && i.more?.length ? JSON.stringify(i.more.map((p) => ({ to: p.to, amount: p.amount.toString() }))) : null,
  };
}

function intentOfColumns(r: Pick<DbRow, 'kind' | 'to_address' | 'value' | 'data' | 'token' | 'memo' | 'more'>): IntentBody {
  const memo = r.memo !== null ? { memo: r.memo } : {};
  switch (r.kind) {
    case 'native':
      return { kind: 'native', to: r.to_address, amount: BigInt(r.value), ...memo };
    case 'token':
      return {
        kind: 'token',
        token: r.token!,
        to: r.to_address,
        amount: BigInt(r.value),
        ...memo,
        ...(r.more ? { more: r.more.map((p) => ({ to: p.to, amount: BigInt(p.amount) })) } : {}),
      };
    case 'call':
      return { kind: 'call', to: r.to_address, value: BigInt(r.value), data: r.data! };
  }
}

// ---- nonces: nonce-store.ts (the 'nonce' families' counters) -----------------------

export * from './nonce-store.js';
export * from './owners-store.js';
export * from './jobs-store.js';

// ---- rows ----------------------------------------------------------------------------

export interface NewOutbound {
  id: string;
  chainId: string;
  walletId: string;
  fromAddress: string;
  /** null: an address whose key the wallet imported (signed with that key, by address). */
  fromIndex: number | null;
  /** The ordering slot on 'nonce' families; null on 'expiry' families (the deadline is in `network`). */
  nonce: bigint | null;
  intent: IntentBody;
  network: NetworkData;
  /** See OutboundRow.feePayer; absent: the sender pays. */
  feePayer?: string | null;
  /** See OutboundRow.feeCeiling; absent: no bound. */
  feeCeiling?: bigint | null;
  purpose: string;
  ownerId: string | null;
}

export async function insertOutbound(db: DbConn, r: NewOutbound): Promise<void> {
  await insertOutbounds(db, [r]);
}

/** Many rows in one statement. */
export async function insertOutbounds(db: DbConn, list: NewOutbound[]): Promise<void> {
  if (list.length === 0) return;
  const values = list.map((r) => {
    const c = columnsOfIntent(r.intent);
    return sql`(${r.id}, ${r.chainId}, ${r.walletId}, ${r.fromAddress}, ${r.fromIndex}, ${r.nonce}, ${c.kind}, ${c.to_address},
                ${c.value}, ${c.data}, ${c.token}, ${c.memo}, ${c.more}::jsonb, ${JSON.stringify(r.network)}::jsonb,
                ${r.feePayer ?? null}, ${r.feeCeiling?.toString() ?? null}, 'created', ${r.purpose}, ${r.ownerId})`;
  });
  await sql`INSERT INTO outbound_txs (id, chain_id, wallet_id, from_address, from_index, nonce, kind, to_address, value, data,
                                      token, memo, more, network_data, fee_payer, fee_ceiling, stage, purpose, owner_id)
            VALUES ${sql.join(values)}`.execute(db);
}

export async function findOutbound(db: DbConn, id: string): Promise<OutboundRow | undefined> {
  const { rows } = await sql<DbRow>`SELECT * FROM outbound_txs WHERE id = ${id}`.execute(db);
  return one(rows);
}

export async function outboundOfOwner(db: DbConn, ownerId: string): Promise<OutboundRow[]> {
  // Its own rows and those of the multi-owner rows it belongs to (owners-store.ts).
  const { rows } = await sql<DbRow>`SELECT * FROM outbound_txs WHERE owner_id = ${ownerId} OR owner_id IN
    (SELECT group_id FROM outbound_owners WHERE owner_id = ${ownerId}) ORDER BY created_at, id`.execute(db);
  return rows.map(toRow);
}

/** Stores the signature, only if nobody signed the row first: one raw per row, ever. */
export async function markSigned(
  db: DbConn,
  id: string,
  s: { raw: string; hash: string; network: NetworkData },
): Promise<OutboundRow | undefined> {
  const { rows } = await sql<DbRow>`
    UPDATE outbound_txs SET stage = 'signed', raw = ${s.raw}, hash = ${s.hash}, network_data = ${JSON.stringify(s.network)}::jsonb,
           error = NULL, updated_at = now()
     WHERE id = ${id} AND stage = 'created'
    RETURNING *`.execute(db);
  return one(rows);
}

export async function markBroadcast(db: DbConn, id: string): Promise<void> {
  await sql`UPDATE outbound_txs SET stage = 'broadcast', attempts = attempts + 1, error = NULL, conflict_seen_at = NULL,
                   broadcast_at = coalesce(broadcast_at, now()), updated_at = now()
             WHERE id = ${id} AND stage IN ('signed', 'broadcast')`.execute(db);
}

/**
 * A refused or failed broadcast. `conflict` 'seen' records (once) when the nonce was first
 * seen used by another transaction; a node's other refusal ('refuted') clears it; a failure
 * without a node's answer (a timeout, a dropped connection: 'unanswered') says nothing
 * either way and leaves it. Errors do not touch updated_at, which marks progress: a row that
 * only collects errors looks stuck to the safety net, which then re-queues its job.
 */
export async function recordBroadcastFailure(
  db: DbConn,
  id: string,
  error: string,
  conflict: 'seen' | 'refuted' | 'unanswered',
): Promise<{ row: OutboundRow; conflictAgeMs: number | null } | undefined> {
  const { rows } = await sql<DbRow & { conflict_age_ms: string | null }>`
    UPDATE outbound_txs SET attempts = attempts + 1, error = ${error},
           conflict_seen_at = CASE ${conflict} WHEN 'seen' THEN coalesce(conflict_seen_at, now())
                                               WHEN 'unanswered' THEN conflict_seen_at ELSE NULL END
     WHERE id = ${id} AND stage IN ('signed', 'broadcast')
    RETURNING *, (extract(epoch FROM now() - conflict_seen_at) * 1000)::bigint AS conflict_age_ms`.execute(db);
  const r = rows[0];
  return r ? { row: toRow(r), conflictAgeMs: r.conflict_age_ms === null ? null : Number(r.conflict_age_ms) } : undefined;
}

/** A replacement's first sighting of a conflict over its slot: the one of the row it replaces (replace.ts). */
export async function keepConflictClock(db: DbConn, id: string, seenAt: Date): Promise<void> {
  await sql`UPDATE outbound_txs SET conflict_seen_at = ${seenAt} WHERE id = ${id}`.execute(db);
}

/** Notes why a row is not progressing (see recordBroadcastFailure on updated_at). */
export async function recordError(db: DbConn, id: string, error: string): Promise<void> {
  await sql`UPDATE outbound_txs SET error = ${error} WHERE id = ${id}`.execute(db);
}

/** Locks an unsettled row for the settlement transaction; undefined once it is settled. */
export async function lockUnsettled(db: DbConn, id: string, stages: Stage[]): Promise<OutboundRow | undefined> {
  const { rows } = await sql<DbRow>`SELECT * FROM outbound_txs WHERE id = ${id} AND stage = ANY(${stages}::text[]) FOR UPDATE`.execute(db);
  return one(rows);
}

/** A failed row's error when the chain gives no more detail than the revert itself. */
export const REVERTED = 'execution reverted';

export async function settleMined(db: DbConn, id: string, r: Receipt): Promise<OutboundRow> {
  const { rows } = await sql<DbRow>`
    UPDATE outbound_txs SET stage = ${r.status === 'success' ? 'mined' : 'failed'}, status = ${r.status},
           ${receiptColumns(r)}, conflict_seen_at = NULL, updated_at = now(),
           error = ${r.status === 'success' ? null : (r.failure ?? REVERTED)}
     WHERE id = ${id}
    RETURNING *`.execute(db);
  return toRow(rows[0]!);
}

export async function markDropped(db: DbConn, id: string, error: string): Promise<OutboundRow> {
  const { rows } = await sql<DbRow>`
    UPDATE outbound_txs SET stage = 'dropped', error = ${error}, updated_at = now() WHERE id = ${id} RETURNING *`.execute(db);
  return toRow(rows[0]!);
}

/** The row steps aside for `replacedBy` (a replacement, a nonce filler, a rebuild), or for nothing (voided on an 'expiry' family). */
export async function markReplaced(db: DbConn, id: string, replacedBy: string | null, error: string): Promise<OutboundRow> {
  const { rows } = await sql<DbRow>`
    UPDATE outbound_txs SET stage = 'replaced', replaced_by = ${replacedBy}, error = ${error}, updated_at = now()
     WHERE id = ${id} RETURNING *`.execute(db);
  return toRow(rows[0]!);
}

/** Rows whose job may have been lost: unfinished and untouched for a while. */
export async function stuckRows(db: DbConn, quietMs: number, limit: number): Promise<{ id: string; stage: Stage }[]> {
  const { rows } = await sql<{ id: string; stage: Stage }>`
    SELECT id, stage FROM outbound_txs
     WHERE stage IN ('created', 'signed', 'broadcast') AND updated_at < now() - make_interval(secs => ${quietMs / 1000})
     ORDER BY updated_at LIMIT ${limit}`.execute(db);
  return rows;
}

// ---- replacement (speed-up, cancel) ----------------------------------------------------

/**
 * A live row and the rows it replaced on chain (same nonce, signed earlier), newest first.
 * Any of them may be the one that gets mined: a node may still hold an earlier version.
 * On 'expiry' families (no nonce) they are the expired versions a rebuild replaced: none can
 * land any more, but looking costs little and covers a node that was wrong about expiry.
 * Rows voided before signing carry no hash and never reached a node: they are left out.
 */
export async function family(db: DbConn, id: string): Promise<OutboundRow[]> {
  const { rows } = await sql<DbRow & { depth: number }>`
    WITH RECURSIVE fam AS (
      SELECT o.*, 0 AS depth FROM outbound_txs o WHERE o.id = ${id}
      UNION
      SELECT o.*, fam.depth + 1 FROM outbound_txs o JOIN fam ON o.replaced_by = fam.id
       WHERE o.stage = 'replaced' AND o.hash IS NOT NULL AND o.nonce IS NOT DISTINCT FROM fam.nonce AND fam.depth < 100
    )
    SELECT * FROM fam ORDER BY depth`.execute(db);
  return rows.map(toRow);
}

/**
 * An earlier version of the live row was mined: it becomes the settled row (stage mined or
 * failed, with its receipt) and the live row steps aside as replaced by it. The live row
 * leaves the (chain, sender, nonce) index first, so the two never hold it together.
 */
export async function settlePredecessor(db: DbConn, liveId: string, minedId: string, r: Receipt): Promise<OutboundRow> {
  await sql`UPDATE outbound_txs SET stage = 'replaced', replaced_by = ${minedId}, conflict_seen_at = NULL, updated_at = now(),
                   error = 'an earlier transaction with this nonce was mined instead'
             WHERE id = ${liveId}`.execute(db);
  await sql`UPDATE outbound_txs SET replaced_by = NULL WHERE id = ${minedId}`.execute(db);
  return settleMined(db, minedId, r);
}

/** Whether the row's sender has unsettled rows created before it (the 'expiry' families' "earlier nonces"). */
export async function hasEarlierLive(
  db: DbConn,
  row: { id: string; chainId: string; fromAddress: string; createdAt: Date },
): Promise<boolean> {
  const { rows } = await sql<{ one: number }>`
    SELECT 1 AS one FROM outbound_txs
     WHERE chain_id = ${row.chainId} AND from_address = ${row.fromAddress} AND stage IN ('created', 'signed', 'broadcast')
       AND (created_at, id) < (${row.createdAt}, ${row.id})
     LIMIT 1`.execute(db);
  return rows.length > 0;
}

/** Unfinished rows of an owner (normally one: the live version of its transaction). */
export async function liveOfOwner(db: DbConn, ownerId: string): Promise<OutboundRow[]> {
  const { rows } = await sql<DbRow>`
    SELECT * FROM outbound_txs WHERE stage IN ('created', 'signed', 'broadcast')
       AND (owner_id = ${ownerId} OR owner_id IN (SELECT group_id FROM outbound_owners WHERE owner_id = ${ownerId}))
     ORDER BY created_at, id`.execute(db);
  return rows.map(toRow);
}

// ---- confirmation depth and reorgs (confirm.ts) ----------------------------------------

/** Locks a settled row for a reorg move, provided it still holds the receipt of block `hash`. */
export async function lockSettledIn(db: DbConn, id: string, hash: string): Promise<OutboundRow | undefined> {
  const { rows } = await sql<DbRow>`
    SELECT * FROM outbound_txs WHERE id = ${id} AND stage IN ('mined', 'failed') AND block_hash = ${hash} FOR UPDATE`.execute(db);
  return one(rows);
}

/** The same transaction, same outcome, re-mined in another block: the new receipt. updated_at is progress, not touched. */
export async function moveReceipt(db: DbConn, id: string, r: Omit<Receipt, 'status'>): Promise<OutboundRow> {
  const { rows } = await sql<DbRow>`
    UPDATE outbound_txs SET ${receiptColumns(r)}
     WHERE id = ${id}
    RETURNING *`.execute(db);
  return toRow(rows[0]!);
}

/**
 * The receipt's block was reorged away: back to 'broadcast' (raw and hash kept), so the
 * tracker re-sends the same bytes and settles the row again when a receipt appears. The
 * replacement timer starts afresh (broadcast_at is set again by the next broadcast).
 */
export async function unsettle(db: DbConn, id: string, error: string): Promise<OutboundRow> {
  const { rows } = await sql<DbRow>`
    UPDATE outbound_txs SET stage = 'broadcast', status = NULL, block_number = NULL, block_hash = NULL, fee = NULL,
           receipt_details = NULL, broadcast_at = NULL, error = ${error}, updated_at = now()
     WHERE id = ${id}
    RETURNING *`.execute(db);
  return toRow(rows[0]!);
}

/** The SET list of a receipt's block, fee and details. */
function receiptColumns(r: Omit<Receipt, 'status'>) {
  return sql`block_number = ${r.block.number}, block_hash = ${r.block.hash}, fee = ${r.fee},
             receipt_details = ${JSON.stringify(r.details)}::jsonb`;
}
