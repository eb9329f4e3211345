/**
 * A Token-2022 mint with a transfer fee (the TransferFeeConfig extension, which PayPal's PYUSD
 * carries, its rate the issuer's to raise): a transferChecked delivers the amount less the fee,
 * withheld in the recipient's account for the issuer. Found by an attack review (failed
 * before): a payout of 1 token at 1% landed as SUCCESS and the recipient got 0.99. A payout to
 * anyone but the wallet's own master (the fee payer) is now refused while the mint takes a fee
 * on its amount; a move to the master (a sweep) still goes, paying the issuer's fee.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519';
import { AccountRole, generateKeyPairSigner, type Address, type Instruction } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
} from '@solana-program/token';
import { fundedSigner, send, startWorld, type World } from '../../../src/devnet/solana/test-support.js';
import { SolanaNode } from '../../../src/chains/solana/rpc.js';
import { SolanaBalances, TOKEN_2022_PROGRAM } from '../../../src/chains/solana/balances.js';
import { SolanaSender } from '../../../src/chains/solana/sender.js';
import { ChainRejectedError } from '../../../src/chains/errors.js';
import type { SigningKey, TxIntent } from '../../../src/chains/types.js';

let w: World;
let balances: SolanaBalances;
let sender: SolanaSender;
let authority: Awaited<ReturnType<typeof fundedSigner>>;
const PROGRAM_2022 = TOKEN_2022_PROGRAM as Address;
const slots = (n = 2) => w.standIn.control.produceSlots(n);

beforeAll(async () => {
  w = await startWorld();
  const node = new SolanaNode(w.standIn.url);
  balances = new SolanaBalances(node);
  sender = new SolanaSender(node, balances);
  authority = await fundedSigner(w);
  slots();
});
afterAll(async () => {
  await w?.standIn.stop();
});

/** Token-2022's InitializeTransferFeeConfig (extension instruction 26, 0): both authorities, the rate, the most a transfer pays. */
function initializeTransferFee(mint: Address, basisPoints: number, maximumFee: bigint): Instruction {
  const data = new Uint8Array(2 + 33 + 33 + 2 + 8);
  data.set([26, 0, 1]);
  data.set(base58.decode(authority.address), 3);
  data[35] = 1;
  data.set(base58.decode(authority.address), 36);
  const view = new DataView(data.buffer);
  view.setUint16(68, basisPoints, true);
  view.setBigUint64(70, maximumFee, true);
  return { programAddress: PROGRAM_2022, accounts: [{ address: mint, role: AccountRole.WRITABLE }], data };
}

/** A 6-decimal Token-2022 mint with a transfer fee of `basisPoints`. */
async function feeMint(basisPoints: number): Promise<Address> {
  const m = await generateKeyPairSigner();
  // The mint (82 bytes, padded to 165), its account type, and the extension (4 + 108 bytes).
  const space = 166 + 4 + 108;
  const rent = await w.rpc.getMinimumBalanceForRentExemption(BigInt(space)).send();
  await send(w.rpc, authority, [
    getCreateAccountInstruction({ payer: authority, newAccount: m, lamports: rent, space, programAddress: PROGRAM_2022 }),
    initializeTransferFee(m.address, basisPoints, 1_000_000_000n),
    getInitializeMint2Instruction({ mint: m.address, decimals: 6, mintAuthority: authority.address }, { programAddress: PROGRAM_2022 }),
  ]);
  slots();
  return m.address;
}

async function mintTo(mint: Address, owner: string, amount: bigint) {
  const [ata] = await findAssociatedTokenPda({ owner: owner as Address, mint, tokenProgram: PROGRAM_2022 });
  await send(w.rpc, authority, [
    getCreateAssociatedTokenIdempotentInstruction({ payer: authority, ata, owner: owner as Address, mint, tokenProgram: PROGRAM_2022 }),
    getMintToInstruction({ mint, token: ata, mintAuthority: authority, amount }, { programAddress: PROGRAM_2022 }),
  ]);
  slots();
}

function keypair() {
  const secret = ed25519.utils.randomPrivateKey();
  const key: SigningKey = {
    signDigest: () => {
      throw new Error('not secp256k1');
    },
    signMessage: (message) => ed25519.sign(message, secret),
  };
  return { key, address: base58.encode(ed25519.getPublicKey(secret)) };
}

const tokens = async (owner: string, mint: string) => (await balances.getBalances([{ owner, token: mint }]))[0]!;

/** Quote, prepare within the quote, sign (master paying for a child), send, land. */
async function land(intent: TxIntent, owner: ReturnType<typeof keypair>, master?: ReturnType<typeof keypair>) {
  const quote = await sender.quote(intent, {});
  const network = await sender.prepare(intent, quote.fixed, { feeCeiling: quote.fee });
  const signed = sender.sign(intent, null, network, owner.key, master?.key);
  await w.rpc.sendTransaction(signed.raw as never, { encoding: 'base64' }).send();
  slots();
  return (await sender.findLanded([signed.hash]))!.receipt;
}

describe('a Token-2022 mint with a transfer fee', () => {
  it('a payout to an outside recipient is refused while the fee takes part of it: the recipient would get less', async () => {
    const mint = await feeMint(100);
    const master = keypair();
    const child = keypair();
    const recipient = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await mintTo(mint, master.address, 5_000_000n);
    await mintTo(mint, child.address, 5_000_000n);
    for (const intent of [
      { kind: 'token', from: master.address, token: mint, to: recipient.address, amount: 1_000_000n },
      { kind: 'token', from: child.address, token: mint, to: recipient.address, amount: 1_000_000n, feePayer: master.address },
    ] satisfies TxIntent[]) {
      const refused = await sender.quote(intent, {}).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(ChainRejectedError);
      expect((refused as ChainRejectedError).reason).toBe('reverted');
      expect((refused as Error).message).toContain('would receive 990000 of the 1000000 sent');
      // Prepared (signed later, within a reservation) it is refused the same way.
      await expect(sender.prepare(intent, {}, { feeCeiling: 10_000_000n })).rejects.toThrow(/transfer fee/);
    }
    expect(await tokens(recipient.address, mint)).toBe(0n);
  });

  it("a child's tokens moved to its master (a sweep): sent, the master paying the issuer's fee", async () => {
    const mint = await feeMint(100);
    const master = keypair();
    const child = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await mintTo(mint, child.address, 2_000_000n);
    const receipt = await land(
      { kind: 'token', from: child.address, token: mint, to: master.address, amount: 2_000_000n, feePayer: master.address },
      child,
      master,
    );
    expect(receipt.status).toBe('success');
    expect(await tokens(master.address, mint)).toBe(1_980_000n);
    expect(await tokens(child.address, mint)).toBe(0n);
  });

  it('at a rate of 0 (PYUSD today) a payout is paid in full', async () => {
    const mint = await feeMint(0);
    const master = keypair();
    const recipient = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await mintTo(mint, master.address, 5_000_000n);
    const receipt = await land({ kind: 'token', from: master.address, token: mint, to: recipient.address, amount: 1_250_000n }, master);
    expect(receipt.status).toBe('success');
    expect(await tokens(recipient.address, mint)).toBe(1_250_000n);
  });
});
