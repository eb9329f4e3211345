/**
 * The worker's task list. Each task is a thin shell over a module service, so the logic
 * stays testable without the queue.
 */
import type { TaskList } from 'graphile-worker';
import type { Services } from '../services.js';

/**
 * Scheduled work, as graphile-worker crontab lines: each time slot runs once across all
 * workers (graphile-worker records the last run of each line in the database).
 */
export const CRONTAB: { task: string; line: string }[] = [
  // Scheduled settlements: a run for each period that has closed (UTC), once per beneficiary and period.
  { task: 'settlements_tick', line: '* * * * * settlements_tick ?max=1' },
  // Idempotency-Keys older than 24 hours are forgotten (hourly; a missed hour is not replayed).
  { task: 'idempotency_prune', line: '17 * * * * idempotency_prune ?max=1' },
  // Auto-settlements whose job was lost (ran out of attempts while an RPC was down) are queued again.
  { task: 'auto_settle_resume', line: '*/5 * * * * auto_settle_resume ?max=1' },
];

export function taskList(services: Services): TaskList {
  return {
    settlement_run: async (payload) => {
      const { runId } = payload as { runId?: unknown };
      if (typeof runId !== 'string') return;
      await services.settlements.run(runId);
    },
    settlements_tick: async () => {
      await services.settlements.tick();
    },
    deliver_webhook: async (payload) => {
      // One delivery (retries, the sweep) or a batch (every delivery one transaction wrote).
      const { deliveryId, batch } = (payload ?? {}) as { deliveryId?: unknown; batch?: unknown };
      if (typeof batch === 'string') await services.webhooks.deliverBatch(batch);
      else if (typeof deliveryId === 'string') await services.webhooks.deliver(deliveryId);
      // anything else is a malformed job: nothing to retry
    },
    sweep_address: async (payload) => {
      const { addressId, assetId } = payload as { addressId?: unknown; assetId?: unknown };
      if (typeof addressId !== 'string' || typeof assetId !== 'string') return;
      await services.sweeps.sweepAddress(addressId, assetId);
    },
    webhooks_sweep: async () => {
      await services.webhooks.sweep();
    },
    auto_settle: async (payload) => {
      const { id } = payload as { id?: unknown };
      if (typeof id !== 'string') return;
      await services.autoSettlements.executor.run(id);
    },
    auto_settle_resume: async () => {
      await services.autoSettlements.executor.resumeStalled();
    },
    outbound_send: async (payload) => {
      const { id } = payload as { id?: unknown };
      if (typeof id !== 'string') return;
      await services.outbound.send(id);
    },
    idempotency_prune: async () => {
      await services.withdrawals.pruneIdempotencyKeys();
    },
    outbound_track: async (payload) => {
      const { id, poll } = payload as { id?: unknown; poll?: unknown };
      if (typeof id !== 'string') return;
      await services.outbound.track(id, typeof poll === 'number' && Number.isInteger(poll) && poll >= 0 ? poll : 0);
    },
    outbound_confirm: async (payload) => {
      const { id, poll } = payload as { id?: unknown; poll?: unknown };
      if (typeof id !== 'string') return;
      await services.outbound.confirm(id, typeof poll === 'number' && Number.isInteger(poll) && poll >= 0 ? poll : 0);
    },
  };
}
