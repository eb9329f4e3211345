/**
 * A USDT settlement from a Tron child is signed with the fee limit fixed when it was planned
 * (the master's top-up pays for exactly that). A TRC-20 transfer to an address holding none
 * of the token costs about twice the energy of one to a holder (a storage slot written from
 * zero). A destination that held USDT when the settlement was planned and spent it before
 * the child's transfer was mined must not make the transfer run out of energy (fee burned,
 * settlement failed, the deposit left on the child for good).
 * It used to: the fee limit was the estimate for the destination as it was at planning, plus
 * 20%. The Tron sender now also estimates the transfer to an account holding none of the token
 * and prices the larger (TronSender #energyOf).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { fundedWallet, info, newWallet, sendToken, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import { eventually } from '../../support/fixtures.js';
import { childOf, startTronWorld, walletApi, type TronWorld } from './world.js';

let w: TronWorld;

beforeAll(async () => {
  w = await startTronWorld('tron-settle-fee-limit', { chainId: 990_343 });
}, 60_000);
afterAll(async () => {
  w?.s.control.resume();
  await w?.stop();
});

const usdtOf = (address: string) => tokenBalance(w.s, w.usdt, address);

describe('a child settlement whose destination empties its USDT after planning', () => {
  it('still delivers: the transfer does not run out of energy', async () => {
    const child = await childOf(w);
    expect((await walletApi(w, 'PATCH', '/auto-settlements', { isActive: true })).status).toBe(200);
    // The destination holds USDT when the settlement is planned.
    const dest = await fundedWallet(w.s, 200_000_000, { USDT: 5_000_000n });
    const rule = await walletApi(w, 'POST', `/addresses/${child.id}/auto-settlements/rules`, {
      name: 'to treasury',
      source: { assets: ['USDT'], blockchain: w.slug },
      destination: { asset: 'USDT', address: dest.address, blockchain: w.slug },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);

    const indexer = w.h.services.deposits.indexer(w.h.services.catalogue.findChain(w.slug, 'testnet')!);
    for (let i = 0; i < 1000 && (await indexer.step()) !== 'idle'; i++);
    const payer = await fundedWallet(w.s, 200_000_000, { USDT: 50_000_000n });
    const paid = await sendToken(w.s, payer, w.usdt, child.address, 9_000_000n);
    expect(paid.result, JSON.stringify(paid)).toBe(true);
    await w.s.control.produceBlocks(25);
    // Blocks stop: the settlement is planned and its top-up broadcast, not mined.
    w.s.control.pause();
    const settlementOf = async () => {
      const { rows } = await sql<{
        id: string;
        status: string;
        stage: string;
        error: string | null;
        settle_transaction_id: string | null;
      }>`
        SELECT s.id, s.status, s.stage, s.error, s.settle_transaction_id FROM auto_settlements s
          JOIN transactions d ON d.id = s.deposit_id WHERE d.hash = ${paid.txid}`.execute(w.h.database.db);
      return rows[0];
    };
    const planned = await eventually(
      async () => {
        await indexer.step();
        return settlementOf();
      },
      (s) => s !== undefined && s.stage !== 'queued',
      30_000,
    ).catch(async (err) => {
      const { rows } = await sql`SELECT status, confirmations, block_number FROM transactions WHERE hash = ${paid.txid}`.execute(
        w.h.database.db,
      );
      throw new Error(`${(err as Error).message}; deposit ${JSON.stringify(rows)}`);
    });
    expect(planned!.stage, JSON.stringify(planned)).toBe('topup');
    await eventually(
      async () => {
        const { rows } = await sql<{ stage: string }>`SELECT stage FROM outbound_txs WHERE owner_id = ${planned!.id}`.execute(
          w.h.database.db,
        );
        return rows;
      },
      (rows) => rows.length === 1 && rows[0]!.stage === 'broadcast',
      20_000,
    );
    // Meanwhile the destination spends all its USDT.
    const emptied = await sendToken(w.s, dest, w.usdt, newWallet().address, 5_000_000n);
    expect(emptied.result, JSON.stringify(emptied)).toBe(true);
    await w.s.control.produceBlocks(1);
    expect(await usdtOf(dest.address)).toBe(0n);
    w.s.control.resume();

    const end = await eventually(
      async () => {
        await indexer.step();
        return settlementOf();
      },
      (s) => s !== undefined && s.status !== 'pending',
      60_000,
    );
    const transfer = await sql<{ hash: string | null }>`SELECT hash FROM transactions WHERE id = ${end!.settle_transaction_id}`.execute(
      w.h.database.db,
    );
    const receipt = transfer.rows[0]?.hash ? await info(w.s, transfer.rows[0].hash) : null;
    expect({ status: end!.status, error: end!.error, result: receipt?.receipt?.result ?? null }).toEqual({
      status: 'success',
      error: null,
      result: 'SUCCESS',
    });
    expect(await usdtOf(dest.address)).toBe(9_000_000n);
    expect(await usdtOf(child.address)).toBe(0n);
  }, 150_000);
});
