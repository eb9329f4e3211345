/**
 * The first write of a settlement (executor.ts, job auto_settle at stage queued): the legs
 * its plan (planner.ts) calls for, as SWAP and AUTO_SETTLEMENT Transactions, the plan kept
 * on the row, and the gas top-up or the first send queued. Kept apart from executor.ts,
 * which follows the legs once they exist, because this is the one step that creates them.
 */
import type { DbConn } from '../../db/pool.js';
import type { Purpose } from '../../events.js';
import { AppError } from '../../lib/errors.js';
import { shortReference, uuidv7 } from '../../lib/ids.js';
import type { ModuleDeps } from '../deps.js';
import type { WalletRow } from '../wallets/service.js';
import type { WithdrawalService } from '../withdrawals/service.js';
import type { Legs } from './legs.js';
import { publicPlan, reserveAtSender, type Planned } from './planner.js';
import { countedOf } from '../policies/service.js';
import { policyRefusal, settlementCandidates } from './policy.js';
import { sameTerms, type StoredRule } from './rules.js';
import * as store from './store.js';

/** The outbound purposes of a settlement's legs (src/subscriptions.ts subscribes to each). */
export const PURPOSE = {
  topup: 'autosettle-topup',
  approve: 'autosettle-approve',
  swap: 'autosettle-swap',
  transfer: 'autosettle-transfer',
} as const satisfies Record<string, Purpose>;

/** The rule that takes a deposit now, and its destination asset's id; null when none does (AutoSettlementService). */
export type TakeNow = (tx: DbConn, depositId: string) => Promise<{ rule: StoredRule; assetOutId: string } | null>;

/** What recordPlanned needs of the executor: its services, its leg outcomes and its send step. */
export interface RecordContext {
  deps: ModuleDeps;
  withdrawals: WithdrawalService;
  legs: Legs;
  send(tx: DbConn, s: store.SettlementRow): Promise<void>;
  takeNow: TakeNow;
}

/** Why the wallet's whitelist refuses the settlement's destination now (`NOT_WHITELISTED: ...`), or null. */
async function whitelistRefusal(withdrawals: WithdrawalService, tx: DbConn, s: store.SettlementRow): Promise<string | null> {
  try {
    await withdrawals.checkWhitelistOf(s.wallet_id, s.rule.destination.address, 'destination.address', tx, true);
    return null;
  } catch (err) {
    if (err instanceof AppError && err.code === 'NOT_WHITELISTED') return `NOT_WHITELISTED: ${err.message}`;
    throw err;
  }
}

/** Writes the planned legs and starts the first send, in the caller's transaction. */
export async function recordPlanned(
  ctx: RecordContext,
  tx: DbConn,
  s: store.SettlementRow,
  wallet: WalletRow,
  sender: string,
  planned: Planned,
): Promise<void> {
  const { deps, withdrawals, legs, send } = ctx;
  const { quote, plan, transferGas, topup } = planned;
  const chain = deps.catalogue.chain(s.chain_id);
  const assetIn = deps.catalogue.asset(s.asset_in_id)!.row;
  const assetOut = deps.catalogue.asset(s.asset_out_id)!.row;
  const rule = s.rule;
  const amountIn = BigInt(s.amount_in);
  const fromChild = s.from_index !== 0;
  const swapping = assetIn.id !== assetOut.id;
  const locked = await store.lockSettlement(tx, s.id);
  if (locked?.status !== 'pending' || locked.stage !== 'queued') return;
  // Nothing is sent yet: the rules as they stand now decide, not the copy taken with the deposit
  // (which may have waited a long while for its sender). No rule takes it any more (the rule
  // deleted or switched off, the wallet switched off, the deposit held by AML screening): the
  // settlement is dropped, the money stays where it is. Another rule, or this one changed: the
  // settlement takes it and is planned again with it. The rules stay locked to the COMMIT.
  const now = await ctx.takeNow(tx, s.deposit_id);
  if (!now) {
    await store.dropQueued(tx, s.id);
    deps.logger.info(
      { settlementId: s.id, depositId: s.deposit_id },
      'auto-settlement dropped before it was planned: no rule takes its deposit now',
    );
    return;
  }
  if (!sameTerms(now.rule, s.rule) || !sameTerms(now.rule, locked.rule)) {
    await store.retake(tx, s.id, now.rule, now.assetOutId);
    await store.enqueueJob(tx, s.id);
    return;
  }
  // The money may also be wanted by a withdrawal from the same address accepted meanwhile.
  const reservation = planned.refusal
    ? { refusal: planned.refusal, fee: 0n }
    : await reserveAtSender(deps, withdrawals, tx, s, sender, planned);
  // A settlement is a payout to the rule's destination: held to the wallet's whitelist as it
  // stands now (a rule saved before the whitelist began, or whose beneficiary was removed since),
  // read under the beneficiaries' lock to this transaction's COMMIT, as a withdrawal reads it.
  const reserved = reservation.refusal ?? (await whitelistRefusal(withdrawals, tx, s));
  const [deposit] = await store.deposits(tx, [s.deposit_id]);
  // Transaction policies, last: what is refused for funds is not counted in their windows.
  // The legs' rows keep what their candidates count (a refused settlement's legs fail, uncounted).
  const candidates = settlementCandidates(
    deps,
    s,
    sender,
    fromChild ? (deposit?.address_id ?? null) : null,
    swapping ? BigInt(plan?.quote ?? '0') : amountIn,
  );
  const refusal = reserved ?? (await policyRefusal(deps, tx, wallet.business_id, candidates));
  const legBase = {
    walletId: s.wallet_id,
    addressId: fromChild ? (deposit?.address_id ?? null) : null,
    chainId: s.chain_id,
    network: chain.row.network,
    sender,
  };
  const metadata = { settlementId: s.id, depositId: s.deposit_id, ruleId: s.rule_id, ruleName: rule.name, order: rule.order };
  let swapId: string | null = null;
  if (swapping) {
    swapId = uuidv7();
    await deps.transactions.createLeg(tx, {
      ...legBase,
      id: swapId,
      assetId: assetIn.id,
      reference: shortReference(),
      type: 'SWAP',
      amount: amountIn,
      currency: assetIn.symbol,
      toAmount: plan ? BigInt(plan.quote) : null,
      toCurrency: assetOut.symbol,
      recipient: sender,
      token: assetIn.address,
      reason: null,
      metadata: { ...metadata, slippageTolerance: rule.slippage_tolerance, swap: plan && publicPlan(plan) },
      counted: countedOf(candidates.swap!),
    });
  }
  const settleId = uuidv7();
  await deps.transactions.createLeg(tx, {
    ...legBase,
    id: settleId,
    assetId: assetOut.id,
    reference: shortReference(),
    type: 'AUTO_SETTLEMENT',
    amount: swapping ? BigInt(plan?.quote ?? '0') : amountIn,
    currency: assetOut.symbol,
    toAmount: null,
    toCurrency: null,
    recipient: rule.destination.address,
    token: assetOut.is_native ? null : assetOut.address,
    reason: null,
    metadata: swapId ? { ...metadata, swapTransactionId: swapId } : metadata,
    // Every leg's fee on the last leg to settle: held from the sender's native coin until the settlement ends.
    reservedFee: reservation.fee,
    counted: countedOf(candidates.settle),
  });
  await store.updateSettlement(tx, s.id, {
    swapTransactionId: swapId ?? undefined,
    settleTransactionId: settleId,
    ...(plan ? { swap: plan as unknown as Record<string, unknown> } : {}),
    // A child signs its legs as its top-up funded them (each leg with its own limit).
    ...(fromChild && quote ? { network: chain.adapter.sender.fundedNetwork(quote), transferGasLimit: transferGas } : {}),
  } as Parameters<typeof store.updateSettlement>[2]);
  const current = (await store.lockSettlement(tx, s.id))!;
  if (refusal) {
    await legs.failAll(tx, current, refusal);
    return;
  }
  if (topup > 0n) {
    await deps.outbound.enqueue(tx, {
      chainId: s.chain_id,
      walletId: s.wallet_id,
      wallet,
      fromIndex: 0,
      intent: { kind: 'native', to: sender, amount: topup },
      purpose: PURPOSE.topup,
      ownerId: s.id,
    });
    // The top-up's own fee, held at the master with its value while its row is in flight
    // (withdrawals/store.ts heldBack): reserveAtSender checked both against the master's spends.
    await store.updateSettlement(tx, s.id, { stage: 'topup', ...(planned.topupFee ? { topupFee: planned.topupFee } : {}) });
  } else await send(tx, current);
}
