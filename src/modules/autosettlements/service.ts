/**
 * Auto-settlement: rules (wallet and address level) that move, or swap and move, what a
 * wallet receives, and the configuration switches. Execution lives in executor.ts; this
 * file holds the API side, `handles()` and the jobs that take deposits (queued on
 * deposit.confirmed and sweep.completed, src/subscriptions.ts).
 *
 * Switches: the wallet's `configurations.autoSettlement.isActive` (default off, also
 * settable with PATCH /v1/wallets/{id}) gates every rule of the wallet and its addresses;
 * an address configuration's `isActive` (default on) gates that address's own rules.
 */
import { retryOnDeadlock, type DbConn } from '../../db/pool.js';
import { NotFoundError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import type { ModuleDeps } from '../deps.js';
import type { AuthContext } from '../apikeys/service.js';
import type { WalletRow } from '../wallets/service.js';
import { normaliseConfigurations } from '../wallets/service.js';
import type { WithdrawalService } from '../withdrawals/service.js';
import type { SweepService } from '../sweeps/service.js';
import type { SwapService } from '../swaps/service.js';
import { AutoSettlementExecutor } from './executor.js';
import { pickRule, type Order, type StoredRule } from './rules.js';
import * as store from './store.js';
import { assetBySymbol, checkRule } from './validate.js';

export interface RuleView {
  id: string;
  name: string;
  isActive: boolean;
  order: string;
  slippageTolerance: string;
  source: StoredRule['source'];
  destination: StoredRule['destination'];
  createdAt: string;
  updatedAt: string;
}

export interface RuleInput {
  name?: string;
  isActive?: boolean;
  order?: Order;
  slippageTolerance?: string;
  source?: { assets?: string[]; blockchain?: string; minAmount?: string; maxAmount?: string | null };
  destination?: { asset?: string; address?: string; blockchain?: string };
}

export class AutoSettlementService {
  readonly executor: AutoSettlementExecutor;

  constructor(
    private readonly deps: ModuleDeps,
    private readonly sweeps: SweepService,
    private readonly swaps: SwapService,
    private readonly withdrawals: WithdrawalService,
  ) {
    this.executor = new AutoSettlementExecutor(deps, swaps, withdrawals, (tx, depositId) => this.#takeNow(tx, depositId));
  }

  // ---- taking deposits ----------------------------------------------------------------

  /**
   * Does an active rule take this deposit? Read in the caller's transaction. Settlement
   * beneficiaries skip such deposits (SettlementService depends on this, services.ts).
   */
  async handles(tx: DbConn, depositId: string): Promise<boolean> {
    return (await this.#rulesFor(tx, [depositId])).size > 0;
  }

  /** deposit.confirmed (src/subscriptions.ts): queues job auto_settle_deposits in the confirming transaction. */
  queueConfirmed(tx: DbConn, depositIds: string[]): Promise<void> {
    return store.enqueueTakeConfirmed(tx, depositIds);
  }

  /** sweep.completed: queues job auto_settle_swept in the sweep's transaction. */
  queueSwept(tx: DbConn, depositIds: string[]): Promise<void> {
    return store.enqueueTakeSwept(tx, depositIds);
  }

  /**
   * Job auto_settle_deposits: settles the confirmed deposits that stay where they landed (no
   * auto-sweep). Run twice, it takes each deposit once (one settlement per deposit, unique).
   */
  async takeConfirmed(depositIds: string[]): Promise<void> {
    await this.deps.db.transaction().execute(async (tx) => {
      const noted = await store.takesDone(tx, depositIds);
      const taken = await this.#rulesFor(tx, depositIds);
      // A deposit at the master is noted when confirmed (queueConfirmed, if its wallet has
      // rules); one no longer noted was released to a settlement run that paid it (no rule
      // took it then), or had no rule to take it when it arrived: the rules of now leave it.
      for (const [id, t] of taken) if (t.deposit.address_id === null && !noted.has(id)) taken.delete(id);
      if (taken.size === 0) return;
      const swept = await this.sweeps.autoSwept(tx, [...taken.keys()]);
      for (const id of swept) taken.delete(id);
      // A sweep that ran before this job (the child's larger deposit's) may have carried one
      // along with the child's whole balance: its rule takes it at the master (takeSwept).
      const atChildren = [...taken.values()].filter((t) => t.deposit.address_id !== null).map((t) => t.deposit.id);
      for (const id of await this.sweeps.carried(tx, atChildren)) taken.delete(id);
      await this.#take(tx, taken, false);
    });
  }

  /** Job auto_settle_swept: the deposits are on the master now, and are settled from there. */
  async takeSwept(depositIds: string[]): Promise<void> {
    await this.deps.db.transaction().execute(async (tx) => {
      // Noted when swept (queueSwept): one released to a settlement run meanwhile is left, as in takeConfirmed.
      const noted = await store.takesDone(tx, depositIds);
      const taken = await this.#rulesFor(tx, depositIds);
      for (const id of taken.keys()) if (!noted.has(id)) taken.delete(id);
      await this.#take(tx, taken, true);
    });
  }

  /**
   * The rule that takes the deposit now, and its destination asset, or null: asked again in the
   * transaction that records a settlement's plan (record.ts), the rules read locked FOR SHARE
   * to its COMMIT, so that a settlement queued while its rule was deleted, switched off or
   * changed (or the wallet switched off, or the deposit held by AML screening since) does not
   * send by the copy it was taken with.
   */
  async #takeNow(tx: DbConn, depositId: string): Promise<{ rule: StoredRule; assetOutId: string } | null> {
    const taken = (await this.#rulesFor(tx, [depositId], true)).get(depositId);
    if (!taken) return null;
    const out = assetBySymbol(this.deps.catalogue.chain(taken.deposit.chain_id), taken.rule.destination.asset);
    return out ? { rule: taken.rule, assetOutId: out.id } : null;
  }

  async #take(tx: DbConn, taken: Map<string, { deposit: store.DepositRow; rule: StoredRule }>, swept: boolean): Promise<void> {
    for (const { deposit: d, rule } of taken.values()) {
      const chain = this.deps.catalogue.chain(d.chain_id);
      const out = assetBySymbol(chain, rule.destination.asset);
      // The rule was valid when written; an asset switched off since then leaves the deposit alone.
      if (!out) continue;
      const amountIn = swept ? sweptShare(d) : BigInt(d.amount);
      // A sweep that delivered nothing of it leaves nothing to settle.
      if (amountIn <= 0n) continue;
      await store.insertSettlement(tx, {
        id: uuidv7(),
        depositId: d.id,
        rule,
        walletId: d.wallet_id,
        chainId: d.chain_id,
        fromIndex: swept || d.address_id === null ? 0 : d.derivation_index!,
        assetInId: d.asset_id!,
        assetOutId: out.id,
        amountIn,
      });
    }
  }

  /**
   * The deposits (of those given) that a rule takes, with the rule. Two queries whatever the
   * number of deposits (the indexer confirms a range at once), one when no wallet is switched on.
   */
  async #rulesFor(
    tx: DbConn,
    depositIds: string[],
    /** The rules read are locked FOR SHARE to the end of `tx` (store.activeRulesOf). */
    share = false,
  ): Promise<Map<string, { deposit: store.DepositRow; rule: StoredRule }>> {
    const taken = new Map<string, { deposit: store.DepositRow; rule: StoredRule }>();
    const active = new Map<string, boolean>(); // per wallet, normalised once per call
    const candidates = (await store.deposits(tx, depositIds)).filter((d) => {
      // A zero-value transfer (anyone can send one) moves nothing and must never block the indexer.
      if (d.type !== 'DEPOSIT' || d.status !== 'SUCCESS' || !d.asset_id || BigInt(d.amount) <= 0n) return false;
      // Held by AML screening (a listed sender): nothing moves it until an operator releases it.
      if (d.aml_held) return false;
      // We hold no key for an external (watched) address: nothing can be moved from it.
      if (d.address_id !== null && (d.address_type !== 'INTERNAL' || d.derivation_index === null)) return false;
      let on = active.get(d.wallet_id);
      if (on === undefined) active.set(d.wallet_id, (on = normaliseConfigurations(d.wallet_configurations).autoSettlement.isActive));
      return on;
    });
    if (candidates.length === 0) return taken;
    const rules = await store.activeRulesOf(
      tx,
      [...new Set(candidates.map((d) => d.wallet_id))],
      candidates.flatMap((d) => (d.address_id ? [d.address_id] : [])),
      share,
    );
    for (const d of candidates) {
      const asset = this.deps.catalogue.asset(d.asset_id!);
      if (!asset) continue;
      const rule = pickRule(
        rules.filter((r) => r.wallet_id === d.wallet_id),
        {
          addressId: d.address_id,
          chainSlug: asset.chain.config.blockchain.slug,
          assetSymbol: asset.row.symbol,
          decimals: asset.row.decimals,
          amount: BigInt(d.amount),
        },
        { wallet: true, address: d.address_switch ?? true },
      );
      if (rule) taken.set(d.id, { deposit: d, rule });
    }
    return taken;
  }

  // ---- API ----------------------------------------------------------------------------

  async walletConfig(auth: AuthContext, walletId: string) {
    const wallet = await this.deps.wallets.require(auth, walletId);
    const [config, rules] = await Promise.all([
      store.findConfig(this.deps.db, walletId, null),
      store.listRules(this.deps.db, walletId, null),
    ]);
    return {
      isActive: normaliseConfigurations(wallet.configurations).autoSettlement.isActive,
      name: config?.name ?? '',
      rules: rules.map((r) => {
        const { id: _id, createdAt: _c, updatedAt: _u, ...rest } = present(r);
        return rest;
      }),
    };
  }

  /** Wallet-level rules by wallet id, for `configurations.autoSettlement.rules` of the wallet view. */
  async walletRules(walletIds: string[]): Promise<Map<string, RuleView[]>> {
    const out = new Map<string, RuleView[]>(walletIds.map((id) => [id, []]));
    for (const rule of await store.walletRulesOf(this.deps.db, walletIds)) out.get(rule.wallet_id)?.push(present(rule));
    return out;
  }

  async addressConfig(auth: AuthContext, walletId: string, addressId: string) {
    await this.deps.addresses.require(auth, walletId, addressId);
    const [config, rules] = await Promise.all([
      store.findConfig(this.deps.db, walletId, addressId),
      store.listRules(this.deps.db, walletId, addressId),
    ]);
    return { isActive: config?.is_active ?? true, rules: rules.map(present) };
  }

  /** Extension: switch the wallet's configuration on or off, and name it. */
  async updateWalletConfig(auth: AuthContext, walletId: string, patch: { isActive?: boolean; name?: string }) {
    await this.deps.wallets.require(auth, walletId);
    if (patch.isActive !== undefined)
      await this.deps.wallets.update(auth, walletId, { configurations: { autoSettlement: { isActive: patch.isActive } } });
    if (patch.name !== undefined)
      await store.upsertConfig(this.deps.db, {
        id: uuidv7(),
        walletId,
        addressId: null,
        name: patch.name,
        isActive: undefined,
        defaultActive: false,
      });
    return this.walletConfig(auth, walletId);
  }

  /** Extension: switch an address's own rules on or off. */
  async updateAddressConfig(auth: AuthContext, walletId: string, addressId: string, patch: { isActive?: boolean }) {
    await this.deps.addresses.require(auth, walletId, addressId);
    await store.upsertConfig(this.deps.db, {
      id: uuidv7(),
      walletId,
      addressId,
      name: undefined,
      isActive: patch.isActive,
      defaultActive: true,
    });
    return this.addressConfig(auth, walletId, addressId);
  }

  async listRules(auth: AuthContext, walletId: string, addressId: string | null): Promise<RuleView[]> {
    await this.#owner(auth, walletId, addressId);
    return (await store.listRules(this.deps.db, walletId, addressId)).map(present);
  }

  async getRule(auth: AuthContext, walletId: string, addressId: string | null, id: string): Promise<RuleView> {
    await this.#owner(auth, walletId, addressId);
    const rule = await store.findRule(this.deps.db, walletId, addressId, id);
    if (!rule) throw new NotFoundError('Auto-settlement rule');
    return present(rule);
  }

  async createRule(auth: AuthContext, walletId: string, addressId: string | null, input: RuleInput): Promise<RuleView> {
    const wallet = await this.#owner(auth, walletId, addressId);
    const values = await this.#screened(auth, wallet, {
      name: input.name!,
      isActive: input.isActive ?? true,
      order: input.order ?? 'RECOMMENDED',
      slippageTolerance: input.slippageTolerance ?? '0.5',
      source: {
        assets: input.source!.assets!,
        blockchain: input.source!.blockchain!,
        minAmount: input.source!.minAmount ?? '0',
        maxAmount: input.source!.maxAmount ?? null,
      },
      destination: { asset: input.destination!.asset!, address: input.destination!.address!, blockchain: input.destination!.blockchain! },
    });
    const rule = await this.deps.db.transaction().execute(async (tx) => {
      await this.#whitelisted(tx, walletId, values);
      // An address's first rule gives it a configuration (switched on), so GET shows what applies.
      if (addressId)
        await store.upsertConfig(tx, { id: uuidv7(), walletId, addressId, name: undefined, isActive: undefined, defaultActive: true });
      return store.insertRule(tx, uuidv7(), walletId, addressId, values);
    });
    return present(rule);
  }

  async updateRule(auth: AuthContext, walletId: string, addressId: string | null, id: string, patch: RuleInput): Promise<RuleView> {
    const wallet = await this.#owner(auth, walletId, addressId);
    // A rule saved again is screened again (lists change): the destination it will have.
    const before = await store.findRule(this.deps.db, walletId, addressId, id);
    const destination = patch.destination?.address ?? before?.destination.address;
    const canonical = destination ? this.deps.wallets.chainOf(wallet).adapter.normalizeAddress(destination) : null;
    if (canonical)
      await this.deps.aml?.checkPayout({
        wallet,
        chain: this.deps.wallets.chainOf(wallet),
        recipients: [{ address: canonical, field: 'destination.address' }],
        operation: 'auto-settlement-rule',
        actor: `api-key:${auth.keyId}`,
      });
    const updated = await this.deps.db.transaction().execute(async (tx) => {
      const current = await store.lockRule(tx, walletId, addressId, id, 'update');
      if (!current) throw new NotFoundError('Auto-settlement rule');
      const values = this.#check(wallet, {
        name: patch.name ?? current.name,
        isActive: patch.isActive ?? current.is_active,
        order: patch.order ?? current.order,
        slippageTolerance: patch.slippageTolerance ?? current.slippage_tolerance,
        source: {
          ...current.source,
          ...definedOf(patch.source ?? {}),
          ...(patch.source && 'maxAmount' in patch.source ? { maxAmount: patch.source.maxAmount ?? null } : {}),
        },
        destination: { ...current.destination, ...definedOf(patch.destination ?? {}) },
      });
      await this.#whitelisted(tx, walletId, values);
      return store.updateRule(tx, id, values);
    });
    return present(updated);
  }

  async deleteRule(auth: AuthContext, walletId: string, addressId: string | null, id: string): Promise<RuleView> {
    await this.#owner(auth, walletId, addressId);
    // Settlements first, the rule second (see detachSettlements). One inserted by a hook
    // still running when the settlements were unlinked is reached by ON DELETE SET NULL
    // after all, and its job may hold it: PostgreSQL then aborts one side, and this one is
    // simply run again.
    const deleted = await retryOnDeadlock(() =>
      this.deps.db.transaction().execute(async (tx) => {
        if (!(await store.findRule(tx, walletId, addressId, id))) throw new NotFoundError('Auto-settlement rule');
        await store.detachSettlements(tx, id);
        const current = await store.lockRule(tx, walletId, addressId, id, 'delete');
        if (!current) throw new NotFoundError('Auto-settlement rule');
        await store.deleteRule(tx, id);
        return current;
      }),
    );
    return present(deleted);
  }

  #check(wallet: WalletRow, values: store.RuleValues): store.RuleValues {
    const chain = this.deps.wallets.chainOf(wallet);
    return checkRule(chain, values, this.swaps.available(chain.id));
  }

  /** #check, then the destination's AML screening (422 AML_BLOCKED when listed; each settlement is screened again when it runs). */
  async #screened(auth: AuthContext, wallet: WalletRow, values: store.RuleValues): Promise<store.RuleValues> {
    const checked = this.#check(wallet, values);
    await this.deps.aml?.checkPayout({
      wallet,
      chain: this.deps.wallets.chainOf(wallet),
      recipients: [{ address: checked.destination.address, field: 'destination.address' }],
      operation: 'auto-settlement-rule',
      actor: `api-key:${auth.keyId}`,
    });
    return checked;
  }

  /**
   * A rule is a standing payout: while the wallet whitelists beneficiaries, an active rule's
   * destination must be one of them (422 NOT_WHITELISTED), as a withdrawal's must. A rule
   * switched off moves nothing and can always be saved. Each settlement is checked again when
   * it is recorded (record.ts): a rule saved before the whitelist began sends nothing either.
   */
  async #whitelisted(tx: DbConn, walletId: string, values: store.RuleValues): Promise<void> {
    if (values.isActive) await this.withdrawals.checkWhitelistOf(walletId, values.destination.address, 'destination.address', tx, true);
  }

  async #owner(auth: AuthContext, walletId: string, addressId: string | null): Promise<WalletRow> {
    if (addressId === null) return this.deps.wallets.require(auth, walletId);
    const { wallet, address } = await this.deps.addresses.require(auth, walletId, addressId);
    if (address.type !== 'INTERNAL') throw new NotFoundError('Address');
    return wallet;
  }
}

/**
 * What of a swept deposit reached the master: a native sweep moves the balance less its own
 * gas, so the deposits it carried share what it delivered in proportion to their amounts
 * (rounded down: the shares never add up to more than arrived); a token sweep delivers at
 * least the deposits. Never more than the deposit itself.
 */
function sweptShare(d: store.DepositRow): bigint {
  const amount = BigInt(d.amount);
  if (d.swept_total === null || d.sweep_deposits === null) return amount;
  const total = BigInt(d.swept_total);
  const carried = BigInt(d.sweep_deposits);
  if (carried <= 0n) return amount;
  const share = (total * amount) / carried;
  return share < amount ? share : amount;
}

function present(r: StoredRule): RuleView {
  return {
    id: r.id,
    name: r.name,
    isActive: r.is_active,
    order: r.order,
    slippageTolerance: r.slippage_tolerance,
    source: {
      assets: r.source.assets,
      blockchain: r.source.blockchain,
      minAmount: r.source.minAmount,
      maxAmount: r.source.maxAmount ?? null,
    },
    destination: r.destination,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
  };
}

function definedOf<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
