/** SQL of policies, their velocity windows, approvals and votes (migration 038). */
import { addressKey } from '../../chains/address-key.js';
import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { Action, ApprovalSpec, Approvers, Conditions, Rule } from './rules.js';

export interface PolicyRow {
  id: string;
  business_id: string;
  wallet_id: string | null;
  address_id: string | null;
  name: string;
  priority: number;
  is_active: boolean;
  conditions: Conditions;
  action: Action;
  approval: ApprovalSpec | null;
  created_at: Date;
  updated_at: Date;
}

export const ruleOf = (r: PolicyRow): Rule => ({
  id: r.id,
  name: r.name,
  priority: r.priority,
  walletId: r.wallet_id,
  addressId: r.address_id,
  isActive: r.is_active,
  conditions: r.conditions,
  action: r.action,
  approval: r.approval,
});

const COLUMNS = sql`id, business_id, wallet_id, address_id, name, priority, is_active, conditions, action, approval, created_at, updated_at`;

/** The business's rules (deleted ones aside), in evaluation order. */
export async function listPolicies(db: DbConn, businessId: string): Promise<PolicyRow[]> {
  const { rows } = await sql<PolicyRow>`
    SELECT ${COLUMNS} FROM policies WHERE business_id = ${businessId} AND deleted_at IS NULL ORDER BY priority, id`.execute(db);
  return rows;
}

export async function findPolicy(db: DbConn, businessId: string, id: string, lock = false): Promise<PolicyRow | undefined> {
  const { rows } = await sql<PolicyRow>`
    SELECT ${COLUMNS} FROM policies WHERE id = ${id} AND business_id = ${businessId} AND deleted_at IS NULL
    ${lock ? sql`FOR NO KEY UPDATE` : sql``}`.execute(db);
  return rows[0];
}

/**
 * An active rule of the business with a destination condition (one that reads the wallet's
 * beneficiaries: WHITELISTED, BENEFICIARY, NON_BENEFICIARY) that applies to this wallet, if any.
 */
export async function destinationRuleOf(
  db: DbConn,
  businessId: string,
  walletId: string,
): Promise<{ id: string; name: string } | undefined> {
  const { rows } = await sql<{ id: string; name: string }>`
    SELECT id, name FROM policies
     WHERE business_id = ${businessId} AND deleted_at IS NULL AND is_active AND (wallet_id IS NULL OR wallet_id = ${walletId})
       AND coalesce(conditions->>'destination', 'ANY') <> 'ANY'
     ORDER BY priority, id LIMIT 1`.execute(db);
  return rows[0];
}

export async function findPolicyById(db: DbConn, id: string): Promise<PolicyRow | undefined> {
  const { rows } = await sql<PolicyRow>`SELECT ${COLUMNS} FROM policies WHERE id = ${id}`.execute(db);
  return rows[0];
}

/**
 * Which of these dashboard users and API keys (live) belong to the business: `keys` its
 * business keys, `walletKeys` its wallets' keys.
 */
export async function knownIdentities(
  db: DbConn,
  businessId: string,
  users: string[],
  keys: string[],
): Promise<{ users: Set<string>; keys: Set<string>; walletKeys: Set<string> }> {
  const [u, k] = await Promise.all([
    users.length
      ? sql<{ id: string }>`SELECT id FROM dashboard_users WHERE business_id = ${businessId} AND id = ANY(${users}::uuid[])`.execute(db)
      : { rows: [] },
    keys.length
      ? sql<{ id: string; wallet_id: string | null }>`
          SELECT id, wallet_id FROM api_keys WHERE business_id = ${businessId} AND revoked_at IS NULL
             AND id = ANY(${keys}::uuid[])`.execute(db)
      : { rows: [] },
  ]);
  return {
    users: new Set(u.rows.map((r) => r.id)),
    keys: new Set(k.rows.filter((r) => r.wallet_id === null).map((r) => r.id)),
    walletKeys: new Set(k.rows.filter((r) => r.wallet_id !== null).map((r) => r.id)),
  };
}

export interface PolicyWrite {
  walletId: string | null;
  addressId: string | null;
  name: string;
  priority: number;
  isActive: boolean;
  conditions: Conditions;
  action: Action;
  approval: ApprovalSpec | null;
}

export async function insertPolicy(db: DbConn, id: string, businessId: string, p: PolicyWrite): Promise<PolicyRow> {
  const { rows } = await sql<PolicyRow>`
    INSERT INTO policies (id, business_id, wallet_id, address_id, name, priority, is_active, conditions, action, approval)
    VALUES (${id}, ${businessId}, ${p.walletId}, ${p.addressId}, ${p.name}, ${p.priority}, ${p.isActive},
            ${JSON.stringify(p.conditions)}::jsonb, ${p.action}, ${p.approval === null ? null : JSON.stringify(p.approval)}::jsonb)
    RETURNING ${COLUMNS}`.execute(db);
  return rows[0]!;
}

export async function updatePolicy(db: DbConn, id: string, p: PolicyWrite): Promise<PolicyRow> {
  const { rows } = await sql<PolicyRow>`
    UPDATE policies SET wallet_id = ${p.walletId}, address_id = ${p.addressId}, name = ${p.name}, priority = ${p.priority},
           is_active = ${p.isActive}, conditions = ${JSON.stringify(p.conditions)}::jsonb, action = ${p.action},
           approval = ${p.approval === null ? null : JSON.stringify(p.approval)}::jsonb, updated_at = now()
     WHERE id = ${id} RETURNING ${COLUMNS}`.execute(db);
  return rows[0]!;
}

export async function deletePolicy(db: DbConn, id: string): Promise<void> {
  await sql`UPDATE policies SET deleted_at = now(), updated_at = now() WHERE id = ${id}`.execute(db);
}

/**
 * What an accepting transaction needs before it decides, read in ONE statement (each round
 * trip inside the transaction is paid with the sender's lock held, behind every request
 * the event loop is busy with, so they are what a burst of payouts queues on):
 * - the velocity windows' locks (`lockKeys`): serialise every transaction that may count in
 *   one of these windows until this one ends. Taken in hash order (one order for every
 *   transaction), after the sender's lock: two transactions never wait for each other's
 *   window locks in turn;
 * - the business's rules (deleted ones aside), as committed when the statement began: a rule
 *   committed before the transaction began applies to it;
 * - when `kindsOf` names wallets, their beneficiaries by addressKey (see beneficiaryKinds).
 * The windows themselves are read by a later statement (windowGroups), whose snapshot is
 * taken after the locks are held, so it sees every transaction that held them before.
 */
export async function openSession(
  db: DbConn,
  q: { businessId: string; lockKeys: string[]; kindsOf: string[] },
): Promise<{ rules: Rule[]; kinds: Map<string, Map<string, boolean>> }> {
  const { rows } = await sql<{ locks: string; rules: Rule[]; kinds: [string, string, boolean][] | null }>`
    WITH locked AS (
      SELECT pg_advisory_xact_lock(h) AS l FROM (
        SELECT DISTINCT hashtextextended('policy-window:' || k, 0) AS h FROM unnest(${q.lockKeys}::text[]) AS k ORDER BY h) ordered)
    SELECT (SELECT count(*) FROM locked) AS locks,
           (SELECT coalesce(json_agg(json_build_object(
                     'id', id, 'name', name, 'priority', priority, 'walletId', wallet_id, 'addressId', address_id,
                     'isActive', is_active, 'conditions', conditions, 'action', action, 'approval', approval)
                   ORDER BY priority, id), '[]')
              FROM policies WHERE business_id = ${q.businessId} AND deleted_at IS NULL) AS rules,
           (SELECT json_agg(json_build_array(wallet_id, address, is_whitelisted))
              FROM beneficiaries
             WHERE wallet_id = ANY(${q.kindsOf}::uuid[]) AND is_active AND deleted_at IS NULL) AS kinds`.execute(db);
  const row = rows[0]!;
  const kinds = new Map<string, Map<string, boolean>>(q.kindsOf.map((w) => [w, new Map()]));
  for (const [walletId, address, whitelisted] of row.kinds ?? []) addKind(kinds.get(walletId)!, address, whitelisted);
  return { rules: row.rules, kinds };
}

/** Takes window locks as openSession does, for a transaction whose first statement did not. */
export async function lockWindows(db: DbConn, keys: string[]): Promise<void> {
  if (keys.length === 0) return;
  await sql`
    SELECT pg_advisory_xact_lock(h) FROM (
      SELECT DISTINCT hashtextextended('policy-window:' || k, 0) AS h FROM unnest(${keys}::text[]) AS k ORDER BY h) ordered`.execute(db);
}

export interface WindowQuery {
  scope: 'WALLET' | 'DESTINATION';
  /** Wallet ids (WALLET) or destinations by addressKey (DESTINATION). */
  keys: string[];
  types: string[];
  seconds: number;
}

export interface WindowGroup {
  /** The index of its query in the list given to windowGroups. */
  query: number;
  key: string;
  assetId: string | null;
  count: number;
  sum: bigint;
  sumUsd: string;
}

/**
 * What velocity windows hold, per query, scope key and asset (one statement for all of a
 * session's windows), as each payout's decision counted it (its policy_* columns, migration
 * 049: the candidate, rules.ts countedOf): the payouts of these window families created (or,
 * a retried withdrawal, sent again: counted_at) in the last `seconds` (database time) that
 * move or may still move money: PENDING, PENDING_APPROVAL and SUCCESS (a FAILED or CANCELLED
 * one moved nothing). A DESTINATION window counts what any wallet of the business sent there,
 * the destination (the candidate's: a contract write's beneficiary, not the contract)
 * compared by address_key() (migration 039: the SQL twin of addressKey), so two base58
 * spellings that differ in case are two windows.
 */
export async function windowGroups(db: DbConn, businessId: string, queries: readonly WindowQuery[]): Promise<WindowGroup[]> {
  const parts = queries.flatMap((q, i) => {
    if (q.keys.length === 0) return [];
    const key = q.scope === 'WALLET' ? sql`t.wallet_id::text` : sql`address_key(t.policy_destination)`;
    const scope =
      q.scope === 'WALLET'
        ? sql`t.wallet_id = ANY(${q.keys}::uuid[])`
        : sql`address_key(t.policy_destination) = ANY(${q.keys}::text[]) AND t.wallet_id IN (SELECT id FROM wallets WHERE business_id = ${businessId})`;
    return [
      sql`SELECT ${sql.lit(i)}::int AS q, ${key} AS k, t.policy_asset_id AS asset_id, count(*)::text AS n,
                 sum(t.policy_amount)::text AS total, sum(t.policy_amount_usd)::text AS usd
            FROM transactions t
           WHERE ${scope} AND t.policy_type = ANY(${q.types}::text[]) AND t.status IN ('PENDING', 'PENDING_APPROVAL', 'SUCCESS')
             AND (t.created_at > now() - make_interval(secs => ${q.seconds}) OR t.counted_at > now() - make_interval(secs => ${q.seconds}))
           GROUP BY 1, 2, 3`,
    ];
  });
  if (parts.length === 0) return [];
  const { rows } = await sql<{
    q: number;
    k: string;
    asset_id: string | null;
    n: string;
    total: string | null;
    usd: string | null;
  }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  return rows.map((r) => ({
    query: r.q,
    key: r.k,
    assetId: r.asset_id,
    count: Number(r.n),
    sum: BigInt(r.total ?? '0'),
    sumUsd: normaliseDecimal(r.usd ?? '0'),
  }));
}

/** numeric's text (possibly "12.500000") as a plain decimal ("12.5"). */
function normaliseDecimal(s: string): string {
  return s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s;
}

/**
 * The wallet's beneficiaries by addressKey: whitelisted or not. Keyed by the family's own
 * comparison, never by lower case: two base58 spellings that differ in case are different
 * accounts, and a look-alike of a whitelisted address must not count as whitelisted.
 */
export async function beneficiaryKinds(db: DbConn, walletId: string): Promise<Map<string, boolean>> {
  const { rows } = await sql<{ address: string; whitelisted: boolean }>`
    SELECT address, is_whitelisted AS whitelisted FROM beneficiaries
     WHERE wallet_id = ${walletId} AND is_active AND deleted_at IS NULL`.execute(db);
  const kinds = new Map<string, boolean>();
  for (const r of rows) addKind(kinds, r.address, r.whitelisted);
  return kinds;
}

function addKind(kinds: Map<string, boolean>, address: string, whitelisted: boolean): void {
  const key = addressKey(address);
  kinds.set(key, (kinds.get(key) ?? false) || whitelisted);
}

// ---- approvals --------------------------------------------------------------------------

export type ApprovalStatus = 'PENDING' | 'APPROVED' | 'REJECTED' | 'EXPIRED' | 'CANCELLED';

export interface ApprovalRow {
  id: string;
  business_id: string;
  wallet_id: string;
  transaction_id: string;
  policy_id: string;
  policy_name: string;
  approvers: Approvers;
  quorum: number;
  initiator: string;
  initiator_label: string;
  status: ApprovalStatus;
  reason: string | null;
  expires_at: Date;
  created_at: Date;
  decided_at: Date | null;
}

export interface VoteRow {
  approval_id: string;
  voter: string;
  voter_label: string;
  decision: 'APPROVE' | 'REJECT' | 'OVERRIDE';
  comment: string | null;
  created_at: Date;
}

export interface NewApproval {
  id: string;
  businessId: string;
  walletId: string;
  transactionId: string;
  policyId: string;
  policyName: string;
  approvers: Approvers;
  quorum: number;
  initiator: string;
  initiatorLabel: string;
  expiresAt: Date;
  createdAt: Date;
}

export async function insertApprovals(db: DbConn, list: NewApproval[]): Promise<void> {
  if (list.length === 0) return;
  const values = list.map(
    (a) => sql`(${a.id}, ${a.businessId}, ${a.walletId}, ${a.transactionId}, ${a.policyId}, ${a.policyName},
                ${JSON.stringify(a.approvers)}::jsonb, ${a.quorum}, ${a.initiator}, ${a.initiatorLabel}, 'PENDING', ${a.expiresAt}, ${a.createdAt})`,
  );
  await sql`
    INSERT INTO approvals (id, business_id, wallet_id, transaction_id, policy_id, policy_name, approvers, quorum, initiator,
                           initiator_label, status, expires_at, created_at)
    VALUES ${sql.join(values)}`.execute(db);
}

/** By the request's id or its transaction's (UUIDs never collide). */
export async function findApproval(db: DbConn, businessId: string, id: string): Promise<ApprovalRow | undefined> {
  const { rows } = await sql<ApprovalRow>`
    SELECT * FROM approvals WHERE (id = ${id} OR transaction_id = ${id}) AND business_id = ${businessId}`.execute(db);
  return rows[0];
}

export async function findApprovalOfTransaction(db: DbConn, businessId: string, transactionId: string): Promise<ApprovalRow | undefined> {
  const { rows } = await sql<ApprovalRow>`
    SELECT * FROM approvals WHERE transaction_id = ${transactionId} AND business_id = ${businessId}`.execute(db);
  return rows[0];
}

export async function lockApprovalById(db: DbConn, id: string): Promise<ApprovalRow | undefined> {
  const { rows } = await sql<ApprovalRow>`SELECT * FROM approvals WHERE id = ${id} FOR NO KEY UPDATE`.execute(db);
  return rows[0];
}

export async function lockApprovalOfTransaction(db: DbConn, transactionId: string): Promise<ApprovalRow | undefined> {
  const { rows } = await sql<ApprovalRow>`SELECT * FROM approvals WHERE transaction_id = ${transactionId} FOR NO KEY UPDATE`.execute(db);
  return rows[0];
}

export async function votesOf(db: DbConn, ids: string[]): Promise<VoteRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<VoteRow>`
    SELECT * FROM approval_votes WHERE approval_id = ANY(${ids}::uuid[]) ORDER BY created_at, voter`.execute(db);
  return rows;
}

/**
 * Which of these voters may still approve for the business: business keys neither revoked nor
 * stripped of the APPROVE grant, and dashboard users not removed, with their current roles.
 *
 * `lock` (the deciding vote's transaction): their rows are read FOR SHARE and so held to its
 * COMMIT. A key revoked, or a user removed or moved to another role, while the vote is under
 * way (it may wait long for the sender's lock before it sends the payout on) then waits for
 * the vote, and one committed first is seen by it: a revocation is never answered before a
 * payout that still counted the key's approval is sent on.
 */
export async function standingVoters(
  db: DbConn,
  businessId: string,
  keys: string[],
  users: string[],
  lock = false,
): Promise<{ keys: Set<string>; users: Map<string, string> }> {
  const forShare = lock ? sql`FOR SHARE` : sql``;
  const [k, u] = await Promise.all([
    keys.length
      ? sql<{ id: string }>`
          SELECT id FROM api_keys WHERE business_id = ${businessId} AND wallet_id IS NULL AND revoked_at IS NULL
             AND 'APPROVE' = ANY(scopes) AND id = ANY(${keys}::uuid[]) ORDER BY id ${forShare}`.execute(db)
      : { rows: [] },
    users.length
      ? sql<{ id: string; role: string }>`
          SELECT id, role FROM dashboard_users WHERE business_id = ${businessId} AND disabled_at IS NULL
             AND id = ANY(${users}::uuid[]) ORDER BY id ${forShare}`.execute(db)
      : { rows: [] },
  ]);
  return { keys: new Set(k.rows.map((r) => r.id)), users: new Map(u.rows.map((r) => [r.id, r.role])) };
}

/** false when this voter voted on it already (the primary key keeps approvers distinct). */
export async function insertVote(
  db: DbConn,
  v: { approvalId: string; voter: string; voterLabel: string; decision: VoteRow['decision']; comment: string | null; at: Date },
): Promise<boolean> {
  const { rows } = await sql<{ voter: string }>`
    INSERT INTO approval_votes (approval_id, voter, voter_label, decision, comment, created_at)
    VALUES (${v.approvalId}, ${v.voter}, ${v.voterLabel}, ${v.decision}, ${v.comment}, ${v.at})
    ON CONFLICT (approval_id, voter) DO NOTHING RETURNING voter`.execute(db);
  return rows.length > 0;
}

export async function decideApproval(
  db: DbConn,
  id: string,
  status: Exclude<ApprovalStatus, 'PENDING'>,
  reason: string,
  at: Date,
): Promise<void> {
  await sql`UPDATE approvals SET status = ${status}, reason = ${reason}, decided_at = ${at} WHERE id = ${id} AND status = 'PENDING'`.execute(
    db,
  );
}

export interface ApprovalFilter {
  businessId: string;
  status?: ApprovalStatus;
  walletId?: string;
  /** Only decided requests (every status but PENDING). */
  decided?: boolean;
}

export async function listApprovals(
  db: DbConn,
  f: ApprovalFilter,
  offset: number,
  limit: number,
): Promise<{ rows: ApprovalRow[]; total: number }> {
  const where = sql.join(
    [
      sql`business_id = ${f.businessId}`,
      ...(f.status ? [sql`status = ${f.status}`] : []),
      ...(f.walletId ? [sql`wallet_id = ${f.walletId}`] : []),
      ...(f.decided ? [sql`status <> 'PENDING'`] : []),
    ],
    sql` AND `,
  );
  const [{ rows }, { rows: count }] = await Promise.all([
    sql<ApprovalRow>`SELECT * FROM approvals WHERE ${where} ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`.execute(db),
    sql<{ n: string }>`SELECT count(*)::text AS n FROM approvals WHERE ${where}`.execute(db),
  ]);
  return { rows, total: Number(count[0]!.n) };
}

export async function countPending(db: DbConn, businessId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM approvals WHERE business_id = ${businessId} AND status = 'PENDING'`.execute(db);
  return Number(rows[0]!.n);
}

/** Ids of PENDING requests whose time to live is over at `now`. */
export async function dueApprovals(db: DbConn, now: Date, limit: number): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM approvals WHERE status = 'PENDING' AND expires_at <= ${now} ORDER BY expires_at LIMIT ${limit}`.execute(db);
  return rows.map((r) => r.id);
}
