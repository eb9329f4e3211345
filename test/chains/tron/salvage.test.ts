/**
 * Asset recovery on Tron through HTTP (issue 27, 2): a TRC-20 the catalogue does not list
 * (the stand-in's USDC, not in this chain's assets), sent to a fresh child address, is
 * recovered with the child's fee funded as a sweep's is: activated by the master, energy lent
 * from the master's stake (staked here through the staking API) and taken back. Exact amounts
 * on the node; the SALVAGE Transaction and salvage.success.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { rejectionReason } from '../../../src/chains/errors.js';
import { info, newWallet, post, tokenBalance } from '../../../src/devnet/tron/testkit.js';
import { expireTransferOnceLent } from './expiry.js';
import { childOf, events, hex41, outboundRows, settled, startTronWorld, walletApi, type TronWorld } from './world.js';

let w: TronWorld;

beforeAll(async () => {
  w = await startTronWorld('tron-salvage', { chainId: 990_328, masterSun: 20_000_000_000 });
  // The master stakes for energy through the API: what the recovery lends the child.
  const staked = await walletApi(w, 'POST', '/staking/stake', { amount: '10000', resource: 'ENERGY' });
  expect(staked.status, JSON.stringify(staked.body)).toBe(200);
  expect((await settled(w, staked.body.data.id)).status).toBe('SUCCESS');
}, 90_000);
afterAll(async () => {
  await w?.stop();
});

describe('an unlisted TRC-20 at a fresh child address', () => {
  it('is recovered with energy lent from the master stake and taken back; exactly the amount moves', async () => {
    const usdc = w.s.tokens[1]!;
    expect(w.h.services.catalogue.findChain('tron-salvage', 'testnet')!.assets.map((a) => a.address)).not.toContain(usdc.address);
    const child = await childOf(w);
    await w.s.control.fund(child.address, { tokens: { USDC: 4_321_000n } });
    await w.s.control.produceBlocks(1);
    const to = newWallet().address;
    const blockchainId = w.h.services.catalogue.findChain('tron-salvage', 'testnet')!.row.blockchain_id;
    const body = { senderAddress: child.address, recipientAddress: to, amount: '4.321', blockchainId, tokenAddress: usdc.address };
    const fee = await walletApi(w, 'POST', '/salvage/network-fee', body);
    expect(fee.status, JSON.stringify(fee.body)).toBe(200);
    expect(fee.body.data).toMatchObject({ balance: '0', tokenBalance: '4.321' });

    const res = await walletApi(w, 'POST', '/salvage', body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settled(w, res.body.data.id, 60_000);
    expect(done, JSON.stringify(done)).toMatchObject({ type: 'SALVAGE', status: 'SUCCESS', amount: '4.321', tokenAddress: usdc.address });
    expect(await tokenBalance(w.s, usdc.address, to)).toBe(4_321_000n);
    expect(await tokenBalance(w.s, usdc.address, child.address)).toBe(0n);
    expect((await outboundRows(w, done.id)).map((r) => [r.purpose, r.stage])).toEqual([
      ['salvage-topup', 'mined'], // activation of the child
      ['salvage-lend', 'mined'],
      ['salvage', 'mined'],
      ['salvage-give-back', 'mined'],
    ]);
    await events(w, done.id, 'salvage.success');
    const view = (await walletApi(w, 'GET', '/staking')).body.data;
    // The loan is back: nothing is lent out any more.
    expect(view.positions.find((p: { resource: string }) => p.resource === 'ENERGY').delegated).toBe('0');
  });
});

describe('a recovery with energy lent whose transfer expired unmined and was rebuilt', () => {
  it('ends as the rebuilt transfer did: SUCCESS with its hash and fee, salvage.success, the energy taken back', async () => {
    const usdc = w.s.tokens[1]!;
    const child = await childOf(w);
    await w.s.control.fund(child.address, { tokens: { USDC: 1_234_000n } });
    await w.s.control.produceBlocks(1);
    const to = newWallet().address;
    const blockchainId = w.h.services.catalogue.findChain('tron-salvage', 'testnet')!.row.blockchain_id;
    const body = { senderAddress: child.address, recipientAddress: to, amount: '1.234', blockchainId, tokenAddress: usdc.address };
    let id = '';
    let expired: { hash: string | null } | undefined;
    w.s.control.pause();
    try {
      const res = await walletApi(w, 'POST', '/salvage', body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      expired = await expireTransferOnceLent(w.s, () => outboundRows(w, id), { lend: 'salvage-lend', transfer: 'salvage' });
    } finally {
      w.s.control.resume();
    }

    const done = await settled(w, id, 60_000);
    const rows = await outboundRows(w, id);
    expect(rows.map((r) => [r.purpose, r.stage])).toEqual([
      ['salvage-topup', 'mined'], // activation of the child
      ['salvage-lend', 'mined'],
      ['salvage', 'replaced'], // expired unmined
      ['salvage', 'mined'], // rebuilt
      ['salvage-give-back', 'mined'],
    ]);
    const transfer = rows[3]!;
    expect(rows[2]!.hash).toBe(expired!.hash);
    expect(done, JSON.stringify(done)).toMatchObject({ type: 'SALVAGE', status: 'SUCCESS', amount: '1.234', hash: transfer.hash });
    // The fee and block are the rebuilt transfer's (energy lent, bandwidth free: nothing burnt).
    expect(done.blockNumber).toBe((await info(w.s, transfer.hash!)).blockNumber);
    expect((await info(w.s, transfer.hash!)).fee ?? 0).toBe(0);
    expect(done.fee).toBe('0');
    expect(await tokenBalance(w.s, usdc.address, to)).toBe(1_234_000n);
    expect(await tokenBalance(w.s, usdc.address, child.address)).toBe(0n);
    expect(
      await post(w.s, 'wallet/getdelegatedresourcev2', { fromAddress: hex41(w.wallet.address), toAddress: hex41(child.address) }),
    ).toEqual({});
    const { rows: salvages } = await sql<{ status: string; stage: string; error: string | null; transfer: string }>`
      SELECT s.status, s.stage, s.error, o.hash AS transfer
        FROM salvages s JOIN outbound_txs o ON o.id = s.transfer_outbound_id WHERE s.id = ${id}`.execute(w.h.database.db);
    expect(salvages).toEqual([{ status: 'success', stage: 'done', error: null, transfer: transfer.hash }]);
    const [event] = await events(w, id, 'salvage.success');
    expect(event!.data).toMatchObject({ status: 'SUCCESS', hash: transfer.hash });
    // Stored with the outcome, in the transaction that decided it: none was written (a webhook could still be on its way).
    const { rows: failed } = await sql`SELECT 1 FROM events WHERE transaction_id = ${id} AND name = 'salvage.failed'`.execute(
      w.h.database.db,
    );
    expect(failed).toEqual([]);
  }, 180_000);
});

describe('a balance read of a contract that answers no balance', () => {
  it('fails as unreadable (a 503 whose cause says reverted, what salvage answers NOT_A_TOKEN for); the TRC-20 beside it still reads', async () => {
    const adapter = w.h.services.catalogue.findChain('tron-salvage', 'testnet')!.adapter;
    const usdc = w.s.tokens[1]!.address;
    const owner = newWallet().address;
    const notAToken = newWallet().address; // an account without code: balanceOf answers nothing
    const err = await adapter.getBalances([{ owner, token: notAToken }]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ code: 'CHAIN_UNAVAILABLE' });
    expect(rejectionReason(err)).toBe('reverted');
    expect(await adapter.getBalances([{ owner, token: usdc }])).toEqual([0n]);
  });
});
