/**
 * Ids in a path are UUIDs: any case names the same row. Past the edge they are compared as
 * text and make lock keys, so the edge spells them one way (lower case): a wallet key reaches
 * its own wallet spelt in upper case, and a deactivation sent with the id in upper case waits
 * for the payouts being accepted (which hold the wallet's standing lock under the id as the
 * database spells it) instead of taking a lock of its own name and being answered while a
 * payout is still being accepted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { lockStanding } from '../../src/modules/wallets/store.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
const wallet = () => h.wallets['devnet-eth']!;

beforeAll(async () => {
  h = await startHarness({ specs: DEVNET_CHAINS.filter((c) => c.slug === 'devnet-eth') });
}, 90_000);
afterAll(async () => {
  await h?.stop();
});

describe('a wallet id spelt in upper case in the path', () => {
  it("names the wallet for its own key: the same answer as the database's spelling", async () => {
    const upper = wallet().id.toUpperCase();
    const res = await h.api('GET', `/v1/wallets/${upper}`, { key: wallet().apiKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.id).toBe(wallet().id);
  });

  it('a deactivation through it (a business key) waits for a payout holding the standing under the stored spelling', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    // A payout being accepted: the standing held shared until its COMMIT.
    const payout = h.database.db.transaction().execute(async (tx) => {
      await lockStanding(tx, wallet().id, true);
      locked();
      await held;
    });
    await lockTaken;
    let answered = false;
    const deactivation = h
      .api('PATCH', `/v1/wallets/${wallet().id.toUpperCase()}`, { key: h.businessKey, body: { isActive: false } })
      .then((r) => ((answered = true), r));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(answered, 'answered while a payout held the standing').toBe(false);
    release();
    await payout;
    const res = await deactivation;
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.data.isActive).toBe(false);
    const back = await h.api('PATCH', `/v1/wallets/${wallet().id}`, { key: h.businessKey, body: { isActive: true } });
    expect(back.status, JSON.stringify(back.body)).toBe(200);
  });
});
