import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { describe, expect, it } from 'vitest';
import { associatedTokenAccount } from './balances.js';
import { transfersOf, type SolanaTxJson } from './scan.js';

const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const key = () => base58.encode(randomBytes(32));

/** A transaction moving 5 USDC-units from the sender's associated account into `into`, owned by `owner`. */
async function payInto(into: string, owner: string, mint: string, programId?: string): Promise<SolanaTxJson> {
  const sender = key();
  const senderAta = await associatedTokenAccount(sender, mint, TOKEN_PROGRAM);
  const program = programId ? { programId } : {};
  return {
    transaction: { signatures: [key()], message: { accountKeys: [sender, senderAta, into, mint, TOKEN_PROGRAM] } },
    meta: {
      err: null,
      preBalances: [10_000_000_000, 2_039_280, 0, 1_461_600, 1],
      postBalances: [10_000_000_000 - 2_039_280 - 5_000, 2_039_280, 2_039_280, 1_461_600, 1],
      preTokenBalances: [{ accountIndex: 1, mint, owner: sender, ...program, uiTokenAmount: { amount: '5000000' } }],
      postTokenBalances: [
        { accountIndex: 1, mint, owner: sender, ...program, uiTokenAmount: { amount: '0' } },
        { accountIndex: 2, mint, owner, ...program, uiTokenAmount: { amount: '5000000' } },
      ],
    },
  };
}

describe('transfersOf: SPL deposits are credited into the owner’s associated token account only', () => {
  it('credits a transfer into the watched owner’s ATA (the node naming the program, or not)', async () => {
    const [mint, child] = [key(), key()];
    const ata = await associatedTokenAccount(child, mint, TOKEN_PROGRAM);
    for (const programId of [TOKEN_PROGRAM, undefined]) {
      const tx = await payInto(ata, child, mint, programId);
      const found = await transfersOf(tx, 10n, key(), new Set([mint]), (a) => a === child);
      expect(found).toEqual([expect.objectContaining({ to: child, token: mint, amount: 5_000_000n, logIndex: 2 })]);
    }
  });

  it('credits nothing sent into another token account the owner holds: the sweep and the balance read only the ATA', async () => {
    const [mint, child, other] = [key(), key(), key()];
    const tx = await payInto(other, child, mint, TOKEN_PROGRAM);
    expect(await transfersOf(tx, 10n, key(), new Set([mint]), (a) => a === child)).toEqual([]);
  });
});
