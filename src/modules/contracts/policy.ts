/**
 * Contract writes under transaction policies (CONTRACT_WRITE): a call that moves exactly
 * one catalogued asset of the wallet (a token transfer, an approve, native value) is that
 * amount to its beneficiary; any other call is a candidate with no amount, its destination
 * the contract. Writes cannot wait for approval, so anything but ALLOW refuses them.
 */
import type { DbConn } from '../../db/pool.js';
import type { AuthContext } from '../apikeys/service.js';
import { initiatorOf, type Candidate } from '../policies/service.js';
import { usdValue } from '../rates/service.js';
import type { Actor, ContractServiceDeps, Move } from './types.js';

export async function candidatesOf(
  deps: ContractServiceDeps,
  auth: AuthContext,
  actor: Actor,
  plan: { encoded: { to: string }[]; values: bigint[]; moves: { moves: Move[][] } },
): Promise<Candidate[]> {
  // USD values from quotes read now, outside any transaction (as withdrawals do).
  await deps.rates?.prefetch([
    ...plan.moves.moves.flat().map((m) => m.assetId),
    ...actor.chain.assets.filter((a) => a.is_native).map((a) => a.id),
  ]);
  return plan.encoded.map((e, i) => {
    const moves = plan.moves.moves[i] ?? [];
    const base: Candidate = {
      type: 'CONTRACT_WRITE',
      walletId: actor.wallet.id,
      addressId: actor.addressId,
      asset: null,
      amount: null,
      amountUsd: null,
      destination: e.to,
      destinationKind: null,
      initiator: initiatorOf(auth),
    };
    // Native value is a move of its own (rules.ts movesOf), its beneficiary the contract.
    const one = moves.length === 1 ? moves[0]! : null;
    const handle = one ? deps.catalogue.asset(one.assetId) : undefined;
    if (!one || !handle) return base;
    const quote = deps.rates?.cached(handle.row.id) ?? null;
    return {
      ...base,
      asset: { id: handle.row.id, symbol: handle.row.symbol, decimals: handle.row.decimals },
      amount: one.amount,
      amountUsd: quote ? usdValue(one.amount, handle.row.decimals, quote) : null,
      destination: one.beneficiary,
    };
  });
}

/** Decides the calls in `db` (under the velocity windows' locks when it is the writing transaction). */
export async function requirePolicies(
  deps: ContractServiceDeps,
  db: DbConn,
  actor: Actor,
  candidates: Candidate[],
  lock: boolean,
): Promise<void> {
  await deps.policies.requireAllowed(db, actor.wallet.business_id, candidates, (i) => `calls.${i}`, lock);
}
