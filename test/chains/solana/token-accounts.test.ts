/**
 * The recipient's token account as the Solana sender sees it: an address that holds only
 * lamports someone sent there is no token account yet (the transfer creates it), and a
 * Token-2022 mint's associated token account is larger than SPL Token's (its rent is what
 * the quote shows and what the fee payer pays).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519';
import { generateKeyPairSigner, type Address } from '@solana/kit';
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
import type { SigningKey, TxIntent } from '../../../src/chains/types.js';

let w: World;
let balances: SolanaBalances;
let sender: SolanaSender;
/** A Token-2022 mint (6 decimals) and its authority. */
let mint2022: Address;
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
  const m = await generateKeyPairSigner();
  mint2022 = m.address;
  const rent = await w.rpc.getMinimumBalanceForRentExemption(82n).send();
  await send(w.rpc, authority, [
    getCreateAccountInstruction({ payer: authority, newAccount: m, lamports: rent, space: 82, programAddress: PROGRAM_2022 }),
    getInitializeMint2Instruction({ mint: m.address, decimals: 6, mintAuthority: authority.address }, { programAddress: PROGRAM_2022 }),
  ]);
  slots();
});
afterAll(async () => {
  await w?.standIn.stop();
});

async function mint2022To(owner: string, amount: bigint) {
  const [ata] = await findAssociatedTokenPda({ owner: owner as Address, mint: mint2022, tokenProgram: PROGRAM_2022 });
  await send(w.rpc, authority, [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: authority,
      ata,
      owner: owner as Address,
      mint: mint2022,
      tokenProgram: PROGRAM_2022,
    }),
    getMintToInstruction({ mint: mint2022, token: ata, mintAuthority: authority, amount }, { programAddress: PROGRAM_2022 }),
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

const sol = async (a: string) => (await w.rpc.getBalance(a as Address, { commitment: 'confirmed' }).send()).value;
const tokens = async (owner: string, mint: string) => (await balances.getBalances([{ owner, token: mint }]))[0]!;

/** Quote, prepare within the quote, sign (master paying), send: the receipt and what the master paid. */
async function land(intent: TxIntent, master: ReturnType<typeof keypair>, child: ReturnType<typeof keypair>, wholeBalance = false) {
  const quote = await sender.quote(intent, {}, { wholeBalance });
  const network = await sender.prepare(intent, quote.fixed, { feeCeiling: quote.fee });
  const signed = sender.sign(intent, null, network, child.key, master.key);
  const before = await sol(master.address);
  await w.rpc.sendTransaction(signed.raw as never, { encoding: 'base64' }).send();
  slots();
  const landed = await sender.findLanded([signed.hash]);
  return { quote, receipt: landed!.receipt, paid: before - (await sol(master.address)) };
}

describe("a recipient's token account address that holds only lamports", () => {
  it('is no token account: the sweep creates it there and lands (the master is not locked out of sweeps by 0.001 SOL)', async () => {
    const master = keypair();
    const child = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, child.address, 3_000_000n);
    // Anyone can send lamports to the address of the master's (not yet created) USDC account.
    await w.standIn.control.fund(await balances.tokenAccount(master.address, w.usdc), 1_000_000n);
    slots();
    const intent: TxIntent = {
      kind: 'token',
      from: child.address,
      token: w.usdc,
      to: master.address,
      amount: 3_000_000n,
      feePayer: master.address,
    };
    const { quote, receipt } = await land(intent, master, child, true);
    expect(quote.network.createAccount).toBe('1');
    expect(receipt.status).toBe('success');
    expect(await tokens(master.address, w.usdc)).toBe(3_000_000n);
    expect(await tokens(child.address, w.usdc)).toBe(0n);
    // The master topped the lamports already there up to the account's rent-exempt minimum.
    expect(receipt.details?.rentPaid).toBe((2_039_280n - 1_000_000n).toString());
  });
});

describe('a Token-2022 mint', () => {
  it("a child's tokens sent to a new recipient: the quote's rent is the larger account's, the fee payer pays exactly the quote", async () => {
    const master = keypair();
    const child = keypair();
    const recipient = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await mint2022To(child.address, 3_000_000n);
    expect(await tokens(child.address, mint2022)).toBe(3_000_000n);
    const intent: TxIntent = {
      kind: 'token',
      from: child.address,
      token: mint2022,
      to: recipient.address,
      amount: 1_250_000n,
      feePayer: master.address,
    };
    const { quote, receipt, paid } = await land(intent, master, child);
    const rent = await w.rpc.getMinimumBalanceForRentExemption(170n).send();
    expect(rent).toBe(2_074_080n);
    expect(quote.network.rent).toBe(rent.toString());
    expect(receipt.details?.rentPaid).toBe(rent.toString());
    // Nothing but the signatures and the rent (no prioritization fees on this chain): quoted to the lamport.
    expect(quote.network.microLamports).toBe('0');
    expect(paid).toBe(quote.fee);
    expect(receipt.fee).toBe(quote.fee);
    expect(await tokens(recipient.address, mint2022)).toBe(1_250_000n);
    expect(await tokens(child.address, mint2022)).toBe(1_750_000n);
  });
});

describe('a token balance read where only lamports sit at the token account address', () => {
  it('is 0 (no token account), and the other balances of the same read are answered', async () => {
    const owner = keypair();
    await w.standIn.control.fund(owner.address, 5_000_000n);
    // Anyone can send lamports to the address of a token account not created yet (the master's USDC account).
    await w.standIn.control.fund(await balances.tokenAccount(owner.address, w.usdc), 1_000_000n);
    slots();
    expect(
      await balances.getBalances([
        { owner: owner.address, token: w.usdc },
        { owner: owner.address, token: null },
      ]),
    ).toEqual([0n, 5_000_000n]);
  });
});
