/**
 * Auto-settlement moves on Solana, end to end through HTTP, the worker and the real indexer:
 * a USDC deposit to a child with a move rule is sent from the child to the rule's (base58)
 * destination with the master as fee payer (no top-up: the child never holds SOL; the master
 * pays the fee and the destination's new token account); a rule that would swap is refused
 * with a clear error (swaps are EVM-only), and an EVM-style destination is a 400.
 */
import { sql } from 'kysely';
import { ed25519 } from '@noble/curves/ed25519';
import { base58 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../../support/fixtures.js';
import {
  OPEN,
  TOKEN_ACCOUNT_RENT,
  feeOf,
  lamports,
  lamportsOf,
  newChild,
  newWallet,
  sendUsdc,
  startSweepWorld,
  tokenAccountOf,
  usdcOf,
  type SweepWorld,
} from './sweep-world.js';

let w: SweepWorld;

beforeAll(async () => {
  w = await startSweepWorld();
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const newOwner = () => base58.encode(ed25519.getPublicKey(ed25519.utils.randomPrivateKey()));

describe('auto-settlement on Solana', () => {
  it("moves a child's USDC deposit to the rule's destination, the master paying the fee and the new token account", async () => {
    const wallet = await newWallet(w, OPEN);
    const api = (method: string, path: string, body?: unknown) =>
      w.h.api(method, `/v1/wallets/${wallet.id}${path}`, { key: wallet.apiKey, ...(body === undefined ? {} : { body }) });
    const child = await newChild(w, wallet, { disableAutoSweep: true });
    expect((await api('PATCH', '/auto-settlements', { isActive: true })).status).toBe(200);
    const dest = newOwner();
    const rule = await api('POST', `/addresses/${child.id}/auto-settlements/rules`, {
      name: 'to treasury',
      order: 'RECOMMENDED',
      slippageTolerance: '1',
      source: { assets: ['USDC'], blockchain: OPEN, minAmount: '0', maxAmount: null },
      destination: { asset: 'USDC', address: dest, blockchain: OPEN },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    expect(JSON.stringify(rule.body.data)).toContain(dest);
    // A swap is EVM-only: refused with its reason, nothing stored.
    const swap = await api('POST', `/addresses/${child.id}/auto-settlements/rules`, {
      name: 'swap',
      source: { assets: ['USDT'], blockchain: OPEN },
      destination: { asset: 'USDC', address: dest, blockchain: OPEN },
    });
    expect(swap.status, JSON.stringify(swap.body)).toBe(422);
    expect(swap.body.error).toBe('SWAP_NOT_AVAILABLE');
    const evm = await api('POST', `/addresses/${child.id}/auto-settlements/rules`, {
      name: 'evm',
      source: { assets: ['USDC'], blockchain: OPEN },
      destination: { asset: 'USDC', address: '0x52908400098527886E0F7030069857D2E4169EE7', blockchain: OPEN },
    });
    expect(evm.status).toBe(400);

    const masterBefore = await lamportsOf(w, wallet.address);
    const paid = await sendUsdc(w, child.address, 9_876_543n);
    const indexer = w.h.services.deposits.indexer(w.h.services.catalogue.findChain(OPEN, 'testnet')!);
    const settlement = await eventually(
      async () => {
        await indexer.step();
        const { rows } = await sql<{ status: string; stage: string; settle_transaction_id: string | null; error: string | null }>`
          SELECT s.status, s.stage, s.settle_transaction_id, s.error FROM auto_settlements s
            JOIN transactions d ON d.id = s.deposit_id WHERE d.hash = ${paid}`.execute(w.h.database.db);
        return rows;
      },
      (rows) => rows[0] !== undefined && rows[0].status !== 'pending',
      40_000,
    );
    expect(settlement[0], JSON.stringify(settlement)).toMatchObject({ status: 'success', stage: 'done' });
    const t = (await api('GET', `/transactions/${settlement[0]!.settle_transaction_id}`)).body.data;
    expect(t).toMatchObject({
      type: 'AUTO_SETTLEMENT',
      status: 'SUCCESS',
      amount: '9.876543',
      senderAddress: child.address,
      recipientAddress: dest,
    });
    // One transaction from the child, the master its fee payer: no top-up.
    const { rows } = await sql<{ purpose: string; stage: string; from_address: string; fee_payer: string | null; hash: string }>`
      SELECT purpose, stage, from_address, fee_payer, hash FROM outbound_txs WHERE owner_id = (
        SELECT s.id FROM auto_settlements s JOIN transactions d ON d.id = s.deposit_id WHERE d.hash = ${paid})`.execute(w.h.database.db);
    expect(rows.map((r) => [r.purpose, r.stage, r.from_address, r.fee_payer])).toEqual([
      ['autosettle-transfer', 'mined', child.address, wallet.address],
    ]);
    expect(t.hash).toBe(rows[0]!.hash);
    const chainTx = await feeOf(w, t.hash);
    expect(chainTx.signers).toEqual([wallet.address, child.address]);
    expect(await usdcOf(w, dest)).toBe(9_876_543n);
    expect(await usdcOf(w, child.address)).toBe(0n);
    expect(await lamportsOf(w, child.address)).toBe(0n);
    expect(await tokenAccountOf(w, dest)).toBe(TOKEN_ACCOUNT_RENT);
    // The master paid the fee and the destination's token account; the leg's fee shows both (the receipt's gasUsed).
    expect(masterBefore - (await lamportsOf(w, wallet.address))).toBe(chainTx.fee + TOKEN_ACCOUNT_RENT);
    expect(lamports(t.fee)).toBe(chainTx.fee + TOKEN_ACCOUNT_RENT);
  });
});
