/**
 * A zero-value TRC-20 transfer names any sender it likes: `transferFrom(anyone, child, 0)`
 * needs no allowance (0 <= 0), so anyone can make a `Transfer` log "from" a listed address to
 * one of our child addresses without that address's key. The deposit it makes moves nothing:
 * it is recorded (FLAGGED, as the screening found), but it must not hold the address's funds,
 * or anyone could freeze the sweep of every child's USDT with one such call each.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { tokenBalance, tronWeb } from '../../../src/devnet/tron/testkit.js';
import { importList, parseListFile } from '../../../src/modules/aml/service.js';
import { eventually } from '../../support/fixtures.js';
import { LISTED, SDN, lookupUntil } from '../../aml/support.js';
import { deposit, startSweepWorld, swept, type SweepWorld } from './sweep-world.js';

let w: SweepWorld;

beforeAll(async () => {
  w = await startSweepWorld();
  await importList(w.h.database.db, w.h.services.changes, 'ofac', await parseListFile(SDN));
  await lookupUntil(w.h, w.lending.apiKey, w.lending.id, LISTED.tron, true);
}, 180_000);

afterAll(async () => {
  await w?.stop();
});

/** `transferFrom(from, to, 0)` on the USDT, signed by the payer (who holds no allowance of `from`), mined. */
async function zeroTransferFrom(from: string, to: string): Promise<string> {
  const tw = tronWeb(w.s);
  const built = await tw.transactionBuilder.triggerSmartContract(
    w.usdt,
    'transferFrom(address,address,uint256)',
    { feeLimit: 100_000_000 },
    [
      { type: 'address', value: from },
      { type: 'address', value: to },
      { type: 'uint256', value: '0' },
    ],
    w.payer.address,
  );
  const sent = await tw.trx.sendRawTransaction(await tw.trx.sign(built.transaction, w.payer.privateKey));
  expect(sent.result, JSON.stringify(sent)).toBe(true);
  return sent.txid as string;
}

describe('a zero-value TRC-20 transfer "from" a listed address', () => {
  it("is recorded but holds nothing: the child's real USDT is swept", { timeout: 240_000 }, async () => {
    const wallet = w.lending;
    const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const child = res.body.data as { id: string; address: string };

    // Anyone's call: the listed address signed nothing.
    const spoofed = await zeroTransferFrom(LISTED.tron, child.address);
    const indexer = w.h.services.deposits.indexer(w.h.services.catalogue.findChain(wallet.slug, 'testnet')!);
    const [zero] = await eventually(
      async () => {
        await indexer.step();
        const { rows } = await sql<{ id: string; status: string; amount: string; sender_address: string }>`
          SELECT id, status, amount, sender_address FROM transactions WHERE type = 'DEPOSIT' AND hash = ${spoofed}`.execute(
          w.h.database.db,
        );
        return rows;
      },
      (r) => r[0]?.status === 'SUCCESS',
      90_000,
    );
    expect(zero).toMatchObject({ amount: '0', sender_address: LISTED.tron });

    // A real deposit from a clean payer, then its sweep (asked by hand: auto-sweep is off here).
    const real = await deposit(w, wallet, child.address, 5_000_000n);
    const sweep = await w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/sweep/assets`, {
      key: wallet.apiKey,
      body: { transactionId: real },
    });
    expect(sweep.status, JSON.stringify(sweep.body)).toBe(200);
    const done = await swept(w, wallet, real);
    expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
    expect(await tokenBalance(w.s, w.usdt, child.address)).toBe(0n);

    // What the screening found is still shown on the zero-value record, without a hold.
    const shown = await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions/${zero!.id}`, { key: wallet.apiKey });
    expect(shown.body.data.amlScreening).toMatchObject({ status: 'FLAGGED', held: false });
  });
});
