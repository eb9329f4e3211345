import { describe, expect, it } from 'vitest';
import { keccak256, parseTransaction, recoverTransactionAddress, type Hex, type TransactionSerializedEIP1559 } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { generateMnemonic } from '../../src/keys/hd.ts';
import type { UnsignedTx } from '../../src/keys/signer.ts';
import { localSigner } from '../support/signer.ts';

const DEV_MNEMONIC = 'test test test test test test test test test test test junk';
const tx: UnsignedTx = {
  to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  value: 12_345n,
  data: '0xabcdef',
  nonce: 7,
  gas: 50_000n,
  maxFeePerGas: 3_000_000_000n,
  maxPriorityFeePerGas: 1_000_000_000n,
};

function counting(mnemonics: Record<string, string>) {
  const calls: string[] = [];
  const open = async (walletId: string) => {
    calls.push(walletId);
    const m = mnemonics[walletId];
    if (!m) throw new Error('Wallet not found');
    return m;
  };
  return { calls, open };
}

describe('LocalSigner', () => {
  it('signs an EIP-1559 transaction that recovers to the derived address, with the fields asked for', async () => {
    const mnemonic = generateMnemonic();
    const signer = localSigner(counting({ w: mnemonic }).open);
    for (const index of [0, 1, 42]) {
      const { raw, hash } = await signer.signTransaction('w', index, 31337, tx);
      expect(hash).toBe(keccak256(raw as Hex));
      expect(await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerializedEIP1559 })).toBe(
        mnemonicToAccount(mnemonic, { addressIndex: index }).address,
      );
      expect(parseTransaction(raw as Hex)).toMatchObject({
        type: 'eip1559',
        chainId: 31337,
        to: tx.to.toLowerCase(),
        value: tx.value,
        data: tx.data,
        nonce: tx.nonce,
        gas: tx.gas,
        maxFeePerGas: tx.maxFeePerGas,
        maxPriorityFeePerGas: tx.maxPriorityFeePerGas,
      });
    }
  });

  it('matches the published address of the development mnemonic', async () => {
    const signer = localSigner(counting({ dev: DEV_MNEMONIC }).open);
    const { raw } = await signer.signTransaction('dev', 0, 1, tx);
    expect(await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerializedEIP1559 })).toBe(
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    );
  });

  it('opens the mnemonic and derives the account node once per wallet, even for concurrent first signatures', async () => {
    const { calls, open } = counting({ a: generateMnemonic(), b: generateMnemonic() });
    const signer = localSigner(open);
    await Promise.all(Array.from({ length: 20 }, (_, i) => signer.signTransaction('a', i, 31337, tx)));
    await signer.signTransaction('a', 3, 31337, tx);
    await signer.signTransaction('b', 0, 31337, tx);
    expect(calls).toEqual(['a', 'b']);
  });

  it('forgets a node after its TTL and the least recently used wallet beyond its size', async () => {
    let now = 1_000_000;
    const { calls, open } = counting({ a: generateMnemonic(), b: generateMnemonic(), c: generateMnemonic() });
    const signer = localSigner(open, { ttlMs: 60_000, maxWallets: 2, now: () => now });
    await signer.signTransaction('a', 0, 1, tx);
    now += 59_999;
    await signer.signTransaction('a', 0, 1, tx);
    expect(calls).toEqual(['a']);
    now += 1; // absolute TTL: use does not extend it
    await signer.signTransaction('a', 0, 1, tx);
    expect(calls).toEqual(['a', 'a']);
    await signer.signTransaction('b', 0, 1, tx);
    await signer.signTransaction('a', 0, 1, tx); // a is now the most recently used
    await signer.signTransaction('c', 0, 1, tx); // evicts b
    await signer.signTransaction('a', 0, 1, tx);
    await signer.signTransaction('b', 0, 1, tx);
    expect(calls).toEqual(['a', 'a', 'b', 'c', 'b']);
  });

  it('does not cache a failure to open the mnemonic', async () => {
    const mnemonics: Record<string, string> = {};
    const { calls, open } = counting(mnemonics);
    const signer = localSigner(open);
    await expect(signer.signTransaction('late', 0, 1, tx)).rejects.toThrow(/not found/);
    mnemonics.late = generateMnemonic();
    await expect(signer.signTransaction('late', 0, 1, tx)).resolves.toHaveProperty('raw');
    expect(calls).toEqual(['late', 'late']);
  });

  it('refuses to sign when the derived key is not the expected sender', async () => {
    const mnemonic = generateMnemonic();
    const signer = localSigner(counting({ w: mnemonic }).open);
    const from = mnemonicToAccount(mnemonic, { addressIndex: 2 }).address;
    await expect(signer.signTransaction('w', 2, 1, { ...tx, from: from.toLowerCase() })).resolves.toHaveProperty('hash');
    await expect(signer.signTransaction('w', 3, 1, { ...tx, from })).rejects.toThrow(/is not the sender/);
  });

  it('a sweep drops an expired entry and zeroes its keys (node, chain code, children)', async () => {
    let now = 1_000_000;
    const signer = localSigner(counting({ w: generateMnemonic() }).open, { ttlMs: 60_000, now: () => now });
    await signer.signTransaction('w', 0, 1, tx);
    await signer.signTransaction('w', 5, 1, tx);
    const held = signer.cachedSecrets('w')!;
    expect(held.length).toBe(4); // account key, chain code, two children
    expect(held.every((b) => b.some((x) => x !== 0))).toBe(true);
    now += 59_999;
    signer.sweep();
    expect(signer.cachedSecrets('w')).toBeDefined();
    expect(held.every((b) => b.some((x) => x !== 0))).toBe(true); // not yet expired: kept
    now += 1;
    signer.sweep();
    expect(signer.cachedSecrets('w')).toBeUndefined();
    expect(held.every((b) => b.every((x) => x === 0))).toBe(true);
    expect(signer.sweeping).toBe(false);
    // Used again, it derives afresh.
    await expect(signer.signTransaction('w', 0, 1, tx)).resolves.toHaveProperty('raw');
    signer.clear();
  });

  it("the sweeper runs by itself on an unref'd timer while the cache holds something", async () => {
    const signer = localSigner(counting({ w: generateMnemonic() }).open, { ttlMs: 300, sweepMs: 20 });
    await signer.signTransaction('w', 0, 1, tx);
    const held = signer.cachedSecrets('w')!;
    expect(held.length).toBe(3);
    expect(signer.sweeping).toBe(true);
    for (const deadline = Date.now() + 5_000; signer.cachedSecrets('w') !== undefined; await new Promise((r) => setTimeout(r, 10))) {
      if (Date.now() > deadline) throw new Error('the sweeper never dropped the expired entry');
    }
    expect(held.every((b) => b.every((x) => x === 0))).toBe(true);
    expect(signer.sweeping).toBe(false);
  });

  it('an evicted entry and a cleared cache are zeroed too; clear() stops the sweeper', async () => {
    const signer = localSigner(counting({ a: generateMnemonic(), b: generateMnemonic() }).open, { maxWallets: 1 });
    await signer.signTransaction('a', 1, 1, tx);
    const a = signer.cachedSecrets('a')!;
    await signer.signTransaction('b', 1, 1, tx); // evicts a
    expect(a.every((buf) => buf.every((x) => x === 0))).toBe(true);
    const b = signer.cachedSecrets('b')!;
    expect(signer.sweeping).toBe(true);
    signer.clear();
    expect(b.every((buf) => buf.every((x) => x === 0))).toBe(true);
    expect(signer.sweeping).toBe(false);
  });

  it('zeroes the decrypted mnemonic it was handed once the account node is derived', async () => {
    const handed: Buffer[] = [];
    const mnemonic = generateMnemonic();
    const signer = localSigner(async () => {
      const bytes = Buffer.alloc(Buffer.byteLength(mnemonic));
      bytes.write(mnemonic);
      handed.push(bytes);
      return bytes;
    });
    const { raw } = await signer.signTransaction('w', 3, 1, tx);
    expect(await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerializedEIP1559 })).toBe(
      mnemonicToAccount(mnemonic, { addressIndex: 3 }).address,
    );
    expect(handed).toHaveLength(1);
    expect(handed[0]!.every((x) => x === 0)).toBe(true);
    signer.clear();
  });
});
