/**
 * Two Solana payout traps (found by an attack review; both failed before):
 * - a USDC withdrawal to the address of a token account (the recipient's own USDC account,
 *   often pasted instead of the wallet): the sender created a token account owned by that
 *   token account, which nobody signs for, and the tokens were lost. It is refused now; an
 *   SPL multisig (owned by the token program too, but an owner of token accounts) is paid.
 * - a recipient that closes its token account between acceptance and signing: the payout was
 *   signed with the new account's rent (2,039,280 lamports) against the 5,000 its acceptance
 *   reserved. It now fails with the reason, having paid nothing; a retry reserves the rent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  getCloseAccountInstruction,
  getInitializeMultisigInstruction,
  getTransferCheckedInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { ata, send } from '../../../src/devnet/solana/test-support.js';
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
beforeAll(async () => {
  w = await startSolanaWorld('solana-recipient-fee');
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const count = async () =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE type = 'WITHDRAW'`.execute(w.h.database.db)).rows[0]!.n);

describe('a token account given as the destination', () => {
  it('is refused (a 422 naming it), nothing written or sent', async () => {
    const owner = outsider();
    await w.sol.control.mintTo(w.usdc, owner, 1_000_000n);
    await eventually(
      () => usdcOf(w, owner),
      (v) => v === 1_000_000n,
    );
    const tokenAccount = await ata(owner as Address, w.usdc as Address);
    const before = await count();
    const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdcId, address: tokenAccount, amount: '5' });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.message).toContain('is a token account or a mint, not a wallet address');
    // The mint itself is a catalogued token's address: refused before the chain is asked.
    const mint = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdcId, address: w.usdc, amount: '5' });
    expect(mint.status, JSON.stringify(mint.body)).toBe(400);
    expect(await count()).toBe(before);
    expect(await usdcOf(w, owner)).toBe(1_000_000n);
  });
});

describe('an SPL multisig given as the destination (owned by the token program too)', () => {
  it('is paid: it owns token accounts (M of N), so its associated token account gets the tokens', { timeout: 90_000 }, async () => {
    const payer = await generateKeyPairSigner();
    await w.sol.control.fund(payer.address, 1_000_000_000n);
    const multisig = await generateKeyPairSigner();
    const [a, b] = [await generateKeyPairSigner(), await generateKeyPairSigner()];
    const space = 355n;
    const rent = BigInt(await (w.rpc as any).getMinimumBalanceForRentExemption(space).send());
    await send(w.rpc as never, payer, [
      getCreateAccountInstruction({ payer, newAccount: multisig, lamports: rent, space, programAddress: TOKEN_PROGRAM_ADDRESS }),
      getInitializeMultisigInstruction({
        multisig: multisig.address,
        m: 1,
        signers: [a.address as Address, b.address as Address],
      } as never),
    ]);
    await expect
      .poll(
        async () =>
          (await (w.rpc as any).getAccountInfo(multisig.address, { encoding: 'base64', commitment: 'confirmed' }).send()).value?.owner,
        { timeout: 10_000 },
      )
      .toBe(TOKEN_PROGRAM_ADDRESS);
    const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdcId, address: multisig.address, amount: '2' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect((await settled(w, res.body.data.id)).status).toBe('SUCCESS');
    expect(await usdcOf(w, multisig.address)).toBe(2_000_000n);
  });
});

describe('the fee signed vs the fee reserved', () => {
  it('a recipient closing its token account before signing: FAILED with the reason, nothing paid; a retry pays the rent it reserves', async () => {
    const recipient = await generateKeyPairSigner();
    await w.sol.control.fund(recipient.address, 100_000_000n);
    await w.sol.control.mintTo(w.usdc, recipient.address, 1n);
    await expect.poll(() => usdcOf(w, recipient.address), { timeout: 10_000 }).toBe(1n);

    await w.h.stopWorker();
    let id: string;
    try {
      const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.usdcId, address: recipient.address, amount: '5' });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      // Before the worker signs: the recipient empties and closes its USDC account.
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
    } finally {
      await w.h.startWorker();
    }
    const masterBefore = await solOf(w, w.wallet.address);
    const failed = await eventually(
      () => txOf(w, id!),
      (t) => t.status !== 'PENDING',
      30_000,
    );
    expect(failed.status).toBe('FAILED');
    expect(failed.reason).toContain('more than the 5000 reserved for it');
    expect(await solOf(w, w.wallet.address)).toBe(masterBefore);
    expect(await usdcOf(w, recipient.address)).toBe(0n);

    // Retried: quoted and reserved again with the rent, then paid.
    const retried = await walletApi(w, 'POST', `/transactions/${id!}/retry`, {});
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const done = await settled(w, id!);
    expect(done.status).toBe('SUCCESS');
    const { rows } = await sql<{ reserved_fee: string }>`SELECT reserved_fee FROM transactions WHERE id = ${id!}`.execute(w.h.database.db);
    expect(lamports(done.fee)).toBeLessThanOrEqual(BigInt(rows[0]!.reserved_fee));
    expect(await usdcOf(w, recipient.address)).toBe(5_000_000n);
  }, 90_000);

  it("a child's payout, its fee paid by the master: signed within the fee quoted at acceptance, never with an unquoted rent", async () => {
    const child = await childOf(w);
    await w.sol.control.mintTo(w.usdc, child.address, 5_000_000n);
    await expect.poll(() => usdcOf(w, child.address), { timeout: 10_000 }).toBe(5_000_000n);
    const recipient = await generateKeyPairSigner();
    await w.sol.control.fund(recipient.address, 100_000_000n);
    await w.sol.control.mintTo(w.usdc, recipient.address, 1n);
    await expect.poll(() => usdcOf(w, recipient.address), { timeout: 10_000 }).toBe(1n);

    await w.h.stopWorker();
    let id: string;
    let quoted: bigint;
    try {
      const body = { assetId: w.usdcId, address: recipient.address, amount: '2' };
      const estimate = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw/network-fee`, body);
      expect(estimate.status, JSON.stringify(estimate.body)).toBe(200);
      quoted = lamports(estimate.body.data.networkFee);
      // The recipient's account exists: two signatures, no rent.
      expect(quoted).toBeLessThan(2_039_280n);
      const res = await walletApi(w, 'POST', `/addresses/${child.id}/withdraw`, body);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      id = res.body.data.id;
      // Before the worker signs: the recipient empties and closes its USDC account.
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
    } finally {
      await w.h.startWorker();
    }
    const masterBefore = await solOf(w, w.wallet.address);
    const failed = await eventually(
      () => txOf(w, id!),
      (t) => t.status !== 'PENDING',
      30_000,
    );
    // The master was never asked for the new account's rent: nothing is paid, the reason says why.
    expect(failed.status).toBe('FAILED');
    expect(failed.reason).toContain(`more than the ${quoted!} reserved for it`);
    expect(await solOf(w, w.wallet.address)).toBe(masterBefore);
    expect(await usdcOf(w, child.address)).toBe(5_000_000n);

    // Retried: quoted again with the rent, then paid by the master within that quote.
    const retried = await walletApi(w, 'POST', `/transactions/${id!}/retry`, {});
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const done = await settled(w, id!);
    expect(done.status).toBe('SUCCESS');
    expect(lamports(done.fee)).toBeGreaterThan(2_039_280n);
    expect(await usdcOf(w, recipient.address)).toBe(2_000_000n);
  }, 90_000);
});
