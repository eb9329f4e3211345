/**
 * The Solana family's Sender (chains/solana/sender.ts) against the validator stand-in:
 * a quote (signatures, priority fee, the rent of a created token account), prepare with a
 * fresh blockhash, signing by the master as fee payer and the child as owner, the landed
 * version found with its fee, and expiry judged on the finalized block height (landing.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { ed25519 } from '@noble/curves/ed25519';
import type { Address } from '@solana/kit';
import { rawCall, startWorld, type World } from '../../../src/devnet/solana/test-support.js';
import { SolanaNode } from '../../../src/chains/solana/rpc.js';
import { SolanaBalances } from '../../../src/chains/solana/balances.js';
import { SolanaSender } from '../../../src/chains/solana/sender.js';
import { ChainRejectedError } from '../../../src/chains/errors.js';
import type { SigningKey, TxIntent } from '../../../src/chains/types.js';
import { startBalancer } from '../../support/balancer.js';

let w: World;
let balances: SolanaBalances;
let sender: SolanaSender;

beforeAll(async () => {
  w = await startWorld();
  const node = new SolanaNode(w.standIn.url);
  balances = new SolanaBalances(node);
  sender = new SolanaSender(node, balances);
});
afterAll(async () => {
  await w?.standIn.stop();
});

const slots = (n = 1) => w.standIn.control.produceSlots(n);

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
const usdc = async (owner: string) => (await balances.getBalances([{ owner, token: w.usdc }]))[0]!;

describe('SolanaSender', () => {
  it('a child with no SOL sends USDC, the master paying: quoted with the new account rent, landed once, exact balances', async () => {
    const master = keypair();
    const child = keypair();
    const recipient = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, child.address, 3_000_000n);
    slots(2);
    const intent: TxIntent = {
      kind: 'token',
      from: child.address,
      token: w.usdc,
      to: recipient.address,
      amount: 1_750_000n,
      feePayer: master.address,
    };
    const quote = await sender.quote(intent);
    expect(quote.network.signatures).toBe('2');
    expect(quote.network.createAccount).toBe('1');
    expect(quote.network.rent).toBe('2039280');
    const priority = (BigInt(quote.network.microLamports!) * BigInt(quote.network.units!) + 999_999n) / 1_000_000n;
    expect(quote.fee).toBe(10_000n + priority + 2_039_280n);
    expect(BigInt(quote.network.units!)).toBeGreaterThan(BigInt(quote.network.simulated!));

    const network = await sender.prepare(intent, quote.fixed);
    const signed = sender.sign(intent, null, network, child.key, master.key);
    const masterBefore = await sol(master.address);
    expect(await w.rpc.sendTransaction(signed.raw as never, { encoding: 'base64' }).send()).toBe(signed.hash);
    slots(2);
    const landed = await sender.findLanded(['1111111111111111111111111111111111111111111111111111111111111111', signed.hash]);
    expect(landed?.index).toBe(1);
    expect(landed?.receipt.status).toBe('success');
    // The fee payer's cost: the fee and the rent of the token account it created.
    expect(landed!.receipt.fee).toBe(10_000n + priority + 2_039_280n);
    expect(await usdc(recipient.address)).toBe(1_750_000n);
    expect(await usdc(child.address)).toBe(1_250_000n);
    expect(await sol(child.address)).toBe(0n);
    expect(await sol(master.address)).toBe(masterBefore - 10_000n - priority - 2_039_280n);
    expect(sender.costOf(0n, network)).toBeGreaterThanOrEqual(landed!.receipt.fee);
  });

  it('refuses what cannot succeed: more tokens than the child holds (insufficient-funds), a dust SOL transfer to a new account', async () => {
    const master = keypair();
    const child = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, child.address, 5n);
    slots(2);
    const err = await sender
      .quote({ kind: 'token', from: child.address, token: w.usdc, to: master.address, amount: 6n, feePayer: master.address })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ChainRejectedError);
    expect((err as ChainRejectedError).reason).toBe('insufficient-funds');
    await expect(sender.quote({ kind: 'native', from: master.address, to: keypair().address, amount: 1_000n })).rejects.toThrow(
      /rent-exempt/,
    );
  });

  it('expires only once the finalized height passes the blockhash: never sent, found nowhere, then rebuilt with a new blockhash', async () => {
    const master = keypair();
    const recipient = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    slots(2);
    const intent: TxIntent = { kind: 'native', from: master.address, to: recipient.address, amount: 2_000_000n };
    const network = await sender.prepare(intent, {});
    const lost = sender.sign(intent, null, network, master.key);
    expect(network.signatures).toBe('1');
    expect(await sender.hasExpired(network, lost.hash)).toBe(false);
    // 150 blocks of validity, plus the 32 the finalized commitment lags behind.
    slots(150);
    expect(await sender.hasExpired(network, lost.hash)).toBe(false);
    slots(40);
    expect(await sender.hasExpired(network, lost.hash)).toBe(true);
    expect(await sender.findLanded([lost.hash])).toBeNull();
    // The lost version is refused now; a rebuilt one lands.
    await expect(w.rpc.sendTransaction(lost.raw as never, { encoding: 'base64' }).send()).rejects.toThrow(/simulation failed/i);
    expect(await sol(recipient.address)).toBe(0n);
    const again = await sender.prepare(intent, network);
    expect(again.blockhash).not.toBe(network.blockhash);
    const signed = sender.sign(intent, null, again, master.key);
    await w.rpc.sendTransaction(signed.raw as never, { encoding: 'base64' }).send();
    slots(2);
    expect((await sender.findLanded([lost.hash, signed.hash]))?.index).toBe(1);
    expect(await sol(recipient.address)).toBe(2_000_000n);
  });

  it('a finalized transaction a node does not give back (a lagging history node) is a retryable error, never "not landed"', async () => {
    const master = keypair();
    const recipient = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    slots(2);
    const intent: TxIntent = { kind: 'native', from: master.address, to: recipient.address, amount: 3_000_000n };
    const signed = sender.sign(intent, null, await sender.prepare(intent, {}), master.key);
    await w.rpc.sendTransaction(signed.raw as never, { encoding: 'base64' }).send();
    slots(40); // past the finalized commitment's lag
    expect((await w.rpc.getSignatureStatuses([signed.hash as never]).send()).value[0]?.confirmationStatus).toBe('finalized');

    // The same node behind a balancer whose other backend answers getTransaction with null, as
    // a node whose history lags behind the one that gave the status does.
    const balancer = await startBalancer(w.standIn.url, (_path, call) =>
      call.method === 'getTransaction' ? { jsonrpc: '2.0', id: call.id, result: null } : undefined,
    );
    try {
      const lagging = new SolanaNode(balancer.url);
      const behind = new SolanaSender(lagging, new SolanaBalances(lagging));
      // Not null: that would let an expired payment be rebuilt and paid twice.
      await expect(behind.findLanded([signed.hash])).rejects.toMatchObject({ code: 'CHAIN_UNAVAILABLE', retryable: true });
    } finally {
      await balancer.close();
    }
    expect((await sender.findLanded([signed.hash]))?.receipt.status).toBe('success');
  });

  it('an expired blockhash is never concluded unlanded from a lagging node: the status must come from one at or past the finalized slot', async () => {
    const master = keypair();
    const recipient = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    slots(2);
    // A balancer's second backend, frozen at the state reached now: it has never seen the
    // payment below, so it answers its status with null (its own slot as the context), and
    // its finalized height is the one of now.
    type Call = { id: number; method: string; params: unknown[] };
    const frozenAt = Number(await w.rpc.getSlot({ commitment: 'processed' }).send());
    const frozenEpoch = await rawCall(w.standIn.url, 'getEpochInfo', [{ commitment: 'finalized' }]);
    // rawCall's answer carries its own id: the batch's is put back over it.
    const forward = async (c: Call) => ({ ...(await rawCall(w.standIn.url, c.method, c.params)), jsonrpc: '2.0', id: c.id });
    const frozen = (c: Call) => ({
      jsonrpc: '2.0',
      id: c.id,
      result:
        c.method === 'getEpochInfo'
          ? frozenEpoch.result
          : { context: { slot: frozenAt }, value: (c.params[0] as unknown[]).map(() => null) },
    });
    const known = (c: Call) => c.method === 'getEpochInfo' || c.method === 'getSignatureStatuses';
    // One balancer hands a whole batch to the frozen backend; the other splits a batch, the
    // statuses to the frozen backend, the rest to the node; both send lone statuses there.
    const whole = await startBalancer(w.standIn.url, (_path, body) => {
      const calls = body as unknown as Call | Call[];
      if (Array.isArray(calls)) return calls.every(known) ? calls.map(frozen) : undefined;
      return calls.method === 'getSignatureStatuses' ? frozen(calls) : undefined;
    });
    const split = await startBalancer(w.standIn.url, async (_path, body) => {
      const calls = body as unknown as Call | Call[];
      if (!Array.isArray(calls)) return calls.method === 'getSignatureStatuses' ? frozen(calls) : undefined;
      return Promise.all(calls.map((c) => (c.method === 'getSignatureStatuses' ? frozen(c) : forward(c))));
    });
    try {
      const intent: TxIntent = { kind: 'native', from: master.address, to: recipient.address, amount: 3_000_000n };
      const network = await sender.prepare(intent, {});
      const signed = sender.sign(intent, null, network, master.key);
      await w.rpc.sendTransaction(signed.raw as never, { encoding: 'base64' }).send();
      slots(200); // past its last valid height (150 blocks) and the finalized commitment's lag
      const behind = (url: string) => {
        const node = new SolanaNode(url);
        return new SolanaSender(node, new SolanaBalances(node));
      };
      // Alone, the lagging backend's answer reads "not landed": the pipeline would rebuild and pay twice.
      expect(await behind(whole.url).findLanded([signed.hash])).toBeNull();
      // The batch reaches one backend: the frozen one's finalized height is not past the deadline.
      expect(await behind(whole.url).hasExpired(network, signed.hash)).toBe(false);
      // Split, the status comes from a node behind the finalized slot the other answered.
      await expect(behind(split.url).hasExpired(network, signed.hash)).rejects.toMatchObject({
        code: 'CHAIN_UNAVAILABLE',
        retryable: true,
        message: expect.stringMatching(/behind the finalized slot/),
      });
      // A node at the finalized slot has it: not expired, landed, paid once.
      expect(await sender.hasExpired(network, signed.hash)).toBe(false);
      expect((await sender.findLanded([signed.hash]))?.receipt.status).toBe('success');
      expect(await sol(recipient.address)).toBe(3_000_000n);
    } finally {
      await Promise.all([whole.close(), split.close()]);
    }
  });

  it('an expired blockhash is never concluded unlanded from a node whose ledger starts after it (restarted from a snapshot)', async () => {
    const master = keypair();
    const recipient = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    slots(2);
    const intent: TxIntent = { kind: 'native', from: master.address, to: recipient.address, amount: 4_000_000n };
    const network = await sender.prepare(intent, {});
    expect(BigInt(network.blockhashSlot!)).toBeGreaterThan(0n);
    const signed = sender.sign(intent, null, network, master.key);
    await w.rpc.sendTransaction(signed.raw as never, { encoding: 'base64' }).send();
    slots(200); // past its last valid height (150 blocks) and the finalized commitment's lag
    // A backend restarted from a snapshot taken now, its ledger beginning there: at the tip and
    // the finalized slot like the node, but with no history of the slot the payment landed in
    // (its status cache long past), so it answers the status with null.
    type Call = { id: number; method: string; params: unknown[] };
    const restartedAt = Number(await w.rpc.getSlot({ commitment: 'finalized' }).send());
    const restarted = async (c: Call) =>
      c.method === 'getFirstAvailableBlock'
        ? { jsonrpc: '2.0', id: c.id, result: restartedAt }
        : c.method === 'getSignatureStatuses'
          ? {
              jsonrpc: '2.0',
              id: c.id,
              result: { context: { slot: Number(await w.rpc.getSlot({ commitment: 'processed' }).send()) }, value: [null] },
            }
          : { ...(await rawCall(w.standIn.url, c.method, c.params)), jsonrpc: '2.0', id: c.id };
    const balancer = await startBalancer(w.standIn.url, (_path, body) => {
      const calls = body as unknown as Call | Call[];
      return Array.isArray(calls) ? Promise.all(calls.map(restarted)) : restarted(calls);
    });
    try {
      const node = new SolanaNode(balancer.url);
      const behind = new SolanaSender(node, new SolanaBalances(node));
      // Its "not found" reads "not landed": the pipeline would rebuild and pay twice.
      expect(await behind.findLanded([signed.hash])).toBeNull();
      await expect(behind.hasExpired(network, signed.hash)).rejects.toMatchObject({
        code: 'CHAIN_UNAVAILABLE',
        retryable: true,
        message: expect.stringMatching(/ledger starts at slot/),
      });
      // Without the blockhash's slot (a row prepared before it was noted), as before.
      const { blockhashSlot: _, ...older } = network;
      expect(await behind.hasExpired(older, signed.hash)).toBe(true);
    } finally {
      await balancer.close();
    }
    // The node with the history: landed, not expired, paid once.
    expect(await sender.hasExpired(network, signed.hash)).toBe(false);
    expect((await sender.findLanded([signed.hash]))?.receipt.status).toBe('success');
    expect(await sol(recipient.address)).toBe(4_000_000n);
  });

  it('signs only the prepared message of the intent: another sender, or a missing fee payer key, is refused', async () => {
    const master = keypair();
    const child = keypair();
    await w.standIn.control.fund(master.address, 1_000_000_000n);
    await w.standIn.control.mintTo(w.usdc, child.address, 5n);
    slots(2);
    const intent: TxIntent = {
      kind: 'token',
      from: child.address,
      token: w.usdc,
      to: master.address,
      amount: 5n,
      feePayer: master.address,
    };
    const network = await sender.prepare(intent, {});
    expect(() => sender.sign({ ...intent, feePayer: undefined }, null, network, child.key)).toThrow(/signed by others/);
    expect(() => sender.sign(intent, null, network, child.key)).toThrow(/fee payer's key/);
    expect(() => sender.sign(intent, 1n, network, child.key, master.key)).toThrow(/no nonce/);
  });
});
