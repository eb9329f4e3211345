/**
 * Auto-settlements under transaction policies: the swap leg (SWAP: the input asset, swapped
 * at the sender) and the transfer (AUTO_SETTLEMENT: the output asset to the rule's
 * destination) are candidates the service itself initiates (initiator SYSTEM), decided in the
 * transaction that records the legs, under the velocity windows' locks. Nothing waits for
 * approval here: anything but ALLOW fails the settlement before anything is sent.
 */
import type { DbConn } from '../../db/pool.js';
import type { ModuleDeps } from '../deps.js';
import type { Candidate } from '../policies/service.js';
import { usdValue } from '../rates/service.js';
import * as store from './store.js';

/** The legs as candidates: the SWAP (when the assets differ) first, then the AUTO_SETTLEMENT. */
export function settlementCandidates(
  deps: ModuleDeps,
  s: store.SettlementRow,
  sender: string,
  addressId: string | null,
  amountOut: bigint,
): { swap: Candidate | null; settle: Candidate } {
  const assetIn = deps.catalogue.asset(s.asset_in_id)!.row;
  const assetOut = deps.catalogue.asset(s.asset_out_id)!.row;
  const candidate = (type: 'SWAP' | 'AUTO_SETTLEMENT', asset: typeof assetIn, amount: bigint, to: string): Candidate => {
    const quote = deps.rates?.cached(asset.id) ?? null;
    return {
      type,
      walletId: s.wallet_id,
      addressId,
      asset: { id: asset.id, symbol: asset.symbol, decimals: asset.decimals },
      amount,
      amountUsd: quote ? usdValue(amount, asset.decimals, quote) : null,
      destination: to,
      destinationKind: null,
      initiator: { kind: 'SYSTEM' },
    };
  };
  return {
    swap: assetIn.id !== assetOut.id ? candidate('SWAP', assetIn, BigInt(s.amount_in), sender) : null,
    settle: candidate('AUTO_SETTLEMENT', assetOut, amountOut, s.rule.destination.address),
  };
}

/** Decides the legs in `tx`, under the velocity windows' locks: null when allowed, or the refusal's reason. */
export async function policyRefusal(
  deps: ModuleDeps,
  tx: DbConn,
  businessId: string,
  legs: { swap: Candidate | null; settle: Candidate },
): Promise<string | null> {
  const candidates = legs.swap ? [legs.swap, legs.settle] : [legs.settle];
  const session = await deps.policies.session(tx, businessId, candidates);
  const decisions = session.decide(candidates);
  const k = decisions.findIndex((d) => d.action !== 'ALLOW');
  if (k < 0) {
    session.accept(candidates);
    return null;
  }
  const step = decisions[k]!.steps.find((x) => x.matched)!;
  return `Refused by the policy "${step.name}" (${step.policyId}): ${step.reason}`;
}
