/**
 * The world of the webhook fairness tests: one service (worker on, a 30 s attempt timeout),
 * a noisy business (the harness's devnet-eth wallet) whose receiver hangs, and a quiet one
 * (a business and wallet of its own) whose receiver answers. `emit` writes events in one
 * database transaction: one batch job.
 */
import { afterAll, beforeAll, expect } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';

export interface TwoBusinesses {
  h: Harness;
  hanging: Receiver;
  quick: Receiver;
  noisy: { id: string; apiKey: string };
  quiet: { id: string; apiKey: string };
  /** `n` webhook.test events of the wallet in one transaction (one batch). */
  emit(walletId: string, n: number, tag: string): Promise<void>;
}

/** Registers the world's set-up and tear-down; the returned function gives it inside tests. */
export function useTwoBusinesses(): () => TwoBusinesses {
  let world: TwoBusinesses | undefined;
  beforeAll(async () => {
    const [h, hanging, quick] = await Promise.all([
      startHarness({ worker: true, sender: { timeoutMs: 30_000 } }),
      startReceiver(),
      startReceiver(),
    ]);
    const noisy = h.wallets['devnet-eth']!;
    const other = await h.services.businesses.create('Quiet Business');
    const created = await h.api('POST', '/v1/wallets', {
      key: other.apiKey,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'quiet' },
    });
    expect(created.status).toBe(200);
    const quiet = { id: created.body.data.id as string, apiKey: (created.body.apiKey ?? created.body.data.apiKey) as string };
    for (const [w, url] of [
      [noisy, hanging.url],
      [quiet, quick.url],
    ] as const) {
      expect((await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: url } })).status).toBe(200);
    }
    hanging.fallback = { kind: 'hang' };
    const emit = (walletId: string, n: number, tag: string) =>
      h.services.db.transaction().execute(async (tx) => {
        for (let i = 0; i < n; i++) {
          await h.services.webhooks.emit(tx, {
            walletId,
            transactionId: null,
            name: 'webhook.test',
            reference: `${tag}-${i}`,
            data: { i },
          });
        }
      });
    world = { h, hanging, quick, noisy: { id: noisy.id, apiKey: noisy.apiKey }, quiet, emit };
  }, 120_000);
  afterAll(async () => {
    await Promise.all([world?.hanging.close(), world?.quick.close()]);
    await world?.h.stop();
  });
  return () => world!;
}
