/**
 * Every subscriber of the event registry (src/events.ts), in one place: services.ts wires
 * this once the services exist. To follow a flow, find the event here, then the handler.
 *
 * Outbound events run in the pipeline's transaction (settled: exactly once per row). The
 * tables are exhaustive over `Purpose`: `null` says nobody listens.
 *
 * deposit.confirmed and sweep.completed only queue jobs, in the transaction that confirms
 * the deposits (the indexer's) or completes the sweep; src/jobs/tasks.ts runs them:
 *
 *   deposit.recorded  -> checkout_payments     (deposits to a checkout session's address; only those queue it)
 *   deposit.confirmed -> checkout_payments     (the same, confirmed)
 *                     -> sweep_deposits        (auto-sweep: queues sweep_address jobs)
 *                     -> auto_settle_deposits  (auto-settlement of deposits that stay where they landed)
 *                     -> settle_deposits       (INSTANT settlement of deposits made to the master)
 *   sweep.completed   -> auto_settle_swept     (auto-settlement from the master)
 *                     -> settle_swept          (INSTANT settlement of what the sweep brought)
 *
 * approval.decided (policies/approvals.ts, in the transaction that decided the request) is
 * handled at once by withdrawals: the held payout is sent on or cancelled with it.
 *
 * So a bug or a slow chain read in treasury code can neither stall indexing nor roll a
 * range (or a sweep's receipt) back: the job fails and is retried alone. Each job is
 * idempotent: one sweep in flight per address and asset (unique, job key), one
 * auto-settlement per deposit (unique deposit_id), one INSTANT run per deposit (unique
 * beneficiary and period `deposit:<id>`).
 */
import type { Subscribers } from './events.js';
import type { AutoSettlementService } from './modules/autosettlements/service.js';
import type { CheckoutService } from './modules/checkouts/service.js';
import type { ContractService } from './modules/contracts/service.js';
import type { SettlementService } from './modules/settlements/service.js';
import type { StakingService } from './modules/staking/service.js';
import type { SalvageService } from './modules/salvage/service.js';
import type { SwapApi } from './modules/swaps/api.js';
import type { SweepService } from './modules/sweeps/service.js';
import type { WithdrawalService } from './modules/withdrawals/service.js';

export interface Subscribing {
  withdrawals: WithdrawalService;
  contracts: ContractService;
  sweeps: SweepService;
  autoSettlements: AutoSettlementService;
  settlements: SettlementService;
  checkouts: CheckoutService;
  staking: StakingService;
  salvage: SalvageService;
  swapApi: SwapApi;
}

/**
 * An outbound.confirmed subscriber with nothing to do: the purpose is followed to its depth
 * only so that a transaction a reorganisation takes away is sent again, the same signed bytes
 * (outbound/confirm.ts, which logs it). Lost, its nonce would be a hole no later transaction
 * of the sender is mined past, and what it moved would not be moved.
 */
const resentOnly = (): Promise<void> => Promise.resolve();

export function subscriptions({
  withdrawals,
  contracts,
  sweeps,
  autoSettlements,
  settlements,
  staking,
  salvage,
  swapApi,
  checkouts,
}: Subscribing): Subscribers {
  const withdrawal = withdrawals.lifecycle;
  const legs = autoSettlements.executor;
  const recovery = salvage.steps;
  const swap = swapApi.flow;
  return {
    'outbound.signed': {
      withdraw: (tx, { row }) => withdrawal.signed(tx, row),
      'withdraw-cancel': null,
      'sweep-topup': null,
      sweep: null,
      'sweep-lend': null,
      'sweep-give-back': null,
      contract: (tx, { row }) => contracts.writeSigned(tx, row),
      'autosettle-topup': null,
      'autosettle-approve': null,
      'autosettle-swap': (tx, { row }) => legs.signed(tx, row, 'swap'),
      'autosettle-transfer': (tx, { row }) => legs.signed(tx, row, 'transfer'),
      staking: (tx, { row }) => staking.signed(tx, row),
      'salvage-topup': null,
      'salvage-lend': null,
      salvage: (tx, { row }) => recovery.signed(tx, row),
      'salvage-give-back': null,
      'swap-topup': null,
      'swap-approve': null,
      swap: (tx, { row }) => swap.signed(tx, row),
      'nonce-filler': null,
    },
    'outbound.settled': {
      withdraw: (tx, { row }) => withdrawal.settled(tx, row),
      'withdraw-cancel': (tx, { row }) => withdrawal.cancelSettled(tx, row),
      'sweep-topup': (tx, { row }) => sweeps.topupSettled(tx, row),
      sweep: (tx, { row }) => sweeps.transferSettled(tx, row),
      'sweep-lend': (tx, { row }) => sweeps.lendSettled(tx, row),
      'sweep-give-back': (tx, { row }) => sweeps.giveBackSettled(tx, row),
      contract: (tx, { row }) => contracts.writeSettled(tx, row),
      'autosettle-topup': (tx, { row }) => legs.topupSettled(tx, row),
      'autosettle-approve': (tx, { row }) => legs.approveSettled(tx, row),
      'autosettle-swap': (tx, { row }) => legs.swapSettled(tx, row),
      'autosettle-transfer': (tx, { row }) => legs.transferSettled(tx, row),
      staking: (tx, { row }) => staking.settled(tx, row),
      'salvage-topup': (tx, { row }) => recovery.topupSettled(tx, row),
      'salvage-lend': (tx, { row }) => recovery.lendSettled(tx, row),
      salvage: (tx, { row }) => recovery.transferSettled(tx, row),
      'salvage-give-back': (tx, { row }) => recovery.giveBackSettled(tx, row),
      'swap-topup': (tx, { row }) => swap.topupSettled(tx, row),
      'swap-approve': (tx, { row }) => swap.approveSettled(tx, row),
      swap: (tx, { row }) => swap.swapSettled(tx, row),
      'nonce-filler': null,
    },
    // A purpose listed here is followed to the chain's confirmation depth (outbound/confirm.ts).
    'outbound.confirmed': {
      withdraw: (tx, { row, change }) => withdrawal.confirmation(tx, row, change),
      // A reorg can take the cancel away and land the original it replaced (same nonce).
      'withdraw-cancel': (tx, { row, change }) => withdrawal.cancelConfirmation(tx, row, change),
      // Sweep steps: resent only (their handlers ignore a second settlement: sweeps/steps.ts).
      'sweep-topup': resentOnly,
      sweep: resentOnly,
      'sweep-lend': resentOnly,
      'sweep-give-back': resentOnly,
      // A reorged write is sent again and PENDING until it settles anew (contracts/service.ts, writeConfirmed).
      contract: (tx, { row, change }) => contracts.writeConfirmed(tx, row, change),
      'autosettle-topup': (tx, { row, change }) => legs.legConfirmed(tx, row, change),
      'autosettle-approve': (tx, { row, change }) => legs.legConfirmed(tx, row, change),
      'autosettle-swap': (tx, { row, change }) => legs.swapConfirmed(tx, row, change),
      'autosettle-transfer': (tx, { row, change }) => legs.transferConfirmed(tx, row, change),
      staking: (tx, { row, change }) => staking.confirmed(tx, row, change),
      // Recovery steps: resent only (a second settlement finds the recovery moved on: salvage/steps.ts).
      'salvage-topup': resentOnly,
      'salvage-lend': resentOnly,
      salvage: resentOnly,
      'salvage-give-back': resentOnly,
      'swap-topup': (tx, { row, change }) => swap.legConfirmed(tx, row, change),
      'swap-approve': (tx, { row, change }) => swap.legConfirmed(tx, row, change),
      swap: (tx, { row, change }) => swap.swapConfirmed(tx, row, change),
      'nonce-filler': resentOnly,
    },
    // A deposit to a checkout session's address: the session follows it (seen, then confirmed,
    // or failed by a reorg: no longer counted as paid, so the payer is asked again at once).
    'deposit.recorded': [(tx, { depositIds }) => checkouts.queuePayments(tx, depositIds)],
    'deposit.failed': [(tx, { depositIds }) => checkouts.queuePayments(tx, depositIds)],
    'deposit.confirmed': [
      (tx, { depositIds }) => checkouts.queuePayments(tx, depositIds),
      (tx, { depositIds }) => sweeps.queueConfirmed(tx, depositIds),
      (tx, { depositIds }) => autoSettlements.queueConfirmed(tx, depositIds),
      (tx, { depositIds }) => settlements.queueConfirmed(tx, depositIds),
    ],
    'sweep.completed': [
      (tx, { depositIds }) => autoSettlements.queueSwept(tx, depositIds),
      (tx, { depositIds }) => settlements.queueSwept(tx, depositIds),
    ],
    // A payout held for approval goes on (APPROVED) or is cancelled (REJECTED, EXPIRED).
    'approval.decided': [(tx, decided) => withdrawal.approvalDecided(tx, decided)],
  };
}
