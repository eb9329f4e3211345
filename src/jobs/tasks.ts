/**
 * The worker's task list. Each task is a thin shell over a module service, so the logic
 * stays testable without the queue.
 */
import type { TaskList } from 'graphile-worker';
import type { Services } from '../services.js';

export function taskList(services: Services): TaskList {
  return {
    deliver_webhook: async (payload) => {
      const { deliveryId } = payload as { deliveryId?: unknown };
      if (typeof deliveryId !== 'string') return; // malformed job: nothing to retry
      await services.webhooks.deliver(deliveryId);
    },
    sweep_address: async (payload) => {
      const { addressId, assetId } = payload as { addressId?: unknown; assetId?: unknown };
      if (typeof addressId !== 'string' || typeof assetId !== 'string') return;
      await services.sweeps.sweepAddress(addressId, assetId);
    },
    webhooks_sweep: async () => {
      await services.webhooks.sweep();
    },
    outbound_send: async (payload) => {
      const { id } = payload as { id?: unknown };
      if (typeof id !== 'string') return;
      await services.outbound.send(id);
    },
    outbound_track: async (payload) => {
      const { id, poll } = payload as { id?: unknown; poll?: unknown };
      if (typeof id !== 'string') return;
      await services.outbound.track(id, typeof poll === 'number' && Number.isInteger(poll) && poll >= 0 ? poll : 0);
    },
  };
}
