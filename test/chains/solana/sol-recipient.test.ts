/**
 * A SOL payout to an account that is no wallet (found by an attack review; failed before): the
 * address of a token account (the recipient's USDC account, often pasted instead of the
 * wallet), of a mint, or of a program. The runtime credits any account, so the transfer landed
 * and the lamports were out of reach: a mint and a program are never closed, and a token
 * account gives its lamports back only when its owner closes it, having emptied it (no wallet
 * shows them meanwhile). Each is refused now, as a token payout to such an address is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { getInitializeMint2Instruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { ata, send } from '../../../src/devnet/solana/test-support.js';
import { eventually } from '../../support/fixtures.js';
import { outsider, solOf, startSolanaWorld, usdcOf, walletApi, type SolanaWorld } from './withdrawals-world.js';

let w: SolanaWorld;
beforeAll(async () => {
  w = await startSolanaWorld('solana-sol-recipient');
}, 60_000);
afterAll(async () => {
  await w?.stop();
});

const count = async () =>
  Number((await sql<{ n: string }>`SELECT count(*) AS n FROM transactions WHERE type = 'WITHDRAW'`.execute(w.h.database.db)).rows[0]!.n);

describe('a SOL payout to an account that is no wallet', () => {
  it('a token account, a mint or a program: refused (a 422 naming it), nothing written or sent', { timeout: 60_000 }, async () => {
    const owner = outsider();
    await w.sol.control.mintTo(w.usdc, owner, 1_000_000n);
    await eventually(
      () => usdcOf(w, owner),
      (v) => v === 1_000_000n,
    );
    const tokenAccount = await ata(owner as Address, w.usdc as Address);
    // A mint of no catalogued token (a catalogued one's address is refused before the chain is asked).
    const payer = await generateKeyPairSigner();
    await w.sol.control.fund(payer.address, 1_000_000_000n);
    const mint = await generateKeyPairSigner();
    const rent = BigInt(await (w.rpc as any).getMinimumBalanceForRentExemption(82n).send());
    await send(w.rpc as never, payer, [
      getCreateAccountInstruction({ payer, newAccount: mint, lamports: rent, space: 82, programAddress: TOKEN_PROGRAM_ADDRESS }),
      getInitializeMint2Instruction({ mint: mint.address, decimals: 6, mintAuthority: payer.address }),
    ]);
    await eventually(
      () => solOf(w, mint.address),
      (v) => v === rent,
    );
    const before = await count();
    const master = await solOf(w, w.wallet.address);
    for (const [address, kind] of [
      [tokenAccount, 'a token account'],
      [mint.address, 'a mint'],
      [TOKEN_PROGRAM_ADDRESS, 'a program'],
    ] as const) {
      const held = await solOf(w, address);
      const res = await walletApi(w, 'POST', '/withdraw', { assetId: w.solId, address, amount: '0.01' });
      expect(res.status, `${kind}: ${JSON.stringify(res.body.message)}`).toBe(422);
      expect(res.body.message).toContain('not a wallet address');
      expect(await solOf(w, address)).toBe(held);
    }
    expect(await count()).toBe(before);
    expect(await solOf(w, w.wallet.address)).toBe(master);
  });
});
