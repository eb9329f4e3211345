import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import type { NetworkData } from '../../chains/types.js';
import { jobs } from '../../jobs/store.js';
import type { Order, RuleDestination, RuleSource, StoredRule } from './rules.js';
import { addressKey } from '../../chains/address-key.js';

// ---- configurations and rules --------------------------------------------------------

export interface ConfigRow {
  name: string;
  is_active: boolean;
}

export async function findConfig(db: DbConn, walletId: string, addressId: string | null): Promise<ConfigRow | undefined> {
  const { rows } = await sql<ConfigRow>`
    SELECT name, is_active FROM auto_settlement_configs
     WHERE wallet_id = ${walletId} AND address_id IS NOT DISTINCT FROM ${addressId}::uuid`.execute(db);
  return rows[0];
}

export async function upsertConfig(
  db: DbConn,
  c: {
    id: string;
    walletId: string;
    addressId: string | null;
    name: string | undefined;
    isActive: boolean | undefined;
    defaultActive: boolean;
  },
): Promise<void> {
  await sql`
    INSERT INTO auto_settlement_configs (id, wallet_id, address_id, name, is_active)
    VALUES (${c.id}, ${c.walletId}, ${c.addressId}, ${c.name ?? ''}, ${c.isActive ?? c.defaultActive})
    ON CONFLICT (wallet_id, coalesce(address_id, '00000000-0000-0000-0000-000000000000'::uuid)) DO UPDATE
       SET name = coalesce(${c.name ?? null}::text, auto_settlement_configs.name),
           is_active = coalesce(${c.isActive ?? null}::boolean, auto_settlement_configs.is_active),
           updated_at = now()`.execute(db);
}

interface RuleRecord extends Omit<StoredRule, 'source' | 'destination' | 'order'> {
  order: string;
  source: RuleSource;
  destination: RuleDestination;
}

const asRule = (r: RuleRecord): StoredRule => ({
  ...r,
  order: r.order as Order,
  slippage_tolerance: normaliseDecimal(r.slippage_tolerance),
});

/** numeric(10,4) comes back as "5.0000"; the API shows "5". */
function normaliseDecimal(text: string): string {
  return text.includes('.') ? text.replace(/\.?0+$/, '') : text;
}

/** The wallet-level rules of several wallets at once (the wallet view shows them). Oldest first. */
export async function walletRulesOf(db: DbConn, walletIds: string[]): Promise<StoredRule[]> {
  if (walletIds.length === 0) return [];
  const { rows } = await sql<RuleRecord>`
    SELECT * FROM auto_settlement_rules
     WHERE wallet_id = ANY(${walletIds}::uuid[]) AND address_id IS NULL
     ORDER BY created_at, id`.execute(db);
  return rows.map(asRule);
}

/** Rules of one level: the wallet's own (addressId null) or one address's. Oldest first. */
export async function listRules(db: DbConn, walletId: string, addressId: string | null): Promise<StoredRule[]> {
  const { rows } = await sql<RuleRecord>`
    SELECT * FROM auto_settlement_rules
     WHERE wallet_id = ${walletId} AND address_id IS NOT DISTINCT FROM ${addressId}::uuid
     ORDER BY created_at, id`.execute(db);
  return rows.map(asRule);
}

export async function findRule(db: DbConn, walletId: string, addressId: string | null, id: string): Promise<StoredRule | undefined> {
  const { rows } = await sql<RuleRecord>`
    SELECT * FROM auto_settlement_rules
     WHERE id = ${id} AND wallet_id = ${walletId} AND address_id IS NOT DISTINCT FROM ${addressId}::uuid`.execute(db);
  return rows[0] && asRule(rows[0]);
}

/**
 * The active wallet rules of these wallets and the active rules of these addresses: what may
 * take their deposits. `share`: locked FOR SHARE until the caller's transaction ends (a rule
 * updated or deleted meanwhile waits for its COMMIT; one changed just before is read as it is now).
 */
export async function activeRulesOf(db: DbConn, walletIds: string[], addressIds: string[], share = false): Promise<StoredRule[]> {
  const { rows } = await sql<RuleRecord>`
    SELECT * FROM auto_settlement_rules
     WHERE wallet_id = ANY(${walletIds}::uuid[]) AND is_active AND (address_id IS NULL OR address_id = ANY(${addressIds}::uuid[]))
     ${share ? sql`FOR SHARE` : sql``}`.execute(db);
  return rows.map(asRule);
}

export interface RuleValues {
  name: string;
  isActive: boolean;
  order: Order;
  slippageTolerance: string;
  source: RuleSource;
  destination: RuleDestination;
}

export async function insertRule(db: DbConn, id: string, walletId: string, addressId: string | null, v: RuleValues): Promise<StoredRule> {
  const { rows } = await sql<RuleRecord>`
    INSERT INTO auto_settlement_rules (id, wallet_id, address_id, name, is_active, "order", slippage_tolerance, source, destination)
    VALUES (${id}, ${walletId}, ${addressId}, ${v.name}, ${v.isActive}, ${v.order}, ${v.slippageTolerance},
            ${JSON.stringify(v.source)}::jsonb, ${JSON.stringify(v.destination)}::jsonb)
    RETURNING *`.execute(db);
  return asRule(rows[0]!);
}

/** Row lock (two partial updates must both land); NO KEY for an update: foreign-key checks pass. */
export async function lockRule(
  db: DbConn,
  walletId: string,
  addressId: string | null,
  id: string,
  mode: 'update' | 'delete',
): Promise<StoredRule | undefined> {
  const lock = mode === 'delete' ? sql`FOR UPDATE` : sql`FOR NO KEY UPDATE`;
  const { rows } = await sql<RuleRecord>`
    SELECT * FROM auto_settlement_rules
     WHERE id = ${id} AND wallet_id = ${walletId} AND address_id IS NOT DISTINCT FROM ${addressId}::uuid ${lock}`.execute(db);
  return rows[0] && asRule(rows[0]);
}

/**
 * Unlinks a rule's settlements (each keeps its copy of the rule) before the rule is locked
 * for deletion: a settlement job holds its row and may then check the rule's key (a row
 * updated twice in one transaction is re-checked), so a delete reaching the settlement
 * through ON DELETE SET NULL while holding the rule would deadlock with it. One not yet
 * committed now can still meet the delete that way; the caller retries on a deadlock.
 */
export async function detachSettlements(db: DbConn, ruleId: string): Promise<void> {
  await sql`UPDATE auto_settlements SET rule_id = NULL WHERE rule_id = ${ruleId}`.execute(db);
}

export async function updateRule(db: DbConn, id: string, v: RuleValues): Promise<StoredRule> {
  const { rows } = await sql<RuleRecord>`
    UPDATE auto_settlement_rules SET name = ${v.name}, is_active = ${v.isActive}, "order" = ${v.order},
           slippage_tolerance = ${v.slippageTolerance}, source = ${JSON.stringify(v.source)}::jsonb,
           destination = ${JSON.stringify(v.destination)}::jsonb, updated_at = now()
     WHERE id = ${id} RETURNING *`.execute(db);
  return asRule(rows[0]!);
}

export async function deleteRule(db: DbConn, id: string): Promise<void> {
  await sql`DELETE FROM auto_settlement_rules WHERE id = ${id}`.execute(db);
}

// ---- deposits ------------------------------------------------------------------------

export interface DepositRow {
  id: string;
  wallet_id: string;
  address_id: string | null;
  asset_id: string | null;
  chain_id: string;
  amount: string;
  type: string;
  status: string;
  address_type: string | null;
  derivation_index: number | null;
  wallet_configurations: Record<string, unknown>;
  /** The address configuration's switch; null when the address has none stored. */
  address_switch: boolean | null;
  /** Once swept: what the sweep delivered to the master in all, and the sum of the deposits it carried. */
  swept_total: string | null;
  sweep_deposits: string | null;
  /** Held by AML screening until released. */
  aml_held: boolean;
}

export async function deposits(db: DbConn, ids: string[]): Promise<DepositRow[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<DepositRow>`
    SELECT t.id, t.wallet_id, t.address_id, t.asset_id, t.chain_id, t.amount, t.type, t.status, t.aml_held,
           a.type AS address_type, a.derivation_index, w.configurations AS wallet_configurations, c.is_active AS address_switch,
           CASE WHEN t.asset_swept THEN t.asset_swept_response ->> 'sweptTotal' END AS swept_total,
           CASE WHEN t.asset_swept AND t.sweep_id IS NOT NULL
                THEN (SELECT sum(u.amount)::text FROM transactions u WHERE u.sweep_id = t.sweep_id) END AS sweep_deposits
      FROM transactions t JOIN wallets w ON w.id = t.wallet_id
      LEFT JOIN addresses a ON a.id = t.address_id
      LEFT JOIN auto_settlement_configs c ON c.wallet_id = t.wallet_id AND c.address_id = t.address_id
     WHERE t.id = ANY(${ids}::uuid[])`.execute(db);
  return rows;
}

// ---- settlements ---------------------------------------------------------------------

export type SettlementStage = 'queued' | 'topup' | 'sending' | 'swapped' | 'transfer' | 'done' | 'failed';

export interface SettlementRow {
  id: string;
  deposit_id: string;
  rule_id: string | null;
  rule: StoredRule;
  wallet_id: string;
  chain_id: string;
  from_index: number;
  asset_in_id: string;
  asset_out_id: string;
  amount_in: string;
  amount_out: string | null;
  status: 'pending' | 'success' | 'failed';
  stage: SettlementStage;
  /** What a child sender's legs are signed with, as its top-up funded them (Sender.fundedNetwork); null from the master. */
  network: NetworkData | null;
  transfer_gas_limit: string | null;
  swap_transaction_id: string | null;
  settle_transaction_id: string | null;
  swap: Record<string, unknown> | null;
  error: string | null;
}

export interface NewSettlement {
  id: string;
  depositId: string;
  rule: StoredRule;
  walletId: string;
  chainId: string;
  fromIndex: number;
  assetInId: string;
  assetOutId: string;
  amountIn: bigint;
}

/**
 * Inserts the deposit's settlement and its job, unless the deposit already has one (the
 * unique index): true when this call created it.
 */
export async function insertSettlement(db: DbConn, s: NewSettlement): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    INSERT INTO auto_settlements (id, deposit_id, rule_id, rule, wallet_id, chain_id, from_index, asset_in_id, asset_out_id,
                                  amount_in, status, stage)
    VALUES (${s.id}, ${s.depositId}, ${s.rule.id}, ${JSON.stringify(s.rule)}::jsonb, ${s.walletId}, ${s.chainId}, ${s.fromIndex},
            ${s.assetInId}, ${s.assetOutId}, ${s.amountIn.toString()}, 'pending', 'queued')
    ON CONFLICT (deposit_id) DO NOTHING RETURNING id`.execute(db);
  if (rows.length === 0) return false;
  await enqueueJob(db, s.id);
  return true;
}

/** Job auto_settle_deposits: the confirmed deposits a rule may take where they landed (AutoSettlementService.takeConfirmed). */
export async function enqueueTakeConfirmed(db: DbConn, depositIds: string[]): Promise<void> {
  if (depositIds.length === 0) return;
  await jobs.auto_settle_deposits.add(db, { depositIds }, { maxAttempts: 25 });
  await noteTakes(db, depositIds, true);
}

/** Job auto_settle_swept: deposits a sweep moved to the master (AutoSettlementService.takeSwept). */
export async function enqueueTakeSwept(db: DbConn, depositIds: string[]): Promise<void> {
  if (depositIds.length === 0) return;
  await jobs.auto_settle_swept.add(db, { depositIds }, { maxAttempts: 25 });
  await noteTakes(db, depositIds, false);
}

/**
 * Notes, beside the job that takes them, the deposits whose money is at the master and that a
 * rule of their wallet may take (`masterOnly`: deposits made to the master itself; otherwise
 * swept ones): until the job has run, a settlement to the beneficiary leaves them
 * (settlements/store.ts heldDepositsAtMaster). Only wallets with rules, so that most
 * confirmations write nothing more.
 */
async function noteTakes(db: DbConn, depositIds: string[], masterOnly: boolean): Promise<void> {
  await sql`
    INSERT INTO auto_settlement_takes (deposit_id, wallet_id)
    SELECT t.id, t.wallet_id FROM transactions t
     WHERE t.id = ANY(${depositIds}::uuid[]) AND t.type = 'DEPOSIT' AND t.asset_id IS NOT NULL AND t.amount > 0 AND NOT t.aml_held
       ${masterOnly ? sql`AND t.address_id IS NULL` : sql``}
       AND EXISTS (SELECT 1 FROM auto_settlement_rules r WHERE r.wallet_id = t.wallet_id)
    ON CONFLICT DO NOTHING`.execute(db);
}

/**
 * The take of these deposits has run (in its transaction): what a rule took is held by its
 * settlement now. Answers the deposits that were still noted: one a settlement run released
 * meanwhile (settlements/store.ts releaseTake) is not.
 */
export async function takesDone(db: DbConn, depositIds: string[]): Promise<Set<string>> {
  if (depositIds.length === 0) return new Set();
  const { rows } = await sql<{ deposit_id: string }>`
    DELETE FROM auto_settlement_takes WHERE deposit_id = ANY(${depositIds}::uuid[]) RETURNING deposit_id`.execute(db);
  return new Set(rows.map((r) => r.deposit_id));
}

/**
 * The job key folds a re-queue of a live job into it (a job re-queuing itself while it runs
 * gets a new job: graphile-worker frees the key of a locked job).
 */
export async function enqueueJob(db: DbConn, id: string, delayMs = 0): Promise<void> {
  await jobs.auto_settle.add(db, { id }, { delayMs, key: jobs.auto_settle.key(id), maxAttempts: 25 });
}

/**
 * Serialises the planning of settlements sent from one address (until the transaction
 * ends): the allowance and native balance it reads must not be read by another settlement
 * of the same sender at the same time (docs/settlement.md, "One sender at a time").
 */
export async function lockSender(db: DbConn, chainId: string, sender: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`auto_settle:${chainId}:${addressKey(sender)}`}, 0))`.execute(db);
}

/**
 * Another settlement of the same sender whose moves are still in flight and would make this
 * one's chain reads wrong: from a child, any planned pending one (its gas, its top-up, its
 * allowance), and any sweep of the child in flight (its fee is held at the child while the
 * top-up that pays it is still on its way from the master); from the master, one swapping the
 * same input asset whose approve/swap is not yet confirmed (the allowance).
 */
export async function senderBusy(db: DbConn, s: SettlementRow): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM auto_settlements
     WHERE status = 'pending' AND id <> ${s.id} AND chain_id = ${s.chain_id} AND wallet_id = ${s.wallet_id}
       AND from_index = ${s.from_index} AND stage <> 'queued'
       AND (from_index <> 0 OR (stage = 'sending' AND asset_in_id = ${s.asset_in_id} AND asset_out_id <> asset_in_id))
    UNION ALL
    SELECT sw.id FROM sweeps sw JOIN addresses ad ON ad.id = sw.address_id
     WHERE ${s.from_index} <> 0 AND sw.status = 'pending' AND ad.wallet_id = ${s.wallet_id} AND ad.chain_id = ${s.chain_id}
       AND ad.derivation_index = ${s.from_index}
     LIMIT 1`.execute(db);
  return rows.length > 0;
}

/** The database's time, noted before a plan's chain reads (movedSince). */
export async function databaseTime(db: DbConn): Promise<Date> {
  const { rows } = await sql<{ t: Date }>`SELECT statement_timestamp() AS t`.execute(db);
  return rows[0]!.t;
}

/**
 * Whether a settlement that senderBusy would weigh against `s` changed since `since` (a time
 * noted before `s`'s plan read the chain): its moves may have changed what the plan read. A
 * move's effect on chain is followed by an update of its row, in a transaction begun after it
 * was seen mined; so one that landed after the read shows here. Still queued: nothing moved.
 * From a child, a sweep of it that moved since counts the same way (senderBusy).
 */
export async function movedSince(db: DbConn, s: SettlementRow, since: Date): Promise<boolean> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM auto_settlements
     WHERE wallet_id = ${s.wallet_id} AND chain_id = ${s.chain_id} AND from_index = ${s.from_index} AND updated_at >= ${since}
       AND id <> ${s.id} AND stage <> 'queued'
       AND (from_index <> 0 OR (asset_in_id = ${s.asset_in_id} AND asset_out_id <> asset_in_id))
    UNION ALL
    SELECT sw.id FROM sweeps sw JOIN addresses ad ON ad.id = sw.address_id
     WHERE ${s.from_index} <> 0 AND sw.updated_at >= ${since} AND ad.wallet_id = ${s.wallet_id} AND ad.chain_id = ${s.chain_id}
       AND ad.derivation_index = ${s.from_index}
     LIMIT 1`.execute(db);
  return rows.length > 0;
}

export async function findSettlement(db: DbConn, id: string): Promise<SettlementRow | undefined> {
  const { rows } = await sql<SettlementRow>`SELECT * FROM auto_settlements WHERE id = ${id}`.execute(db);
  return rows[0];
}

export async function lockSettlement(db: DbConn, id: string): Promise<SettlementRow | undefined> {
  const { rows } = await sql<SettlementRow>`SELECT * FROM auto_settlements WHERE id = ${id} FOR UPDATE`.execute(db);
  return rows[0];
}

export async function settlementOfDeposit(db: DbConn, depositId: string): Promise<SettlementRow | undefined> {
  const { rows } = await sql<SettlementRow>`SELECT * FROM auto_settlements WHERE deposit_id = ${depositId}`.execute(db);
  return rows[0];
}

export async function updateSettlement(
  db: DbConn,
  id: string,
  patch: Partial<{
    stage: SettlementStage;
    status: 'pending' | 'success' | 'failed';
    amountOut: bigint;
    network: NetworkData;
    transferGasLimit: bigint;
    swapTransactionId: string;
    settleTransactionId: string;
    swap: Record<string, unknown>;
    error: string;
    /** What the master's top-up of the child costs it beyond its value (held with the top-up's row: withdrawals/store.ts heldBack). */
    topupFee: bigint;
  }>,
): Promise<void> {
  await sql`
    UPDATE auto_settlements SET
      stage = coalesce(${patch.stage ?? null}::text, stage),
      status = coalesce(${patch.status ?? null}::text, status),
      amount_out = coalesce(${patch.amountOut?.toString() ?? null}::numeric, amount_out),
      network = coalesce(${patch.network ? JSON.stringify(patch.network) : null}::jsonb, network),
      transfer_gas_limit = coalesce(${patch.transferGasLimit?.toString() ?? null}::numeric, transfer_gas_limit),
      swap_transaction_id = coalesce(${patch.swapTransactionId ?? null}::uuid, swap_transaction_id),
      settle_transaction_id = coalesce(${patch.settleTransactionId ?? null}::uuid, settle_transaction_id),
      swap = coalesce(${patch.swap ? JSON.stringify(patch.swap) : null}::jsonb, swap),
      error = coalesce(${patch.error ?? null}::text, error),
      topup_fee = coalesce(${patch.topupFee?.toString() ?? null}::numeric, topup_fee),
      updated_at = now()
    WHERE id = ${id}`.execute(db);
}

/**
 * A settlement not yet planned (stage queued: no leg, no send, nothing held but its row) that no
 * rule takes any more: removed, so its deposit is as one no rule took (a release from AML
 * screening, say, queues its take again). Its job finds no row and ends.
 */
export async function dropQueued(db: DbConn, id: string): Promise<void> {
  await sql`DELETE FROM auto_settlements WHERE id = ${id} AND stage = 'queued' AND status = 'pending'`.execute(db);
}

/** A settlement not yet planned takes the rule that takes its deposit now (its copy, and its destination asset). */
export async function retake(db: DbConn, id: string, rule: StoredRule, assetOutId: string): Promise<void> {
  await sql`
    UPDATE auto_settlements SET rule_id = ${rule.id}, rule = ${JSON.stringify(rule)}::jsonb, asset_out_id = ${assetOutId}, updated_at = now()
     WHERE id = ${id} AND stage = 'queued' AND status = 'pending'`.execute(db);
}

/** Settlements without progress for a while: their job was lost or ran out of attempts. */
export async function stalled(db: DbConn, olderThanMs: number, limit: number): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM auto_settlements
     WHERE status = 'pending' AND stage IN ('queued', 'swapped') AND updated_at < now() - make_interval(secs => ${olderThanMs / 1000})
     ORDER BY updated_at LIMIT ${limit}`.execute(db);
  return rows.map((r) => r.id);
}
