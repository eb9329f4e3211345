/**
 * Policies applied inside the database transaction that accepts transactions (withdrawals'
 * group commit, a sign-only request, a contract write, an auto-settlement).
 *
 * `open` reads the business's rules afresh (a rule committed before the transaction began
 * applies to it), then locks the velocity windows the candidates count in (store.lockWindows)
 * and reads what those windows hold: two transactions that could push one window over its
 * limit are decided one after the other, each seeing the other's rows. Candidates decided in
 * the same transaction are tallied in memory (`accept`), so the second of a batch sees the
 * first before either is written.
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

export class PolicySession {
  /** Windows' totals as read, then grown by accepted candidates: by window key. */
  readonly #tallies = new Map<string, Tally>();

  private constructor(
    readonly rules: readonly Rule[],
    private readonly kinds: Map<string, Map<string, boolean>>,
  ) {}

  /** A session without rules: everything is allowed. */
  static readonly NONE = new PolicySession([], new Map());

  static async open(db: DbConn, businessId: string, candidates: readonly Candidate[], opts: { lock: boolean }): Promise<PolicySession> {
    const rules = ordered((await store.listPolicies(db, businessId)).map(store.ruleOf).filter((r) => r.isActive));
    if (rules.length === 0) return PolicySession.NONE;
    const velocity = rules.filter((r) => r.conditions.velocity);
    const windows = new Map<string, { rule: Rule; scopeKey: string }>();
    for (const rule of velocity) {
      for (const c of candidates) {
        if (!countsIn(rule, c)) continue;
        const key = windowKey(rule, c);
        if (key) windows.set(key, { rule, scopeKey: scopeKeyOf(rule, c)! });
      }
    }
    if (opts.lock) await store.lockWindows(db, [...windows.keys()]);
    // Whitelisted, beneficiary or neither: only read when a rule asks.
    const kinds = new Map<string, Map<string, boolean>>();
    if (rules.some((r) => r.conditions.destination && r.conditions.destination !== 'ANY')) {
      for (const walletId of new Set(candidates.map((c) => c.walletId))) kinds.set(walletId, await store.beneficiaryKinds(db, walletId));
    }
    const session = new PolicySession(rules, kinds);
    // One read per velocity rule, for every scope key the candidates need.
    for (const rule of velocity) {
      const keys = [...windows.values()].filter((w) => w.rule === rule).map((w) => w.scopeKey);
      if (keys.length === 0) continue;
      const v = rule.conditions.velocity!;
      const groups = await store.windowGroups(db, {
        businessId,
        scope: v.scope,
        keys,
        types: countedTypes(rule),
        seconds: v.windowSeconds,
      });
      for (const key of keys) session.#tallies.set(`${rule.id}:${v.scope === 'WALLET' ? 'wallet' : 'to'}:${key}`, emptyTally());
      for (const g of groups) {
        const t = session.#tallies.get(`${rule.id}:${v.scope === 'WALLET' ? 'wallet' : 'to'}:${g.key}`);
        if (!t) continue;
        t.count += g.count;
        if (g.assetId) t.byAsset.set(g.assetId, (t.byAsset.get(g.assetId) ?? 0n) + g.sum);
        t.usd += scaled(g.sumUsd);
      }
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

/** The window's scope value: the wallet id, or the destination in lower case. */
function scopeKeyOf(rule: Rule, c: Candidate): string | null {
  const v = rule.conditions.velocity!;
  return v.scope === 'WALLET' ? c.walletId : (c.destination?.toLowerCase() ?? null);
}
