/**
 * The worker's task list: one entry per job of the catalogue (catalogue.ts), each a thin
 * shell over a module service (so the logic stays testable without the queue) that runs
 * on the payload after the catalogue's schema checked it.
 */
import type { TaskList } from 'graphile-worker';
import type { Services } from '../services.js';
import { REVIVED, SCHEDULES, task, type JobName, type JobPayload } from './catalogue.js';
import { reviveExhausted } from './store.js';

/**
 * Scheduled work (catalogue.ts, SCHEDULES), as graphile-worker crontab lines: each time slot
 * runs once across all workers (graphile-worker records the last run of each line in the
 * database).
 */
export const CRONTAB: { task: JobName; line: string }[] = Object.entries(SCHEDULES).map(([name, schedule]) => ({
  task: name as JobName,
  line: `${schedule} ${name} ?max=1`,
}));

/** What each job does, on its checked payload: one entry per job of the catalogue (the compiler says which is missing). */
type Runs = { [N in JobName]: (payload: JobPayload<N>) => Promise<void> };

export function taskList(services: Services): TaskList {
  const runs: Runs = {
    settlement_run: async ({ runId }) => {
      await services.settlements.run(runId);
    },
    // Never return what a service returns: graphile-worker reads a returned array as batch results.
    settlements_tick: async () => {
      await services.settlements.tick();
    },
    deliver_webhook: async (p) => {
      // One delivery (retries, the sweep) or a batch (every delivery one transaction wrote).
      if ('batch' in p) await services.webhooks.deliverBatch(p.batch);
      else await services.webhooks.deliver(p.deliveryId);
    },
    sweep_address: async ({ addressId, assetId }) => {
      await services.sweeps.sweepAddress(addressId, assetId);
    },
    webhooks_sweep: async () => {
      await services.webhooks.sweep();
    },
    auto_settle: async ({ id }) => {
      await services.autoSettlements.executor.run(id);
    },
    auto_settle_resume: async () => {
      await services.autoSettlements.executor.resumeStalled();
    },
    jobs_revive: async () => {
      await reviveExhausted(services.db, REVIVED);
    },
    swap_settle: async ({ id }) => {
      await services.swapApi.flow.finish(id);
    },
    staking_settle: async ({ id, depth }) => {
      await services.staking.finish(id, depth);
    },
    outbound_send: async ({ id }) => {
      await services.outbound.send(id);
    },
    idempotency_prune: async () => {
      await services.withdrawals.pruneIdempotencyKeys();
    },
    outbound_track: async ({ id, poll }) => {
      await services.outbound.track(id, poll ?? 0);
    },
    outbound_confirm: async ({ id, poll }) => {
      await services.outbound.confirm(id, poll ?? 0);
    },
    // Queued by the subscribers of deposit.confirmed and sweep.completed (subscriptions.ts).
    sweep_deposits: async ({ depositIds }) => {
      await services.sweeps.sweepConfirmed(depositIds);
    },
    auto_settle_deposits: async ({ depositIds }) => {
      await services.autoSettlements.takeConfirmed(depositIds);
    },
    auto_settle_swept: async ({ depositIds }) => {
      await services.autoSettlements.takeSwept(depositIds);
    },
    settle_deposits: async ({ depositIds }) => {
      await services.settlements.instantConfirmed(depositIds);
    },
    settle_swept: async ({ depositIds }) => {
      await services.settlements.instantSwept(depositIds);
    },
    approval_expire: async ({ id }) => {
      await services.policies.approvals.expire(id);
    },
    approvals_expire_due: async () => {
      await services.policies.approvals.expireDue();
    },
    // Queued by the subscribers of deposit.recorded and deposit.confirmed for checkout sessions' addresses.
    checkout_payments: async ({ depositIds, seenAt }) => {
      await services.checkouts.takePayments(depositIds, new Date(seenAt));
    },
    checkouts_tick: async () => {
      await services.checkouts.tick();
    },
    // Queued by the indexer's range when a deposit's sender could not be screened (aml/service.ts).
    aml_rescreen_deposits: async ({ depositIds }) => {
      await services.aml.rescreenDeposits(depositIds);
    },
  };
  // Each run behind its payload check (catalogue.ts, task).
  return Object.fromEntries(Object.entries(runs).map(([name, run]) => [name, task(name as JobName, run as (p: unknown) => Promise<void>)]));
}
