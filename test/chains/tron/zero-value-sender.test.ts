/**
 * A zero-value TRC-20 transfer names any sender it likes: `transferFrom(anyone, child, 0)`
 * needs no allowance (0 <= 0), so anyone can make a `Transfer` log "from" a listed address to
 * one of our child addresses without that address's key (address-poisoning spam, as is a
 * plain `transfer(child, 0)`). It moves nothing and is no deposit: nothing is recorded for it
 * (no transaction, no event, no hold on the address), and the child's real USDT is swept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { sendToken, tokenBalance, tronWeb } from '../../../src/devnet/tron/testkit.js';
import { importList, parseListFile } from '../../../src/modules/aml/service.js';
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

async function depositsOf(txid: string) {
  const { rows } = await sql<{ id: string }>`
    SELECT id FROM transactions WHERE type = 'DEPOSIT' AND hash = ${txid}`.execute(w.h.database.db);
  return rows;
}

describe('a zero-value TRC-20 transfer "from" a listed address', () => {
  it("is no deposit: nothing is recorded, and the child's real USDT is swept", { timeout: 240_000 }, async () => {
    const wallet = w.lending;
    const res = await w.h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const child = res.body.data as { id: string; address: string };
    // Anyone's call: the listed address signed nothing. And a plain transfer of 0.
    const spoofed = await zeroTransferFrom(LISTED.tron, child.address);
    const plain = await sendToken(w.s, w.payer, w.usdt, child.address, 0n);
    expect(plain.result, JSON.stringify(plain)).toBe(true);

    // A real deposit after them, from a clean payer: once it is confirmed the indexer has read
    // the zero-value transfers' blocks, solidified.
    const real = await deposit(w, wallet, child.address, 5_000_000n);
    for (const txid of [spoofed, plain.txid as string]) {
      expect(await depositsOf(txid)).toEqual([]);
      // No event (webhook, event feed) names it either.
      const { rows } = await sql<{ n: string }>`
        SELECT count(*) AS n FROM events WHERE strpos(coalesce(body, '') || coalesce(payload::text, ''), ${txid}) > 0`.execute(
        w.h.database.db,
      );
      expect(Number(rows[0]!.n)).toBe(0);
    }

    // One base unit is a deposit like any other.
    const one = await deposit(w, wallet, child.address, 1n);
    const { rows: oneRow } = await sql<{ amount: string }>`SELECT amount FROM transactions WHERE id = ${one}`.execute(w.h.database.db);
    expect(oneRow[0]!.amount).toBe('1');

    // The sweep (asked by hand: auto-sweep is off here) is not held by anything.
    const sweep = await w.h.api('POST', `/v1/wallets/${wallet.id}/transactions/sweep/assets`, {
      key: wallet.apiKey,
      body: { transactionId: real },
    });
    expect(sweep.status, JSON.stringify(sweep.body)).toBe(200);
    const done = await swept(w, wallet, real);
    expect(done.assetSwept, JSON.stringify(done.assetSweptResponse)).toBe(true);
    expect(await tokenBalance(w.s, w.usdt, child.address)).toBe(0n);
  });
});
