/**
 * Which withdrawals of one request share a transaction (docs/solana.md, "Batch withdrawals
 * in one transaction"): the family says how many of a sender's leading transfers fit in one
 * (the batching capability's maxTransfers: SPL transfers of one mint packed on Solana; one
 * transfer per transaction on a family without it). Items
 * are grouped per asset, in order; the groups come in the order of their first item, so a
 * family of one transfer per transaction keeps the request's order (and its nonces).
 *
 * Asked before the creating transaction (the family may read the chain: which recipients
 * need an account), never under the sender's lock. Items with a client's gasLimit stay
 * alone: the limit is per transaction.
 */
import type { ChainHandle } from '../catalogue/service.js';
import { intentOf, type GasPlan } from './funds.js';
import type { Item } from './validate.js';

/** Groups of item indexes (of `fresh`), each one transaction; singles when nothing combines. */
export async function transferGroups(
  chain: ChainHandle,
  sender: string,
  items: Item[],
  fresh: number[],
  plan: GasPlan | null,
): Promise<number[][]> {
  const singles = fresh.map((i) => [i]);
  if (!plan || fresh.length < 2 || plan.quotes.some((q) => Object.keys(q.fixed).length > 0)) return singles;
  const batching = chain.adapter.capabilities.batching;
  if (!batching) return singles;
  const intents = new Map(fresh.map((i) => [i, intentOf(sender, items[i]!, plan.payer)]));
  const byAsset = new Map<string, number[]>();
  for (const i of fresh) {
    const key = items[i]!.asset.asset.row.id;
    byAsset.set(key, [...(byAsset.get(key) ?? []), i]);
  }
  const groups: number[][] = [];
  try {
    for (let rest of byAsset.values()) {
      while (rest.length > 0) {
        const fit = rest.length === 1 ? 1 : await batching.maxTransfers(rest.map((i) => intents.get(i)!));
        const n = Math.min(rest.length, Math.max(1, fit));
        groups.push(rest.slice(0, n));
        rest = rest.slice(n);
      }
    }
  } catch {
    // The chain could not be read to count: one transaction per item is always right.
    return singles;
  }
  return groups.sort((a, b) => a[0]! - b[0]!);
}
