/**
 * Transaction policies, pure: what a rule is, what a would-be transaction (a candidate)
 * tells about itself, and which rule decides it. No SQL and no I/O: the window totals a
 * velocity condition needs are read by the caller (store.ts, under locks in service.ts)
 * and handed in.
 *
 * Rules are evaluated in ascending priority (ties: the older first). A rule matches when
 * its scope (wallet, sending address) and every condition it has match; the first that
 * matches decides ALLOW, BLOCK or REQUIRE_APPROVAL. No rule matching: ALLOW.
 */
import { addressKey } from '../../chains/address-key.js';
import { formatAmount } from '../../lib/money.js';
import type { Counted } from '../transactions/types.js';

export const POLICY_TYPES = ['WITHDRAW', 'BATCH_ITEM', 'SIGN_ONLY', 'CONTRACT_WRITE', 'SWAP', 'SALVAGE', 'AUTO_SETTLEMENT'] as const;
export type PolicyType = (typeof POLICY_TYPES)[number];
export const ACTIONS = ['ALLOW', 'BLOCK', 'REQUIRE_APPROVAL'] as const;
export type Action = (typeof ACTIONS)[number];
/** The dashboard's roles (docs/dashboard.md). */
export const ROLES = ['owner', 'admin', 'approver', 'developer', 'viewer'] as const;
export type Role = (typeof ROLES)[number];
/** Roles that may ever approve (and must sign in with a second factor to do so). */
export const APPROVING_ROLES: readonly Role[] = ['owner', 'admin', 'approver'];
/** Only these types can wait for approval: the others answer at once (a signature) or run unattended. */
export const APPROVABLE_TYPES: readonly PolicyType[] = ['WITHDRAW', 'BATCH_ITEM'];
export const DESTINATIONS = ['WHITELISTED', 'BENEFICIARY', 'NON_BENEFICIARY', 'ANY'] as const;
export type DestinationCondition = (typeof DESTINATIONS)[number];
export type DestinationKind = Exclude<DestinationCondition, 'ANY' | 'BENEFICIARY'> | 'BENEFICIARY_NOT_WHITELISTED';

export interface AmountCondition {
  /** Inclusive bounds, decimal strings in the asset's units or in USD. */
  min?: string;
  max?: string;
  currency: 'ASSET' | 'USD';
}

export interface VelocityCondition {
  measure: 'SUM' | 'COUNT';
  scope: 'WALLET' | 'DESTINATION';
  windowSeconds: number;
  /** Matches when the window's total with this transaction exceeds it: a decimal (SUM) or a whole number (COUNT). */
  limit: string;
  /** SUM only: in the transaction's asset (the default), or in USD. */
  currency?: 'ASSET' | 'USD';
}

export interface Conditions {
  types?: PolicyType[];
  /** Asset symbols (upper case), on any chain. */
  assets?: string[];
  amount?: AmountCondition;
  velocity?: VelocityCondition;
  destination?: DestinationCondition;
  initiators?: { apiKeys?: string[]; users?: string[]; system?: boolean };
}

export interface Approvers {
  roles?: Role[];
  users?: string[];
  apiKeys?: string[];
}

export interface ApprovalSpec {
  approvers: Approvers;
  quorum: number;
  ttlSeconds: number;
}

export interface Rule {
  id: string;
  name: string;
  priority: number;
  walletId: string | null;
  addressId: string | null;
  isActive: boolean;
  conditions: Conditions;
  action: Action;
  approval: ApprovalSpec | null;
}

export type Initiator = { kind: 'API_KEY'; id: string } | { kind: 'USER'; id: string } | { kind: 'SYSTEM' };

/** A would-be transaction, as policies see it. */
export interface Candidate {
  type: PolicyType;
  walletId: string;
  /** The sending child address; null: the master address. */
  addressId: string | null;
  asset: { id: string; symbol: string; decimals: number } | null;
  /** Base units of `asset`; null when the transaction moves no amount policies can read (a contract call). */
  amount: bigint | null;
  /** The amount in USD (a decimal string) when a rate exists. */
  amountUsd: string | null;
  destination: string | null;
  destinationKind: DestinationKind | null;
  initiator: Initiator;
}

/**
 * Whether two ids name the same row. UUIDs are case-insensitive: the API takes either case
 * in a URL and PostgreSQL compares them as uuid, so a candidate's ids may be spelt as the
 * request spelt them (a sender's address id from the path) while a rule's come from the
 * database. Compared as text, `…/addresses/<its id in upper case>/withdraw` stepped around a
 * rule scoped to that address.
 */
export function sameId(a: string | null, b: string | null): boolean {
  return a === b || (a !== null && b !== null && a.toLowerCase() === b.toLowerCase());
}

/** What the window of a velocity rule already holds for one candidate's scope. */
export interface WindowTotals {
  count: number;
  /** Base units of the candidate's asset. */
  sumAsset: bigint;
  /** USD, a decimal string. */
  sumUsd: string;
}

export interface Step {
  policyId: string;
  name: string;
  priority: number;
  matched: boolean;
  /** Why it matched, or the first condition that did not. */
  reason: string;
}

export interface Decision {
  action: Action;
  rule: Rule | null;
  /** The rules looked at, in order, up to the one that decided. */
  steps: Step[];
}

// ---- decimals, exactly ---------------------------------------------------------------

/** Every decimal is compared at this many fraction digits (an asset has at most 77). */
const SCALE = 80;
const DEC = /^(0|[1-9]\d*)(?:\.(\d+))?$/;

export function isDecimal(s: string): boolean {
  return DEC.test(s) && (s.split('.')[1]?.length ?? 0) <= SCALE;
}

/** A decimal string as an integer of SCALE fraction digits. */
export function scaled(s: string): bigint {
  const m = DEC.exec(s);
  if (!m) throw new Error(`not a decimal: ${s}`);
  return BigInt(m[1]! + (m[2] ?? '').padEnd(SCALE, '0').slice(0, SCALE));
}

const unitsScaled = (units: bigint, decimals: number) => units * 10n ** BigInt(SCALE - decimals);

export const fromScaled = (v: bigint) => formatAmount(v, SCALE);

// ---- matching --------------------------------------------------------------------------

type Check = { ok: true; why?: string } | { ok: false; why: string };
const yes = (why?: string): Check => (why === undefined ? { ok: true } : { ok: true, why });
const no = (why: string): Check => ({ ok: false, why });

const typeLabel = (t: PolicyType) => t.toLowerCase().replace(/_/g, ' ');

/** Everything but velocity. */
export function staticMatch(rule: Rule, c: Candidate): Check {
  if (!rule.isActive) return no('the rule is switched off');
  if (rule.walletId && !sameId(rule.walletId, c.walletId)) return no('it applies to another wallet');
  if (rule.addressId && !sameId(rule.addressId, c.addressId)) return no('it applies to another sending address');
  const k = rule.conditions;
  if (k.types && !k.types.includes(c.type)) return no(`a ${typeLabel(c.type)} is not among its types (${k.types.join(', ')})`);
  if (k.assets) {
    if (!c.asset) return no('the transaction moves no asset it can name');
    if (!k.assets.includes(c.asset.symbol.toUpperCase())) return no(`${c.asset.symbol} is not among its assets (${k.assets.join(', ')})`);
  }
  if (k.amount) {
    const amount = amountIn(k.amount.currency, c);
    if (amount === null)
      return no(k.amount.currency === 'USD' ? 'no USD rate for the asset' : 'the transaction moves no amount it can read');
    const shown = `${fromScaled(amount)} ${k.amount.currency === 'USD' ? 'USD' : (c.asset?.symbol ?? '')}`.trim();
    if (k.amount.min !== undefined && amount < scaled(k.amount.min)) return no(`${shown} is below its minimum ${k.amount.min}`);
    if (k.amount.max !== undefined && amount > scaled(k.amount.max)) return no(`${shown} is above its maximum ${k.amount.max}`);
  }
  if (k.destination && k.destination !== 'ANY') {
    const kind = c.destinationKind;
    const ok =
      k.destination === 'WHITELISTED'
        ? kind === 'WHITELISTED'
        : k.destination === 'BENEFICIARY'
          ? kind === 'WHITELISTED' || kind === 'BENEFICIARY_NOT_WHITELISTED'
          : kind === 'NON_BENEFICIARY';
    if (!ok) return no(`the destination is ${describeKind(kind)}, not ${k.destination.toLowerCase().replace('_', '-')}`);
  }
  if (k.initiators) {
    const i = c.initiator;
    const listed =
      (i.kind === 'API_KEY' && (k.initiators.apiKeys ?? []).includes(i.id)) ||
      (i.kind === 'USER' && (k.initiators.users ?? []).includes(i.id)) ||
      (i.kind === 'SYSTEM' && k.initiators.system === true);
    if (!listed) return no(`${describeInitiator(i)} is not among its initiators`);
  }
  return yes();
}

function amountIn(currency: 'ASSET' | 'USD', c: Candidate): bigint | null {
  if (currency === 'USD') return c.amountUsd === null ? null : scaled(c.amountUsd);
  return c.amount === null || !c.asset ? null : unitsScaled(c.amount, c.asset.decimals);
}

/** A velocity condition, given the window's totals before this candidate. */
export function velocityMatch(v: VelocityCondition, c: Candidate, totals: WindowTotals): Check {
  const window = describeWindow(v.windowSeconds);
  const per = v.scope === 'WALLET' ? 'this wallet' : 'this destination';
  if (v.measure === 'COUNT') {
    const n = totals.count + 1;
    const limit = Number(v.limit);
    return n > limit
      ? yes(`it would be transaction ${n} of ${per} in ${window}, over the limit of ${limit}`)
      : no(`${n} transactions of ${per} in ${window} stay within ${limit}`);
  }
  let total: bigint;
  let unit: string;
  if (v.currency === 'USD') {
    if (c.amountUsd === null) return no('no USD rate for the asset');
    total = scaled(totals.sumUsd) + scaled(c.amountUsd);
    unit = 'USD';
  } else {
    if (c.amount === null || !c.asset) return no('the transaction moves no amount it can read');
    total = unitsScaled(totals.sumAsset + c.amount, c.asset.decimals);
    unit = c.asset.symbol;
  }
  return total > scaled(v.limit)
    ? yes(`${fromScaled(total)} ${unit} out of ${per} in ${window} would exceed ${v.limit}`)
    : no(`${fromScaled(total)} ${unit} out of ${per} in ${window} stays within ${v.limit}`);
}

/**
 * The first rule that matches decides. `totals(rule)`: the window's totals for a rule with a
 * velocity condition (asked only for rules that match otherwise).
 */
export function decide(rules: readonly Rule[], c: Candidate, totals: (rule: Rule) => WindowTotals): Decision {
  const steps: Step[] = [];
  for (const rule of ordered(rules)) {
    const step = (matched: boolean, reason: string) =>
      steps.push({ policyId: rule.id, name: rule.name, priority: rule.priority, matched, reason });
    const s = staticMatch(rule, c);
    if (!s.ok) {
      step(false, s.why);
      continue;
    }
    let why = 'every condition matches';
    if (rule.conditions.velocity) {
      const v = velocityMatch(rule.conditions.velocity, c, totals(rule));
      if (!v.ok) {
        step(false, v.why);
        continue;
      }
      why = v.why!;
    }
    step(true, why);
    return { action: rule.action, rule, steps };
  }
  return { action: 'ALLOW', rule: null, steps };
}

/**
 * The decision as far as it can be made without the database: rules with a velocity or a
 * destination condition need the accepting transaction (window totals, the wallet's
 * beneficiaries). Null as soon as such a rule might match: only the transaction decides then.
 */
export function earlyDecision(rules: readonly Rule[], c: Candidate): Decision | null {
  const steps: Step[] = [];
  for (const rule of ordered(rules)) {
    const k = rule.conditions;
    const needsTransaction = k.velocity !== undefined || (k.destination !== undefined && k.destination !== 'ANY');
    const plain: Rule = needsTransaction ? { ...rule, conditions: { ...k, destination: 'ANY' } } : rule;
    const s = staticMatch(plain, c);
    if (!s.ok) {
      steps.push({ policyId: rule.id, name: rule.name, priority: rule.priority, matched: false, reason: s.why });
      continue;
    }
    if (needsTransaction) return null;
    steps.push({ policyId: rule.id, name: rule.name, priority: rule.priority, matched: true, reason: 'every condition matches' });
    return { action: rule.action, rule, steps };
  }
  return { action: 'ALLOW', rule: null, steps };
}

export function ordered(rules: readonly Rule[]): Rule[] {
  return [...rules].sort((a, b) => a.priority - b.priority || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The key of a velocity window: rule and scope (the wallet, or the destination by
 * addressKey: two base58 spellings that differ in case are two accounts, two windows).
 * Candidates sharing one are tallied together (session.ts).
 */
export function windowKey(rule: Rule, c: Candidate): string | null {
  const v = rule.conditions.velocity;
  if (!v) return null;
  if (v.scope === 'WALLET') return `${rule.id}:wallet:${c.walletId}`;
  return c.destination ? `${rule.id}:to:${addressKey(c.destination)}` : null;
}

/** The window families (Counted.as, a row's policy_type) a velocity window counts for a rule. */
export function countedTypes(rule: Rule): Counted['as'][] {
  return [...new Set((rule.conditions.types ?? POLICY_TYPES).map(familyOf))];
}

/**
 * Whether a candidate counts in a rule's window: of the rule's wallet (when it has one; a
 * window counts the whole wallet, whatever address of it sends) and of a type the window
 * counts, whatever the rule's other conditions.
 */
export function countsIn(rule: Rule, c: Candidate): boolean {
  if (rule.walletId && !sameId(rule.walletId, c.walletId)) return false;
  return countedTypes(rule).includes(familyOf(c.type));
}

/**
 * What a decided candidate adds to the windows, kept on the row it becomes (the creating
 * module writes it): the candidate itself, not the row's public columns, which show a
 * contract write without its transfer and a leg without its USD value.
 */
export function countedOf(c: Candidate): Counted {
  return {
    as: familyOf(c.type),
    assetId: c.asset?.id ?? null,
    amount: c.asset ? c.amount : null,
    amountUsd: c.amountUsd,
    destination: c.destination,
  };
}

/** A batch's items are withdrawals: one window family. */
function familyOf(t: PolicyType): Counted['as'] {
  return t === 'BATCH_ITEM' ? 'WITHDRAW' : t;
}

function describeKind(kind: DestinationKind | null): string {
  if (kind === null) return 'no address';
  if (kind === 'WHITELISTED') return 'a whitelisted beneficiary';
  if (kind === 'BENEFICIARY_NOT_WHITELISTED') return 'a beneficiary that is not whitelisted';
  return 'not a beneficiary';
}

export function describeInitiator(i: Initiator): string {
  return i.kind === 'API_KEY' ? `API key ${i.id}` : i.kind === 'USER' ? `dashboard user ${i.id}` : 'the service itself';
}

function describeWindow(seconds: number): string {
  if (seconds % 86_400 === 0) return seconds === 86_400 ? '24 hours' : `${seconds / 86_400} days`;
  if (seconds % 3_600 === 0) return seconds === 3_600 ? '1 hour' : `${seconds / 3_600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
