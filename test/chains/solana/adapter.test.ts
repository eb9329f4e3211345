/**
 * The Solana ChainAdapter's own answers (chains/solana/adapter.ts) against the validator
 * stand-in: broadcast (a resend is a success; an expired blockhash, a failing transfer and a
 * bad signature are typed refusals), receipts, decimals, the SPL transfer encoding read back,
 * and the EVM-only features answering 422 NOT_SUPPORTED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519';
import { startWorld, type World } from '../../../src/devnet/solana/test-support.js';
import { SolanaAdapter } from '../../../src/chains/solana/adapter.js';
import { ChainRejectedError } from '../../../src/chains/errors.js';
import type { ChainConfig } from '../../../src/config/index.js';
import type { SigningKey, TxIntent } from '../../../src/chains/types.js';
import { BusinessRuleError } from '../../../src/lib/errors.js';
import { capability } from '../../../src/chains/capabilities.js';

let w: World;
let adapter: SolanaAdapter;

beforeAll(async () => {
  w = await startWorld();
  const config = { blockchain: { name: 'Solana', family: 'solana' }, network: 'testnet', rpcUrl: w.standIn.url } as unknown as ChainConfig;
  adapter = new SolanaAdapter(config);
});
afterAll(async () => {
  await w?.standIn.stop();
});

const slots = (n = 1) => w.standIn.control.produceSlots(n);

function keypair() {
  const secret = ed25519.utils.randomPrivateKey();
  const key: SigningKey = { signDigest: () => ({ r: 0n, s: 0n, recovery: 0 }), signMessage: (m) => ed25519.sign(m, secret) };
  return { key, address: base58.encode(ed25519.getPublicKey(secret)) };
}

async function signedTransfer(amount: bigint, from?: { master: ReturnType<typeof keypair>; child: ReturnType<typeof keypair> }) {
  const master = from?.master ?? keypair();
  const child = from?.child ?? keypair();
  if (!from) {
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, child.address, 1_000n);
    slots(2);
  }
  const intent: TxIntent = { kind: 'token', from: child.address, token: w.usdc, to: master.address, amount, feePayer: master.address };
  const network = await adapter.sender.prepare(intent, { units: '100000' });
  return { master, child, signed: adapter.sender.sign(intent, null, network, child.key, master.key) };
}

describe('SolanaAdapter', () => {
  it('broadcasts once and takes a resend as a success; the receipt names its slot and fee', async () => {
    const { signed, child } = await signedTransfer(400n);
    expect(await adapter.broadcast(signed.raw)).toBe(signed.hash);
    expect(await adapter.broadcast(signed.raw)).toBe(signed.hash);
    slots(2);
    const receipt = await adapter.getReceipt(signed.hash);
    expect(receipt?.status).toBe('success');
    expect(receipt?.block.hash).toBe((await adapter.getBlock(receipt!.block.number))!.hash);
    expect((await adapter.getBalances([{ owner: child.address, token: w.usdc }]))[0]).toBe(600n);
    expect(await adapter.getReceipt('not-a-signature')).toBeNull();
  });

  it('types the refusals: an expired blockhash, a transfer that fails, a wrong signature', async () => {
    const expired = await signedTransfer(1n);
    w.standIn.control.expireBlockhashes();
    const e1 = await adapter.broadcast(expired.signed.raw).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ChainRejectedError);
    expect((e1 as ChainRejectedError).reason).toBe('expired');

    // Two transfers prepared while the child held 1,000: the second fails once the first took it all.
    const all = await signedTransfer(1_000n);
    const poor = await signedTransfer(400n, all);
    await adapter.broadcast(all.signed.raw);
    const e2 = await adapter.broadcast(poor.signed.raw).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(ChainRejectedError);
    expect(['reverted', 'insufficient-funds']).toContain((e2 as ChainRejectedError).reason);

    const forged = await signedTransfer(1n);
    const bytes = Buffer.from(forged.signed.raw, 'base64');
    bytes[70] = bytes[70]! ^ 0xff; // inside the second signature
    const e3 = await adapter.broadcast(bytes.toString('base64')).catch((e: unknown) => e);
    expect((e3 as ChainRejectedError).reason).toBe('invalid');
  });

  it('reads the finalized slot and decimals, reads back its own token encoding, and answers 422 for what Solana has not', async () => {
    const head = await adapter.getBlockNumber();
    const final = await adapter.finalizedHead(head);
    expect(head - final).toBeGreaterThanOrEqual(31n); // confirmed is 1 block behind the newest, finalized 32
    expect(await adapter.finalizedHead(final - 5n)).toBe(final - 5n); // never above the head given
    expect(await adapter.readTokenDecimals(w.usdc)).toBe(6);
    expect(await adapter.readTokenDecimals(keypair().address)).toBeNull();
    expect(() => capability(adapter, 'typedData')).toThrow(BusinessRuleError);
    expect(() => capability(adapter, 'contracts')).toThrow(expect.objectContaining({ code: 'NOT_SUPPORTED' }));
  });
});
