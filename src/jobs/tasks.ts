/**
 * The worker's task list: one entry per job of the catalogue (catalogue.ts), each a thin
 * shell over a module service (so the logic stays testable without the queue) that runs
 * on the payload after the catalogue's schema checked it.
 */
import type { TaskList } from 'graphile-worker';
import type { Services } from '../services.js';
import { task, type JobName } from './catalogue.js';

/**
 * Scheduled work, as graphile-worker crontab lines: each time slot runs once across all
 * workers (graphile-worker records the last run of each line in the database).
 */
export const CRONTAB: { task: JobName; line: string }[] = [
  // Scheduled settlements: a run for each period that has closed (UTC), once per beneficiary and period.
  { task: 'settlements_tick', line: '* * * * * settlements_tick ?max=1' },
  // Idempotency-Keys older than 24 hours are forgotten (hourly; a missed hour is not replayed).
  { task: 'idempotency_prune', line: '17 * * * * idempotency_prune ?max=1' },
  // Auto-settlements whose job was lost (ran out of attempts while an RPC was down) are queued again.
  { task: 'auto_settle_resume', line: '*/5 * * * * auto_settle_resume ?max=1' },
];

export function taskList(services: Services): TaskList {
  const tasks: { [N in JobName]: (payload: unknown) => Promise<void> } = {
    settlement_run: task('settlement_run', async ({ runId }) => {
      await services.settlements.run(runId);
    }),
    // Never return what a service returns: graphile-worker reads a returned array as batch results.
    settlements_tick: task('settlements_tick', async () => {
      await services.settlements.tick();
    }),
    deliver_webhook: task('deliver_webhook', async (p) => {
      // One delivery (retries, the sweep) or a batch (every delivery one transaction wrote).
      if ('batch' in p) await services.webhooks.deliverBatch(p.batch);
      else await services.webhooks.deliver(p.deliveryId);
    }),
    sweep_address: task('sweep_address', async ({ addressId, assetId }) => {
      await services.sweeps.sweepAddress(addressId, assetId);
    }),
    webhooks_sweep: task('webhooks_sweep', async () => {
      await services.webhooks.sweep();
    }),
    auto_settle: task('auto_settle', async ({ id }) => {
      await services.autoSettlements.executor.run(id);
    }),
    auto_settle_resume: task('auto_settle_resume', async () => {
      await services.autoSettlements.executor.resumeStalled();
    }),
    outbound_send: task('outbound_send', async ({ id }) => {
      await services.outbound.send(id);
    }),
    idempotency_prune: task('idempotency_prune', async () => {
      await services.withdrawals.pruneIdempotencyKeys();
    }),
    outbound_track: task('outbound_track', async ({ id, poll }) => {
      await services.outbound.track(id, poll ?? 0);
    }),
    outbound_confirm: task('outbound_confirm', async ({ id, poll }) => {
      await services.outbound.confirm(id, poll ?? 0);
    }),
    // Queued by the subscribers of deposit.confirmed and sweep.completed (subscriptions.ts).
    sweep_deposits: task('sweep_deposits', async ({ depositIds }) => {
      await services.sweeps.sweepConfirmed(depositIds);
    }),
    auto_settle_deposits: task('auto_settle_deposits', async ({ depositIds }) => {
      await services.autoSettlements.takeConfirmed(depositIds);
    }),
    auto_settle_swept: task('auto_settle_swept', async ({ depositIds }) => {
      await services.autoSettlements.takeSwept(depositIds);
    }),
    settle_deposits: task('settle_deposits', async ({ depositIds }) => {
      await services.settlements.instantConfirmed(depositIds);
    }),
    settle_swept: task('settle_swept', async ({ depositIds }) => {
      await services.settlements.instantSwept(depositIds);
    }),
    // Queued by the indexer's range when a deposit's sender could not be screened (aml/service.ts).
    aml_rescreen_deposits: task('aml_rescreen_deposits', async ({ depositIds }) => {
      await services.aml.rescreenDeposits(depositIds);
    }),
  };
  return tasks;
}
