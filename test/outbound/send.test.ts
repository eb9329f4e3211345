/**
 * The EVM adapter's sending half against a real anvil: idempotent broadcast, and each kind
 * of refusal classified (chains/evm/send.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestClient, http, keccak256, parseEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { startDevnet, DEVNET_CHAINS, type Devnet } from '../../src/devnet/devnet.js';
import { EvmAdapter } from '../../src/chains/evm/adapter.js';
import { createLogger } from '../../src/lib/logger.js';

let devnet: Devnet;
let adapter: EvmAdapter;
let usdc: string;
let sender: PrivateKeyAccount;

const chainId = DEVNET_CHAINS[0]!.chainId;
const other = () => privateKeyToAccount(generatePrivateKey()).address;
const sign = (
  nonce: number,
  value: bigint,
  fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint },
  who = sender,
  to: Address = other(),
) => who.signTransaction({ type: 'eip1559', chainId, to, value, nonce, gas: 21_000n, ...fees });
const test = () => createTestClient({ transport: http(adapter.config.rpcUrl), mode: 'anvil' });

async function rejection(p: Promise<unknown>): Promise<{ code: string; reason: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code: string; reason: string; message: string };
  }
  throw new Error('expected a rejection');
}

beforeAll(async () => {
  devnet = await startDevnet({ portBase: 0, blockTime: 0, logger: createLogger('silent'), specs: [DEVNET_CHAINS[0]!] });
  const chain = devnet.chains[0]!;
  adapter = new EvmAdapter(chain.config);
  usdc = chain.config.assets.find((a) => a.symbol === 'USDC')!.address;
  sender = privateKeyToAccount(generatePrivateKey());
  await test().setBalance({ address: sender.address, value: parseEther('10') });
});
afterAll(async () => {
  adapter?.close();
  await devnet?.stop();
});

describe('EVM sending', () => {
  it('nonces, fees and gas come from the chain', async () => {
    expect(await adapter.getNonce(sender.address, 'pending')).toBe(0);
    const fees = await adapter.estimateFees();
    expect(fees.maxFeePerGas).toBeGreaterThanOrEqual(fees.maxPriorityFeePerGas);
    expect(fees.maxPriorityFeePerGas).toBeGreaterThan(0n);
    expect(await adapter.estimateGas({ from: sender.address, to: other(), value: 1n })).toBe(21_000n);
    const data = adapter.encodeTokenTransfer(other(), 5n);
    expect(data.slice(0, 10)).toBe('0xa9059cbb'); // transfer(address,uint256)
  });

  it('broadcasting the same bytes again, pending or mined, returns the same hash', async () => {
    const fees = await adapter.estimateFees();
    await test().setAutomine(false);
    try {
      const raw = await sign(0, 1n, fees);
      const hash = keccak256(raw);
      expect(await adapter.broadcast(raw)).toBe(hash);
      expect(await adapter.broadcast(raw)).toBe(hash); // "transaction already imported"
      expect(await adapter.getReceipt(hash)).toBeNull();
      expect(await adapter.getNonce(sender.address, 'pending')).toBe(1);
      expect(await adapter.getNonce(sender.address, 'latest')).toBe(0);

      // A different transaction for the same nonce at the same fees is a real refusal.
      const underpriced = await rejection(adapter.broadcast(await sign(0, 2n, fees)));
      expect(underpriced).toMatchObject({ code: 'CHAIN_REJECTED', reason: 'replacement-underpriced' });
      expect(underpriced.message).toMatch(/underpriced/);

      await test().mine({ blocks: 1 });
      const receipt = await adapter.getReceipt(hash);
      expect(receipt).toMatchObject({ status: 'success', details: { gasUsed: '21000' } });
      expect(BigInt(receipt!.details.effectiveGasPrice!)).toBeGreaterThan(0n);
      expect(await adapter.broadcast(raw)).toBe(hash); // "nonce too low", but it is ours
    } finally {
      await test().setAutomine(true);
    }
  });

  it('a different transaction for a used nonce, missing funds and a fee cap below the base fee are refused as such', async () => {
    const fees = await adapter.estimateFees();
    expect(await rejection(adapter.broadcast(await sign(0, 3n, fees)))).toMatchObject({ code: 'CHAIN_REJECTED', reason: 'nonce-used' });
    const poor = privateKeyToAccount(generatePrivateKey());
    expect(await rejection(adapter.broadcast(await sign(0, 1n, fees, poor)))).toMatchObject({
      code: 'CHAIN_REJECTED',
      reason: 'insufficient-funds',
    });
    expect(await rejection(adapter.broadcast(await sign(1, 1n, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n })))).toMatchObject({
      code: 'CHAIN_REJECTED',
      reason: 'fee-too-low',
    });
  });

  it('gas estimation of a reverting call is refused as reverted', async () => {
    const data = adapter.encodeTokenTransfer(other(), 1n); // the sender holds no USDC
    expect(await rejection(adapter.estimateGas({ from: sender.address, to: usdc, value: 0n, data }))).toMatchObject({
      code: 'CHAIN_REJECTED',
      reason: 'reverted',
    });
  });

  it('an unknown hash has no receipt; an unreachable node is a retryable CHAIN_UNAVAILABLE, not a rejection', async () => {
    expect(await adapter.getReceipt(`0x${'11'.repeat(32)}`)).toBeNull();
    const dead = new EvmAdapter({ ...adapter.config, rpcUrl: 'http://127.0.0.1:1' });
    try {
      const raw = await sign(5, 1n, await adapter.estimateFees());
      expect(await rejection(dead.broadcast(raw))).toMatchObject({ code: 'CHAIN_UNAVAILABLE', retryable: true });
      expect(await rejection(dead.estimateGas({ from: sender.address, to: other(), value: 1n }))).toMatchObject({
        code: 'CHAIN_UNAVAILABLE',
      });
    } finally {
      dead.close();
    }
  });
});
