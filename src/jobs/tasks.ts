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
    webhooks_sweep: async () => {
      await services.webhooks.sweep();
    },
  };
}
