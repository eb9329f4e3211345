import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { checksumLower } from './scan.js';

describe('checksumLower', () => {
  it('writes the EIP-55 form viem writes, for 5,000 random addresses and the edge cases', () => {
    const samples = [
      '0x0000000000000000000000000000000000000000',
      '0xffffffffffffffffffffffffffffffffffffffff',
      '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      ...Array.from({ length: 5_000 }, () => `0x${randomBytes(20).toString('hex')}`),
    ];
    for (const lower of samples) expect(checksumLower(lower)).toBe(getAddress(lower));
  });
});

describe('keccak-256 of the runtime', () => {
  it('is the keccak-256 @noble computes (checksumLower uses node:crypto where OpenSSL has it)', async () => {
    const { getHashes, hash } = await import('node:crypto');
    const { keccak_256 } = await import('@noble/hashes/sha3');
    if (!getHashes().includes('keccak-256')) return; // the @noble fallback is then what checksumLower runs
    for (let i = 0; i < 200; i++) {
      const text = randomBytes(20).toString('hex');
      expect(hash('keccak-256', text, 'hex')).toBe(Buffer.from(keccak_256(new TextEncoder().encode(text))).toString('hex'));
    }
  });
});

describe('the scan and the deposit finder read a transaction alike', () => {
  const TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';
  const TO = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8';
  const FROM = '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266';
  const TX = `0x${'ab'.repeat(32)}` as const;
  const BLOCK = `0x${'cd'.repeat(32)}` as const;
  const word = (address: string) => `0x${address.slice(2).padStart(64, '0')}`;
  const TRANSFER = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef';

  /** A node holding one mined transaction: a Transfer log of `topics` (plus a 4th when given) and a native value. */
  function node(opts: { extraTopic?: boolean; value?: bigint } = {}) {
    const asked: { method: string; hash: string }[] = [];
    const topics = [TRANSFER, word(FROM), word(TO), ...(opts.extraTopic ? [word(FROM)] : [])];
    const log = { address: TOKEN, topics, data: `0x${5n.toString(16).padStart(64, '0')}`, logIndex: 3, removed: false };
    const client = {
      getTransactionReceipt: async ({ hash }: { hash: string }) => {
        asked.push({ method: 'receipt', hash });
        return { status: 'success', transactionHash: TX, blockNumber: 7n, blockHash: BLOCK, logs: [log] };
      },
      getTransaction: async ({ hash }: { hash: string }) => {
        asked.push({ method: 'transaction', hash });
        if (!hash.startsWith('0x')) throw new Error('invalid argument 0: hex string without 0x prefix');
        return { hash: TX, from: getAddress(FROM), to: getAddress(TO), value: opts.value ?? 0n };
      },
    };
    return { client: client as unknown as import('viem').PublicClient, asked };
  }

  it('the finder asks the node for a hash given without 0x with its 0x, for its native value too', async () => {
    const { transfersOfTransaction } = await import('./scan.js');
    const { client, asked } = node({ value: 9n });
    const found = await transfersOfTransaction(client, TX.slice(2), [TOKEN], () => true);
    expect(asked.map((a) => a.hash)).toEqual([TX, TX]);
    expect(found.map((t) => [t.token, t.amount, t.logIndex])).toEqual([
      [getAddress(TOKEN), 5n, 3],
      [null, 9n, -1],
    ]);
    expect(found[0]).toMatchObject({ from: getAddress(FROM), to: getAddress(TO), block: { number: 7n, hash: BLOCK } });
  });

  it('a Transfer log the scan takes for a deposit (a 4th topic beside a value word) is one the finder takes too', async () => {
    const { decodeTransferLog, transfersOfTransaction } = await import('./scan.js');
    const { client } = node({ extraTopic: true });
    const found = await transfersOfTransaction(client, TX, [TOKEN], () => true);
    const rpcLog = {
      address: TOKEN,
      topics: [TRANSFER, word(FROM), word(TO), word(FROM)],
      data: `0x${5n.toString(16).padStart(64, '0')}`,
      blockHash: BLOCK,
      blockNumber: '0x7',
      transactionHash: TX,
      logIndex: '0x3',
      removed: false,
    };
    const scanned = decodeTransferLog(rpcLog as unknown as import('viem').RpcLog);
    expect(scanned).not.toBeNull();
    expect(found).toHaveLength(1);
    expect(found[0]!.amount).toBe(scanned!.amount);
  });
});

describe('the scan of native transfers', () => {
  it("reads again (ChainMovedError) when a transfer's receipt is from another branch than its block", async () => {
    const { scanRange, ChainMovedError } = await import('./scan.js');
    const to = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
    const hash = `0x${'11'.repeat(32)}`;
    const block = { number: 5n, hash: `0x${'aa'.repeat(32)}`, parentHash: `0x${'00'.repeat(32)}`, timestamp: 1n };
    const client = {
      request: async () => [],
      getBlock: async () => ({ ...block, transactions: [{ hash, from: to, to, value: 1n }] }),
      getTransactionReceipt: async () => ({ status: 'success', blockHash: `0x${'bb'.repeat(32)}` }),
    } as unknown as import('viem').PublicClient;
    await expect(scanRange(client, 5n, 5n, [], () => true)).rejects.toBeInstanceOf(ChainMovedError);
  });
});
