/**
 * A TRX deposit to a Tron child address is swept to the master. The sweep quoted the child's
 * transfer as moving 0 sun, which the Tron sender refuses ("a TRX transfer must move more
 * than 0 sun"): not a chain refusal, so the sweep job failed and was retried for good, and
 * the TRX stayed at the child (only USDT sweeps were tested).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { balance, sendTrx } from '../../../src/devnet/tron/testkit.js';
import { eventually } from '../../support/fixtures.js';
import { hex, newChild, startSweepWorld, type SweepWorld } from './sweep-world.js';

let w: SweepWorld;
beforeAll(async () => {
  w = await startSweepWorld();
}, 90_000);
afterAll(async () => {
  await w?.stop();
});

describe('a TRX deposit to a child (auto-sweep on)', () => {
  it("is swept to the master: all of it but the transfer's fee", async () => {
    const wallet = w.burning;
    const child = await newChild(w, wallet);
    const indexer = w.h.services.deposits.indexer(w.h.services.catalogue.findChain(wallet.slug, 'testnet')!);
    while ((await indexer.step()) === 'progress');
    const masterBefore = BigInt(await balance(w.s, hex(wallet.address)));
    const sent = await sendTrx(w.s, w.payer, child.address, 50_000_000); // 50 TRX
    const id = await eventually(
      async () => {
        await indexer.step();
        const { rows } = await sql<{ id: string; status: string }>`
          SELECT id, status FROM transactions WHERE type = 'DEPOSIT' AND hash = ${sent.txid as string}`.execute(w.h.database.db);
        return rows[0];
      },
      (r) => r?.status === 'SUCCESS',
      90_000,
    );
    const get = async () => (await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id!.id}`, { key: wallet.apiKey })).body.data;
    const swept = await eventually(get, (t) => t.assetSwept === true, 90_000);
    expect(swept.assetSweptRecipientAddress).toBe(wallet.address);
    // All of it moved but the transfer's fee (bandwidth, when the child's free allowance is spent).
    const gained = BigInt(await balance(w.s, hex(wallet.address))) - masterBefore;
    const left = BigInt(await balance(w.s, hex(child.address)));
    expect(gained).toBeGreaterThan(49_000_000n);
    expect(gained + left).toBeLessThanOrEqual(50_000_000n);
    expect(left).toBeLessThan(1_000_000n);
  }, 200_000);
});
