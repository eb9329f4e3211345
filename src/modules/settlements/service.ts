/**
 * Settlement to the wallet's settlement beneficiary (docs/settlement.md, "Beneficiaries").
 *
 * A run moves the master address's available balance of each asset it covers (on-chain
 * balance minus what PENDING withdrawals from the master hold) to the beneficiary. It is a
 * withdrawal made through the withdrawals service: so it holds funds against other
 * withdrawals under the sender's lock, takes its nonce from the pipeline, obeys the
 * whitelist, can be cancelled and retried, and emits withdraw.success / withdraw.failed.
 *
 * Runs are decided in the database (a row per beneficiary and period, unique) together
 * with their job, and executed by the worker one wallet at a time (one job queue per
 * wallet). A run first stores its amounts, then sends one batch withdrawal whose
 * Idempotency-Key is the run id and whose items carry references derived from it: a worker
 * that dies anywhere in between finds the withdrawals of those references (the request was
 * made) or sends the same request again (a twin's stored answer wins), so a period is never
 * paid twice, and a request never made is not made to a beneficiary removed meanwhile.
 */
import type { Db, DbConn } from '../../db/pool.js';
import type { Clock } from '../../lib/clock.js';
import type { Logger } from '../../lib/logger.js';
import { AppError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { formatAmount } from '../../lib/money.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AutoSettlementService } from '../autosettlements/service.js';
import type { WalletAssetService } from '../assets/service.js';
import type { AssetHandle } from '../catalogue/service.js';
import type { BeneficiaryRow, BeneficiaryService } from '../beneficiaries/service.js';
import type { TransactionService, TransactionView } from '../transactions/service.js';
import type { WalletRow, WalletService } from '../wallets/service.js';
import type { WithdrawalService } from '../withdrawals/service.js';
import { duePeriod, SCHEDULED, type ScheduledFrequency } from './periods.js';
import * as store from './store.js';

export type { RunRow } from './store.js';

export interface SettlementDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  wallets: WalletService;
  walletAssets: WalletAssetService;
  transactions: TransactionService;
  withdrawals: WithdrawalService;
  beneficiaries: BeneficiaryService;
  /** Deposits an auto-settlement rule takes are the rule's, not the settlement beneficiary's. */
  autoSettlements: Pick<AutoSettlementService, 'handles'>;
}

export interface RunView {
  id: string;
  beneficiaryId: string;
  period: string;
  status: store.RunStatus;
  transactionIds: string[];
  error: string | null;
  createdAt: string;
  updatedAt: string;
}

/** Resumed runs whose job went missing are re-queued after this long untouched. */
const STALE_RUN_SECONDS = 300;

export class SettlementService {
  constructor(private readonly deps: SettlementDeps) {}

  /** deposit.confirmed (src/subscriptions.ts): queues job settle_deposits in the confirming transaction. */
  queueConfirmed(tx: DbConn, depositIds: string[]): Promise<void> {
    return store.enqueueInstantConfirmed(tx, depositIds);
  }

  /** sweep.completed: queues job settle_swept in the sweep's transaction. */
  queueSwept(tx: DbConn, depositIds: string[]): Promise<void> {
    return store.enqueueInstantSwept(tx, depositIds);
  }

  /**
   * Job settle_deposits: INSTANT runs for deposits made straight to the master address. Run
   * twice, it creates each run once (unique beneficiary and period `deposit:<id>`).
   */
  async instantConfirmed(depositIds: string[]): Promise<void> {
    await this.deps.db.transaction().execute((tx) => this.#instant(tx, depositIds, true));
  }

  /** Job settle_swept: INSTANT runs for deposits a sweep has just moved to the master address. */
  async instantSwept(depositIds: string[]): Promise<void> {
    await this.deps.db.transaction().execute((tx) => this.#instant(tx, depositIds, false));
  }

  /** INSTANT: one run per deposit that reached the master, covering that deposit's asset. */
  async #instant(tx: DbConn, depositIds: string[], masterOnly: boolean): Promise<void> {
    const deposits = await store.depositsToSettle(tx, depositIds, masterOnly);
    if (deposits.length === 0) return;
    const runs: store.NewRun[] = [];
    const beneficiaryOf = new Map<string, BeneficiaryRow | undefined>();
    for (const d of deposits) {
      if (await this.deps.autoSettlements.handles(tx, d.id)) continue;
      if (!beneficiaryOf.has(d.wallet_id)) beneficiaryOf.set(d.wallet_id, await this.deps.beneficiaries.settlementOf(d.wallet_id, tx));
      const b = beneficiaryOf.get(d.wallet_id);
      // Another settlement beneficiary (the default, or an older one) may win with a schedule.
      if (b?.settlement_frequency !== 'INSTANT') continue;
      runs.push({ id: uuidv7(), walletId: d.wallet_id, beneficiaryId: b.id, period: `deposit:${d.id}`, assetIds: [d.asset_id!] });
    }
    await store.createRuns(tx, runs);
  }

  /**
   * The scheduler (every minute, see jobs/tasks.ts): a run for every scheduled settlement
   * beneficiary whose last closed period has none yet. Safe to call any number of times from
   * any number of workers: the unique (wallet, period) and (beneficiary, period) keys decide.
   */
  async tick(now: Date = this.deps.clock.now()): Promise<string[]> {
    const runs: store.NewRun[] = [];
    for (const b of await this.deps.beneficiaries.settlementBeneficiaries()) {
      const frequency = b.settlement_frequency as ScheduledFrequency;
      if (!SCHEDULED.includes(frequency)) continue;
      const period = duePeriod(frequency, b.settlement_since ?? b.created_at, now);
      if (!period) continue;
      runs.push({ id: uuidv7(), walletId: b.wallet_id, beneficiaryId: b.id, period: period.key, assetIds: null });
    }
    const created = await this.deps.db.transaction().execute((tx) => store.createRuns(tx, runs));
    await store.requeueStale(this.deps.db, STALE_RUN_SECONDS);
    return created;
  }

  /** The worker's job: executes (or resumes) one run. */
  async run(runId: string): Promise<void> {
    const { db, logger } = this.deps;
    for (let attempt = 0; ; attempt++) {
      const run = await store.findRun(db, runId);
      if (!run || run.status !== 'pending') return;
      // A run that decided its amounts may have made its request before its job died (a crash
      // after the COMMIT, before the run was marked done): what that request wrote says so,
      // not the request sent again (its note names the beneficiary, which may be renamed since,
      // and its Idempotency-Key is forgotten after a day). Made: the run is done with it.
      const made = run.plan ? await store.withdrawalsOfPlan(db, run.wallet_id, run.plan) : [];
      if (made.length > 0) {
        await store.finishRun(db, runId, 'done', made, null);
        return;
      }
      // Not made (a plan only, or none yet): dropped when its beneficiary is no longer the
      // wallet's settlement beneficiary in force: it stopped settling (deleted, deactivated,
      // switched off; one removed while the job waited for a node must not be paid) or another
      // took over (a new default: funds never go two ways).
      const b = await this.deps.beneficiaries.settlementOf(run.wallet_id);
      if (!b || b.id !== run.beneficiary_id) {
        await store.finishRun(db, runId, 'failed', [], 'the beneficiary no longer receives settlements');
        return;
      }
      const wallet = await this.deps.wallets.requireRow(run.wallet_id);
      const plan = run.plan ?? (await store.savePlan(db, runId, await this.#decide(wallet, run)));
      if (plan.length === 0) {
        await store.finishRun(db, runId, 'nothing', [], null);
        return;
      }
      try {
        const sent = await this.#send(wallet, b, run, plan);
        await store.finishRun(
          db,
          runId,
          'done',
          sent.map((t) => t.id),
          null,
        );
        return;
      } catch (err) {
        if (!(err instanceof AppError) || err.retryable) throw err; // the job is retried and resumes
        // Funds moved between the decision and the request (a withdrawal accepted meanwhile).
        // A refused request wrote nothing (had an earlier attempt committed, its
        // Idempotency-Key would have answered instead), so decide once more.
        if (err.code === 'INSUFFICIENT_BALANCE' && attempt === 0) {
          await store.clearPlan(db, runId);
          continue;
        }
        logger.warn({ runId, code: err.code, err: err.message }, 'settlement refused');
        await store.finishRun(db, runId, 'failed', [], `${err.code}: ${err.message}`);
        return;
      }
    }
  }

  /** Runs of a beneficiary, newest first (GET .../beneficiaries/{id}/settlements). */
  async list(
    auth: AuthContext,
    walletId: string,
    beneficiaryId: string,
    page: number,
    limit: number,
  ): Promise<{ items: RunView[]; meta: PageMeta }> {
    await this.deps.beneficiaries.get(auth, walletId, beneficiaryId);
    const { rows, total } = await store.listRuns(this.deps.db, beneficiaryId, (page - 1) * limit, limit);
    return { items: rows.map(presentRun), meta: pageMeta(page, limit, rows.length, total) };
  }

  findRun(beneficiaryId: string, period: string): Promise<store.RunRow | undefined> {
    return store.findRunByPeriod(this.deps.db, beneficiaryId, period);
  }

  /**
   * The amounts to move: per covered token, the master's balance minus the amounts of its
   * PENDING withdrawals. The native coin is never settled: it pays the gas of sweeps,
   * top-ups and settlements. This is an estimate; the withdrawals service checks it again
   * under the sender's lock, with its own reservation rules, before anything is written.
   */
  async #decide(wallet: WalletRow, run: store.RunRow): Promise<store.PlanItem[]> {
    const chain = this.deps.wallets.chainOf(wallet);
    const enabled = await this.deps.walletAssets.enabled(wallet);
    const handles = enabled
      .map((e) => e.asset)
      .filter(({ row: a }) => !a.is_native && (run.asset_ids === null || run.asset_ids.includes(a.id)))
      .sort((a, b) => a.row.symbol.localeCompare(b.row.symbol));
    if (handles.length === 0) return [];
    const assets = handles.map((h) => h.row);
    const held = await this.#heldByPending(wallet, handles);
    const balances = await chain.adapter.getBalances(assets.map((a) => ({ owner: wallet.address, token: a.address })));
    return assets.flatMap((a, i) => {
      const available = (balances[i] ?? 0n) - (held.get(a.id) ?? 0n);
      return available > 0n ? [{ assetId: a.id, amount: available.toString(), reference: `STL-${run.id}-${a.symbol}` }] : [];
    });
  }

  /**
   * What the master has promised elsewhere, per asset: whatever the withdrawals service holds
   * against a payout from it (WithdrawalService.inFlight: PENDING and PENDING_APPROVAL
   * withdrawals, the legs of pending auto-settlements and swaps, contract writes, salvages,
   * stakes, standing allowances), so that the request it is about to judge fits. An auto-settlement's output is
   * held from the quote on, before the swap delivers it: holding back too much only delays
   * that part to the next period, holding back too little would be refused.
   */
  async #heldByPending(wallet: WalletRow, tokens: AssetHandle[]): Promise<Map<string, bigint>> {
    // Deposits to the master held by AML screening, or not confirmed yet, are not settled.
    const held = await store.heldDepositsAtMaster(this.deps.db, wallet.id);
    // Deposits at the master whose rule has not taken them yet (the job that takes them is
    // queued): those an active rule takes are the rule's, as once taken (read before the
    // queued auto-settlements below: one taken in between is held twice, never missed). The
    // others are the settlement's, and released to it: a rule switched on before the job runs
    // must not take what this run pays (the job takes only deposits still noted). One the job
    // took first (the release finds no row) is the job's: held.
    // (Only deposits of the assets this run settles are released: another's is not this run's to pay.)
    const covered = new Set(tokens.map((t) => t.row.id));
    for (const d of await store.pendingTakes(this.deps.db, wallet.id)) {
      const ruled = await this.deps.autoSettlements.handles(this.deps.db, d.id);
      const mine = !ruled && covered.has(d.asset_id) && (await store.releaseTake(this.deps.db, d.id));
      if (!mine) held.set(d.asset_id, (held.get(d.asset_id) ?? 0n) + BigInt(d.amount));
    }
    // Deposits an auto-settlement has taken but not planned yet: its legs, held below, come later.
    for (const [id, amount] of await store.queuedAutoSettlementsAtMaster(this.deps.db, wallet.id)) {
      held.set(id, (held.get(id) ?? 0n) + amount);
    }
    const chain = this.deps.wallets.chainOf(wallet);
    for (const { row } of tokens) {
      const { amount } = await this.deps.withdrawals.inFlight(chain, wallet.address, row.id);
      held.set(row.id, (held.get(row.id) ?? 0n) + amount);
    }
    // Allowances the master granted through contract writes, for as long as they stand on
    // chain: the withdrawals service holds them too (a spender may pull them at any time).
    for (const [id, amount] of await this.deps.withdrawals.heldByAllowances(chain, wallet.address, tokens)) {
      held.set(id, (held.get(id) ?? 0n) + amount);
    }
    return held;
  }

  async #send(wallet: WalletRow, b: BeneficiaryRow, run: store.RunRow, plan: store.PlanItem[]): Promise<TransactionView[]> {
    const chain = this.deps.wallets.chainOf(wallet);
    const decimals = (assetId: string) => chain.assets.find((a) => a.id === assetId)!.decimals;
    const result = await this.deps.withdrawals.withdraw(systemAuth(wallet), {
      walletId: wallet.id,
      addressId: null,
      idempotencyKey: `settlement:${run.id}`,
      // Checked again where the payout is accepted: a run resumed (or still under way) after
      // the beneficiary stopped settling pays nothing; one that committed before is answered.
      settlesTo: b.id,
      body: {
        assets: plan.map((p) => ({
          id: p.assetId,
          amount: formatAmount(BigInt(p.amount), decimals(p.assetId)),
          address: b.address,
          reference: p.reference,
          note: `Settlement to beneficiary ${b.name} (${run.period})`,
          metadata: { settlement: { runId: run.id, beneficiaryId: b.id, period: run.period } },
        })),
      },
    });
    return Array.isArray(result) ? result : [result];
  }
}

/**
 * Settlements act for the wallet itself, not for an API key: the service on its schedule,
 * which transaction policies see as initiator `system` (docs/policies.md).
 */
const systemAuth = (wallet: WalletRow): AuthContext => ({
  keyId: 'settlement',
  businessId: wallet.business_id,
  walletId: wallet.id,
  system: true,
});

function presentRun(r: store.RunRow): RunView {
  return {
    id: r.id,
    beneficiaryId: r.beneficiary_id,
    period: r.period,
    status: r.status,
    transactionIds: r.transaction_ids,
    error: r.error,
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}
