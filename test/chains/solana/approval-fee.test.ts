/**
 * A child's Solana payout held for approval, whose fee its master pays as fee payer (the
 * child holds none of it: reserved_fee 0). Both failed before (found by an attack review):
 * - once approved, it was signed with no fee ceiling at all (the ceiling was the child's
 *   reservation, 0): a recipient that closed its token account while the payout waited made
 *   the master pay the new account's rent (2,039,280 lamports) nobody had been quoted. It is
 *   now signed within the fee quoted at acceptance: FAILED with the reason, nothing paid.
 * - while it waited, the master held nothing for its fee: a payout of the master's whole SOL
 *   accepted meanwhile left the approved one with no fee payer able to pay. The master's
 *   payouts now hold the quoted fee of its children's payouts waiting for approval.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { getCloseAccountInstruction, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { ata, send } from '../../../src/devnet/solana/test-support.js';
import { mintKey } from '../../policies/world.js';
import { eventually } from '../../support/fixtures.js';
import {
  childOf,
  lamports,
  outsider,
  settled,
  solOf,
  startSolanaWorld,
  txOf,
  usdcOf,
  walletApi,
  type SolanaWorld,
} from './withdrawals-world.js';

let w: SolanaWorld;
let approver: { id: string; apiKey: string };
beforeAll(async () => {
  w = await startSolanaWorld('solana-approval-fee');
  const manager = await mintKey(w.h, 'manager', ['MANAGE_POLICIES']);
  approver = await mintKey(w.h, 'approver', ['APPROVE']);
  const p = await w.h.api('POST', '/v1/policies', {
    key: manager.apiKey,
    body: {
      name: 'USDC needs approval',
      priority: 10,
      walletId: w.wallet.id,
      conditions: { types: ['WITHDRAW'], assets: ['USDC'], amount: { min: '1', currency: 'ASSET' } },
      action: 'REQUIRE_APPROVAL',
      approval: { approvers: { apiKeys: [approver.id] }, quorum: 1, ttlSeconds: 3600 },
    },
  });
  expect(p.status, JSON.stringify(p.body)).toBe(200);
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

/** Lamports as the API's SOL decimal string. */
const sol = (v: bigint) => `${v / 1_000_000_000n}.${(v % 1_000_000_000n).toString().padStart(9, '0')}`;

/** A child holding 5 USDC, a recipient holding a USDC account, and the child's payout of 2 USDC to it held for approval. */
async function heldChildPayout() {
  const child = await childOf(w);
  await w.sol.control.mintTo(w.usdc, child.address, 5_000_000n);
  await expect.poll(() => usdcOf(w, child.address), { timeout: 10_000 }).toBe(5_000_000n);
  const recipient = await generateKeyPairSigner();
  await w.sol.control.fund(recipient.address, 100_000_000n);
  await w.sol.control.mintTo(w.usdc, recipient.address, 1n);
  await expect.poll(() => usdcOf(w, recipient.address), { timeout: 10_000 }).toBe(1n);
  const body = { assetId: w.usdcId, address: recipient.address, amount: '2' };
  const estimate = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw/network-fee`, body);
  expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
  const quoted = lamports(estimate.body.data.networkFee);
  // The recipient's account exists: signatures only, no rent.
  expect(quoted).toBeLessThan(2_039_280n);
  const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.data.status).toBe('PENDING_APPROVAL');
  const id = res.body.data.id as string;
  // The child pays no fee: its master does.
  const { rows } = await sql<{ r: string | null }>`SELECT reserved_fee AS r FROM transactions WHERE id = ${id}`.execute(w.h.database.db);
  expect(BigInt(rows[0]!.r ?? 0)).toBe(0n);
  return { child, recipient, id, quoted };
}

async function approve(id: string) {
  const voted = await w.h.api('POST', `/v1/approvals/${id}/approve`, { key: approver.apiKey, body: {} });
  expect(voted.status, JSON.stringify(voted.body)).toBe(200);
}

describe("a child's payout held for approval, its fee paid by the master", () => {
  it('is signed, once approved, within the fee quoted at acceptance: an unquoted rent fails it, the master pays nothing', async () => {
    const { child, recipient, id, quoted } = await heldChildPayout();
    // While it waits: the recipient empties and closes its USDC account.
    const own = await ata(recipient.address as Address, w.usdc as Address);
    const elsewhere = outsider();
    await w.sol.control.mintTo(w.usdc, elsewhere, 1n);
    await expect.poll(() => usdcOf(w, elsewhere), { timeout: 10_000 }).toBe(1n);
    await send(w.rpc as never, recipient, [
      getTransferCheckedInstruction({
        source: own,
        mint: w.usdc as Address,
        destination: await ata(elsewhere as Address, w.usdc as Address),
        authority: recipient,
        amount: 1n,
        decimals: 6,
      }),
      getCloseAccountInstruction(
        { account: own, destination: recipient.address, owner: recipient },
        { programAddress: TOKEN_PROGRAM_ADDRESS },
      ),
    ]);
    await expect.poll(() => usdcOf(w, recipient.address), { timeout: 10_000 }).toBe(0n);

    const masterBefore = await solOf(w, w.wallet.address);
    await approve(id);
    const done = await eventually(
      () => txOf(w, id),
      (t) => t.status !== 'PENDING' && t.status !== 'PENDING_APPROVAL',
      30_000,
    );
    // The master was never asked for the new account's rent: nothing is paid, the reason says why.
    expect(done.status, JSON.stringify(done)).toBe('FAILED');
    expect(done.reason).toContain(`more than the ${quoted} reserved for it`);
    expect(await solOf(w, w.wallet.address)).toBe(masterBefore);
    expect(await usdcOf(w, child.address)).toBe(5_000_000n);
    expect(await usdcOf(w, recipient.address)).toBe(0n);
  }, 90_000);

  it("holds its quoted fee at the master while it waits: a payout of the master's whole SOL is refused, the approved one is paid", async () => {
    const { recipient, id, quoted } = await heldChildPayout();
    const to = outsider();
    const balance = await solOf(w, w.wallet.address);
    const estimate = await walletApi(w, 'POST', '/withdraw/network-fee', { assetId: w.solId, address: to, amount: '1' });
    expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
    const own = lamports(estimate.body.data.networkFee);
    // Everything the master has, less its own fee: the held payout's fee would be left unpaid.
    const all = await walletApi(w, 'POST', '/withdraw', { assetId: w.solId, address: to, amount: sol(balance - own) });
    expect(all.status, JSON.stringify(all.body)).toBe(422);
    expect(all.body.error).toBe('INSUFFICIENT_BALANCE');
    expect(await solOf(w, w.wallet.address)).toBe(balance);

    await approve(id);
    const done = await settled(w, id);
    expect(done.status, JSON.stringify(done)).toBe('SUCCESS');
    expect(lamports(done.fee)).toBeLessThanOrEqual(quoted);
    expect(await usdcOf(w, recipient.address)).toBe(2_000_001n);
  }, 90_000);
});
