/**
 * A batch near the share left by another business: a busy business (40 attempts hanging,
 * under its share of PER_BUSINESS_IN_FLIGHT) leaves every claim of the process room for 8
 * (claims still awaited may all be its). cfb0178 made a batch whose claim would be that small
 * wait until all its own attempts ended: a quiet business with one hanging receiver call in
 * its batch then had the rest of its events wait for that call's timeout, though their
 * ending could not make the room any larger (another business's attempts keep it small).
 */
import { expect, it } from 'vitest';
import { BATCH_WINDOW } from '../../src/modules/webhooks/delivery.js';
import { useTwoBusinesses } from './two-businesses.js';

const world = useTwoBusinesses();

it(
  "a batch is not held behind its own hanging attempt when another business's load keeps the room small",
  { timeout: 60_000 },
  async () => {
    const { hanging, quick, noisy, quiet, emit } = world();
    // The noisy business: a full window, then 8 more, all hanging (40, under its share of 48).
    for (const n of [BATCH_WINDOW, 8]) {
      await emit(noisy.id, n, `n-${n}`);
      await hanging.waitForRequests(hanging.requests.length + n, 20_000);
    }
    // The quiet business: 20 events in one batch, the first one's receiver call hangs.
    quick.script({ kind: 'hang' });
    const started = Date.now();
    await emit(quiet.id, 20, 'q');
    await quick.waitForRequests(20, 40_000);
    const waited = Date.now() - started;
    expect(waited, `the quiet business's events waited ${waited} ms`).toBeLessThan(5_000);
  },
);
