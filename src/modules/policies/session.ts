/**
 * Policies applied inside the database transaction that accepts transactions (withdrawals'
 * group commit, a sign-only request, a contract write, an auto-settlement).
 *
 * `open` reads the business's rules afresh (a rule committed before the transaction began
 * applies to it), locks the velocity windows the candidates count in, and then reads what
 * those windows hold: two transactions that could push one window over its limit are decided
 * one after the other, each seeing the other's rows. Candidates decided in the same
 * transaction are tallied in memory (`accept`), so the second of a batch sees the first
 * before either is written.
 *
 * Two statements when the business has velocity rules, one otherwise (store.openSession
 * reads the rules and takes the locks together): the cached copy of the rules (`hint`) says
 * beforehand whether locks and beneficiaries are needed, and a rule it did not know yet costs
 * its own statements, never a decision made without it. The locks are per scope (a wallet, or
 * a destination in the business), whichever rule counts there, so what is locked does not
 * depend on the rules read in the same statement.
 *
 * Opened without locks, the same code answers the dry run (`POST /v1/policies/evaluate`).
 */
import { addressKey } from '../../chains/address-key.js';
import type { DbConn } from '../../db/pool.js';
import {
  countedTypes,
  countsIn,
  decide,
  ordered,
  scaled,
  fromScaled,
  windowKey,
  type Candidate,
  type Decision,
  type Rule,
  type WindowTotals,
} from './rules.js';
import * as store from './store.js';

interface Tally {
  count: number;
  byAsset: Map<string, bigint>;
  usd: bigint;
}

const emptyTally = (): Tally => ({ count: 0, byAsset: new Map(), usd: 0n });

/** A rule whose decision depends on what the destination is to the wallet (beneficiaries). */
const needsKinds = (r: Rule) => r.conditions.destination !== undefined && r.conditions.destination !== 'ANY';

export class PolicySession {
  /** Windows' totals as read, then grown by accepted candidates: by window key. */
  readonly #tallies = new Map<string, Tally>();

  private constructor(
    readonly rules: readonly Rule[],
    private readonly kinds: Map<string, Map<string, boolean>>,
  ) {}

  /** A session without rules: everything is allowed. */
  static readonly NONE = new PolicySession([], new Map());

  static async open(
    db: DbConn,
    businessId: string,
    candidates: readonly Candidate[],
    opts: { lock: boolean; hint?: readonly Rule[] | undefined },
  ): Promise<PolicySession> {
    const { hint } = opts;
    const wallets = [...new Set(candidates.map((c) => c.walletId))];
    const locks = opts.lock ? lockKeysOf(businessId, candidates) : [];
    const lockFirst = hint === undefined || hint.some((r) => r.conditions.velocity);
    const kindsFirst = hint === undefined || hint.some(needsKinds);
    const first = await store.openSession(db, {
      businessId,
      lockKeys: lockFirst ? locks : [],
      kindsOf: kindsFirst ? wallets : [],
    });
    const rules = ordered(first.rules.filter((r) => r.isActive));
    if (rules.length === 0) return PolicySession.NONE;
    const velocity = rules.filter((r) => r.conditions.velocity);
    // Rules the cached copy did not know yet: their locks and beneficiaries, before deciding.
    if (!lockFirst && velocity.length > 0) await store.lockWindows(db, locks);
    let kinds = first.kinds;
    if (!kindsFirst && rules.some(needsKinds)) {
      kinds = new Map();
      for (const walletId of wallets) kinds.set(walletId, await store.beneficiaryKinds(db, walletId));
    }
    const session = new PolicySession(rules, kinds);
    // Every velocity rule's windows, for every scope key the candidates need: one statement.
    const queries = velocity.map((rule) => {
      const v = rule.conditions.velocity!;
      const keys = new Set<string>();
      for (const c of candidates) {
        if (!countsIn(rule, c) || !windowKey(rule, c)) continue;
        const key = scopeKeyOf(rule, c)!;
        keys.add(key);
        session.#tallies.set(windowKey(rule, c)!, emptyTally());
      }
      return { scope: v.scope, keys: [...keys], types: countedTypes(rule), seconds: v.windowSeconds };
    });
    for (const g of await store.windowGroups(db, businessId, queries)) {
      const rule = velocity[g.query]!;
      const t = session.#tallies.get(`${rule.id}:${rule.conditions.velocity!.scope === 'WALLET' ? 'wallet' : 'to'}:${g.key}`);
      if (!t) continue;
      t.count += g.count;
      if (g.assetId) t.byAsset.set(g.assetId, (t.byAsset.get(g.assetId) ?? 0n) + g.sum);
      t.usd += scaled(g.sumUsd);
    }
    return session;
  }

  /**
   * Decides each candidate in order, as if those before it were accepted (a batch's items
   * share windows). Nothing is tallied until `accept`: a request refused later (funds) leaves
   * the windows as they were.
   */
  decide(candidates: readonly Candidate[]): Decision[] {
    if (this.rules.length === 0) return candidates.map(() => ({ action: 'ALLOW', rule: null, steps: [] }));
    const scratch = new Map<string, Tally>();
    const out: Decision[] = [];
    for (const raw of candidates) {
      const c = this.#withKind(raw);
      out.push(decide(this.rules, c, (rule) => this.#totals(rule, c, scratch)));
      this.#add(c, scratch);
    }
    return out;
  }

  /** The candidates were written: later ones in this transaction count them. */
  accept(candidates: readonly Candidate[]): void {
    if (this.rules.length === 0) return;
    for (const c of candidates) this.#add(this.#withKind(c), this.#tallies);
  }

  #withKind(c: Candidate): Candidate {
    const kinds = this.kinds.get(c.walletId);
    if (!kinds || c.destination === null) return c;
    const w = kinds.get(addressKey(c.destination));
    return { ...c, destinationKind: w === undefined ? 'NON_BENEFICIARY' : w ? 'WHITELISTED' : 'BENEFICIARY_NOT_WHITELISTED' };
  }

  #totals(rule: Rule, c: Candidate, scratch: Map<string, Tally>): WindowTotals {
    const key = windowKey(rule, c);
    const base = key ? this.#tallies.get(key) : undefined;
    const extra = key ? scratch.get(key) : undefined;
    const asset = c.asset?.id;
    const sumOf = (t: Tally | undefined) => (t && asset ? (t.byAsset.get(asset) ?? 0n) : 0n);
    return {
      count: (base?.count ?? 0) + (extra?.count ?? 0),
      sumAsset: sumOf(base) + sumOf(extra),
      sumUsd: fromScaled((base?.usd ?? 0n) + (extra?.usd ?? 0n)),
    };
  }

  #add(c: Candidate, into: Map<string, Tally>): void {
    for (const rule of this.rules) {
      if (!rule.conditions.velocity || !countsIn(rule, c)) continue;
      const key = windowKey(rule, c);
      if (!key) continue;
      let t = into.get(key);
      if (!t) into.set(key, (t = emptyTally()));
      t.count++;
      if (c.asset && c.amount !== null) t.byAsset.set(c.asset.id, (t.byAsset.get(c.asset.id) ?? 0n) + c.amount);
      if (c.amountUsd !== null) t.usd += scaled(c.amountUsd);
    }
  }
}

/** The window's scope value: the wallet id, or the destination by addressKey. */
function scopeKeyOf(rule: Rule, c: Candidate): string | null {
  const v = rule.conditions.velocity!;
  return v.scope === 'WALLET' ? c.walletId : c.destination === null ? null : addressKey(c.destination);
}

/**
 * The window locks a transaction of these candidates takes: each one's wallet and, within
 * the business, its destination, whichever velocity rule counts there (a rule's own windows
 * are finer; a lock per scope serialises at most a little more, and never depends on rules).
 */
function lockKeysOf(businessId: string, candidates: readonly Candidate[]): string[] {
  const keys = new Set<string>();
  for (const c of candidates) {
    keys.add(`wallet:${c.walletId}`);
    if (c.destination !== null) keys.add(`to:${businessId}:${addressKey(c.destination)}`);
  }
  return [...keys];
}
