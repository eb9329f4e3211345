/**
 * Pure rule logic: which rule takes a deposit, and whether its amount is inside the rule's
 * bounds. Kept free of I/O so `handles()` (read in a hook's transaction) and the executor
 * decide the same way, and so it is unit-tested without a database.
 */
import { parseAmount } from '../../lib/money.js';
import type { Order } from '../swaps/types.js';

// The route orders belong to swaps (they choose a route); rules store one.
export { ORDERS, type Order } from '../swaps/types.js';

export interface RuleSource {
  assets: string[];
  blockchain: string;
  minAmount: string;
  /** null: no upper bound. */
  maxAmount: string | null;
}

export interface RuleDestination {
  asset: string;
  address: string;
  blockchain: string;
}

export interface StoredRule {
  id: string;
  wallet_id: string;
  address_id: string | null;
  name: string;
  is_active: boolean;
  order: Order;
  slippage_tolerance: string;
  source: RuleSource;
  destination: RuleDestination;
  created_at: Date;
  updated_at: Date;
}

/** What a deposit brings to rule matching. */
export interface DepositFacts {
  /** null: the deposit landed on the master address. */
  addressId: string | null;
  chainSlug: string;
  assetSymbol: string;
  decimals: number;
  amount: bigint;
}

export interface Switches {
  /** The wallet's master switch (configurations.autoSettlement.isActive). */
  wallet: boolean;
  /** The address configuration's switch (its own rules only); true when it has none stored. */
  address: boolean;
}

/**
 * The rule that takes the deposit, or null. Address rules come before wallet rules: an
 * address with an active rule for the asset is settled by it, whatever the wallet's rules
 * say. Within a level the oldest matching rule wins (a stable, explainable choice). A rule
 * whose bounds exclude the amount does not take the deposit, and neither does a rule of the
 * other level: the client bounded that asset on purpose, so the funds are left alone.
 */
export function pickRule(rules: StoredRule[], facts: DepositFacts, switches: Switches): StoredRule | null {
  if (!switches.wallet) return null;
  const applicable = (r: StoredRule) =>
    r.is_active && r.source.blockchain === facts.chainSlug && r.source.assets.some((a) => sameSymbol(a, facts.assetSymbol));
  const byAge = (a: StoredRule, b: StoredRule) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id);
  const own = facts.addressId && switches.address ? rules.filter((r) => r.address_id === facts.addressId && applicable(r)).sort(byAge) : [];
  const chosen = own[0] ?? rules.filter((r) => r.address_id === null && applicable(r)).sort(byAge)[0];
  if (!chosen) return null;
  return withinBounds(chosen.source, facts.amount, facts.decimals) ? chosen : null;
}

/** minAmount <= amount <= maxAmount, in the deposit asset's base units. */
export function withinBounds(source: Pick<RuleSource, 'minAmount' | 'maxAmount'>, amount: bigint, decimals: number): boolean {
  const min = boundUnits(source.minAmount, decimals);
  if (min === null || amount < min) return false;
  if (source.maxAmount === null) return true;
  const max = boundUnits(source.maxAmount, decimals);
  return max !== null && amount <= max;
}

/** null when the bound has more decimals than this asset (validation makes that impossible). */
function boundUnits(text: string, decimals: number): bigint | null {
  try {
    return parseAmount(text, decimals);
  } catch {
    return null;
  }
}

/**
 * Whether two copies of a rule settle a deposit alike: the same rule with the same route order,
 * slippage, bounds and destination (its name and switch aside: a rule that no longer takes a
 * deposit is not picked at all).
 */
export function sameTerms(a: StoredRule, b: StoredRule): boolean {
  const terms = (r: StoredRule) =>
    JSON.stringify([
      r.id,
      r.order,
      r.slippage_tolerance,
      [...r.source.assets].map((x) => x.toUpperCase()).sort(),
      r.source.blockchain,
      r.source.minAmount,
      r.source.maxAmount ?? null,
      r.destination.asset.toUpperCase(),
      r.destination.address,
      r.destination.blockchain,
    ]);
  return terms(a) === terms(b);
}

export function sameSymbol(a: string, b: string): boolean {
  return a.toUpperCase() === b.toUpperCase();
}
