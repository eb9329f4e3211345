import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { jobs, type SqlOptions } from '../../jobs/store.js';

/** A run's job (over a row of `id`, `wallet_id`): one at a time per wallet (its queue), once per run (its key). */
const runJob: SqlOptions = { queue: sql`'settlement:' || wallet_id::text`, key: sql`'settlement:' || id::text`, maxAttempts: 10 };

export type RunStatus = 'pending' | 'done' | 'nothing' | 'failed';

export interface PlanItem {
  assetId: string;
  /** Base units, as a decimal string (JSON has no bigint). */
  amount: string;
  reference: string;
}

export interface RunRow {
  id: string;
  wallet_id: string;
  beneficiary_id: string;
  period: string;
  status: RunStatus;
  asset_ids: string[] | null;
  plan: PlanItem[] | null;
  transaction_ids: string[];
  error: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface NewRun {
  id: string;
  walletId: string;
  beneficiaryId: string;
  period: string;
  assetIds: string[] | null;
}

/**
 * Inserts the runs that do not exist yet (unique per wallet and period, and so per
 * beneficiary and period) and queues a job
 * for each one inserted, in the caller's transaction: a run is decided and queued together,
 * or not at all. Jobs of one wallet share a queue, so its runs never overlap.
 */
export async function createRuns(db: DbConn, runs: NewRun[]): Promise<string[]> {
  if (runs.length === 0) return [];
  const { rows } = await sql<{ id: string; wallet_id: string }>`
    INSERT INTO settlement_runs (id, wallet_id, beneficiary_id, period, status, asset_ids)
    SELECT r.id, r.wallet_id, r.beneficiary_id, r.period, 'pending',
           CASE WHEN r.asset_ids IS NULL THEN NULL ELSE ARRAY(SELECT jsonb_array_elements_text(r.asset_ids))::uuid[] END
      FROM jsonb_to_recordset(${JSON.stringify(
        runs.map((r) => ({ id: r.id, wallet_id: r.walletId, beneficiary_id: r.beneficiaryId, period: r.period, asset_ids: r.assetIds })),
      )}::jsonb) AS r(id uuid, wallet_id uuid, beneficiary_id uuid, period text, asset_ids jsonb)
    ON CONFLICT DO NOTHING
    RETURNING id, wallet_id`.execute(db);
  if (rows.length > 0) {
    await sql`SELECT ${jobs.settlement_run.addAllSql({ runId: sql`id::text` }, runJob)}
                FROM unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.wallet_id)}::uuid[]) AS t(id, wallet_id)`.execute(db);
  }
  return rows.map((r) => r.id);
}

/** Job settle_deposits: confirmed deposits that may start INSTANT runs (SettlementService.instantConfirmed). */
export async function enqueueInstantConfirmed(db: DbConn, depositIds: string[]): Promise<void> {
  if (depositIds.length === 0) return;
  await jobs.settle_deposits.add(db, { depositIds }, { maxAttempts: 25 });
}

/** Job settle_swept: swept deposits that may start INSTANT runs (SettlementService.instantSwept). */
export async function enqueueInstantSwept(db: DbConn, depositIds: string[]): Promise<void> {
  if (depositIds.length === 0) return;
  await jobs.settle_swept.add(db, { depositIds }, { maxAttempts: 25 });
}

export async function findRun(db: DbConn, id: string): Promise<RunRow | undefined> {
  const { rows } = await sql<RunRow>`SELECT * FROM settlement_runs WHERE id = ${id}`.execute(db);
  return rows[0];
}

export async function findRunByPeriod(db: DbConn, beneficiaryId: string, period: string): Promise<RunRow | undefined> {
  const { rows } = await sql<RunRow>`SELECT * FROM settlement_runs WHERE beneficiary_id = ${beneficiaryId} AND period = ${period}`.execute(
    db,
  );
  return rows[0];
}

export async function listRuns(
  db: DbConn,
  beneficiaryId: string,
  offset: number,
  limit: number,
): Promise<{ rows: RunRow[]; total: number }> {
  const [page, count] = await Promise.all([
    sql<RunRow>`SELECT * FROM settlement_runs WHERE beneficiary_id = ${beneficiaryId}
                 ORDER BY created_at DESC, id DESC OFFSET ${offset} LIMIT ${limit}`.execute(db),
    sql<{ n: string }>`SELECT count(*) AS n FROM settlement_runs WHERE beneficiary_id = ${beneficiaryId}`.execute(db),
  ]);
  return { rows: page.rows, total: Number(count.rows[0]!.n) };
}

/** Records the amounts decided, unless a plan is already stored; returns the plan in force. */
export async function savePlan(db: DbConn, id: string, plan: PlanItem[]): Promise<PlanItem[]> {
  const { rows } = await sql<{ plan: PlanItem[] }>`
    UPDATE settlement_runs SET plan = coalesce(plan, ${JSON.stringify(plan)}::jsonb), updated_at = now()
     WHERE id = ${id} RETURNING plan`.execute(db);
  return rows[0]!.plan;
}

/**
 * The withdrawals a run's request wrote, in plan order: every item of the plan found under its
 * reference as the request writes it (from the master, the item's asset and amount; a batch
 * writes all or none), else none, the request never made. A client may write a reference of
 * that shape too: one that is not the plan's payment does not stand for it (the request, sent
 * again, meets it as REFERENCE_IN_USE, as before).
 */
export async function withdrawalsOfPlan(db: DbConn, walletId: string, plan: PlanItem[]): Promise<string[]> {
  const { rows } = await sql<{ id: string; reference: string; asset_id: string | null; amount: string; address_id: string | null }>`
    SELECT id, reference, asset_id, amount::text AS amount, address_id FROM transactions
     WHERE wallet_id = ${walletId} AND type = 'WITHDRAW' AND reference = ANY(${plan.map((p) => p.reference)}::text[])`.execute(db);
  const byRef = new Map(rows.map((r) => [r.reference, r]));
  const made = plan.map((p) => {
    const r = byRef.get(p.reference);
    return r && r.address_id === null && r.asset_id === p.assetId && BigInt(r.amount) === BigInt(p.amount) ? r.id : null;
  });
  return made.every((id) => id !== null) ? (made as string[]) : [];
}

/** Drops a plan the withdrawal service refused (nothing was written), so the run decides anew. */
export async function clearPlan(db: DbConn, id: string): Promise<void> {
  await sql`UPDATE settlement_runs SET plan = NULL, updated_at = now() WHERE id = ${id} AND status = 'pending'`.execute(db);
}

export async function finishRun(
  db: DbConn,
  id: string,
  status: Exclude<RunStatus, 'pending'>,
  transactionIds: string[],
  error: string | null,
): Promise<void> {
  await sql`UPDATE settlement_runs SET status = ${status}, transaction_ids = ${transactionIds}::uuid[], error = ${error}, updated_at = now()
             WHERE id = ${id} AND status = 'pending'`.execute(db);
}

/** Pending runs not touched for a while: their job was lost (the queue is only a trigger). */
export async function requeueStale(db: DbConn, olderThanSeconds: number): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    WITH stale AS (SELECT id, wallet_id FROM settlement_runs
                    WHERE status = 'pending' AND updated_at < now() - make_interval(secs => ${olderThanSeconds}) LIMIT 500),
         queued AS (SELECT ${jobs.settlement_run.addSql({ runId: sql`id::text` }, runJob)} FROM stale)
    SELECT count(*) AS n FROM queued`.execute(db);
  return Number(rows[0]!.n);
}

export interface DepositRef {
  id: string;
  wallet_id: string;
  asset_id: string | null;
  address_id: string | null;
}

/**
 * The deposits among `ids` whose wallet has an INSTANT settlement beneficiary (a cheap
 * filter: it runs in every deposit confirmation and sweep). `masterOnly`: only deposits made
 * straight to the master address (the others reach it by a sweep, which has its own hook).
 */
export async function depositsToSettle(db: DbConn, ids: string[], masterOnly: boolean): Promise<DepositRef[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<DepositRef>`
    SELECT t.id, t.wallet_id, t.asset_id, t.address_id FROM transactions t
     WHERE t.id = ANY(${ids}::uuid[]) AND t.type = 'DEPOSIT' AND t.asset_id IS NOT NULL AND NOT t.aml_held
       ${masterOnly ? sql`AND t.address_id IS NULL` : sql``}
       AND EXISTS (SELECT 1 FROM beneficiaries b
                    WHERE b.wallet_id = t.wallet_id AND b.is_settlement AND b.is_active AND b.deleted_at IS NULL
                      AND b.settlement_frequency = 'INSTANT')`.execute(db);
  return rows;
}

/**
 * Deposits on the master address that are not the settlement's to move yet, per asset: those
 * held by AML screening (until released; one a reorg took away, FAILED, never arrived:
 * nothing of it is held), and those not confirmed yet (a reorg may still take them away, and
 * an auto-settlement rule may take them once confirmed).
 */
export async function heldDepositsAtMaster(db: DbConn, walletId: string): Promise<Map<string, bigint>> {
  const { rows } = await sql<{ asset_id: string; amount: string }>`
    SELECT asset_id, sum(amount)::text AS amount FROM transactions
     WHERE wallet_id = ${walletId} AND address_id IS NULL AND asset_id IS NOT NULL AND type = 'DEPOSIT'
       AND ((aml_held AND status <> 'FAILED') OR status = 'PENDING')
     GROUP BY asset_id`.execute(db);
  return new Map(rows.map((r) => [r.asset_id, BigInt(r.amount)]));
}

export interface PendingTake {
  id: string;
  asset_id: string;
  amount: string;
}

/**
 * Deposits confirmed at the master, or swept to it, whose rule's take has not run yet
 * (auto_settlement_takes: the job that writes their auto-settlement is queued, not run), so
 * whether a rule takes them is not recorded yet. Their full amounts: a swept deposit is never
 * delivered more than that.
 */
export async function pendingTakes(db: DbConn, walletId: string): Promise<PendingTake[]> {
  const { rows } = await sql<PendingTake>`
    SELECT t.id, t.asset_id, t.amount::text AS amount FROM auto_settlement_takes k JOIN transactions t ON t.id = k.deposit_id
     WHERE k.wallet_id = ${walletId} AND t.status = 'SUCCESS' AND t.asset_id IS NOT NULL AND NOT t.aml_held`.execute(db);
  return rows;
}

/**
 * Gives a pending take's deposit to the settlement (no rule takes it now): its take row goes,
 * so the take job, when it runs, leaves it (autosettlements/service.ts takeConfirmed). False:
 * the job has taken the row first (its transaction may be writing the deposit's
 * auto-settlement), and the deposit is the job's to decide.
 */
export async function releaseTake(db: DbConn, depositId: string): Promise<boolean> {
  const { rows } = await sql`DELETE FROM auto_settlement_takes WHERE deposit_id = ${depositId} RETURNING deposit_id`.execute(db);
  return rows.length > 0;
}

/**
 * Auto-settlements from the master that have taken a deposit but not planned it yet (stage
 * `queued`: no leg written, so nothing else holds their input), per input asset: the
 * rule's money, not the settlement beneficiary's.
 */
export async function queuedAutoSettlementsAtMaster(db: DbConn, walletId: string): Promise<Map<string, bigint>> {
  const { rows } = await sql<{ asset_id: string; amount: string }>`
    SELECT asset_in_id AS asset_id, sum(amount_in)::text AS amount FROM auto_settlements
     WHERE wallet_id = ${walletId} AND from_index = 0 AND status = 'pending' AND stage = 'queued'
     GROUP BY asset_in_id`.execute(db);
  return new Map(rows.map((r) => [r.asset_id, BigInt(r.amount)]));
}
