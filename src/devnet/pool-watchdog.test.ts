/**
 * The anvil pool watchdog against a real anvil. The stuck state anvil's race leaves behind
 * (a queued transaction whose nonce is the sender's mined count, nothing pending) is made on
 * purpose here: a transaction queued behind a gap, then the account's nonce moved past the
 * gap with anvil_setNonce, which anvil's pool does not notice either.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createLogger } from '../lib/logger.js';
import { startAnvil, type AnvilHandle } from './anvil.js';
import { ANVIL_DEFAULT_PRIVATE_KEY } from './chain.js';
import { startPoolWatchdog, type PoolWatchdog } from './pool-watchdog.js';

const CHAIN_ID = 31337;
let anvil: AnvilHandle;
let watchdog: PoolWatchdog;
const account = privateKeyToAccount(ANVIL_DEFAULT_PRIVATE_KEY as Hex);

beforeAll(async () => {
  anvil = await startAnvil({ chainId: CHAIN_ID, port: 0 });
  // A long interval: the test runs the checks itself.
  watchdog = startPoolWatchdog(anvil.rpcUrl, createLogger('silent'), 3_600_000);
});
afterAll(async () => {
  watchdog?.stop();
  await anvil?.stop();
});

const client = () => createPublicClient({ transport: http(anvil.rpcUrl) });
const sign = (nonce: number) =>
  account.signTransaction({
    chainId: CHAIN_ID,
    type: 'eip1559',
    to: account.address,
    value: 1n,
    nonce,
    gas: 21_000n,
    maxFeePerGas: 50_000_000_000n,
    maxPriorityFeePerGas: 1n,
  });
const status = async () => (await client().request({ method: 'txpool_status' as never })) as { pending: string; queued: string };

describe('pool watchdog', () => {
  it('sends again a queued transaction that nothing blocks any more, and anvil mines it', async () => {
    const c = client();
    const start = await c.getTransactionCount({ address: account.address });
    const hash = await c.request({ method: 'eth_sendRawTransaction', params: [await sign(start + 1)] });
    expect(await status()).toMatchObject({ pending: '0x0', queued: '0x1' });
    await c.request({ method: 'anvil_setNonce' as never, params: [account.address, `0x${(start + 1).toString(16)}`] as never });

    // Stuck: anvil alone never mines it.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await c.getTransactionCount({ address: account.address })).toBe(start + 1);
    expect(await status()).toMatchObject({ queued: '0x1' });

    expect(await watchdog.check()).toBe(0); // first sighting: only a suspect
    expect(await watchdog.check()).toBe(1);
    const receipt = await c.waitForTransactionReceipt({ hash, timeout: 5_000 });
    expect(receipt.status).toBe('success');
    expect(await c.getTransactionCount({ address: account.address })).toBe(start + 2);
    expect(await status()).toMatchObject({ pending: '0x0', queued: '0x0' });
  });

  it('leaves a real nonce gap alone', async () => {
    const c = client();
    const start = await c.getTransactionCount({ address: account.address });
    await c.request({ method: 'eth_sendRawTransaction', params: [await sign(start + 2)] });
    expect(await watchdog.check()).toBe(0);
    expect(await watchdog.check()).toBe(0);
    expect(await status()).toMatchObject({ queued: '0x1' });
    // Filling the gap lets anvil mine all three by itself.
    await c.request({ method: 'eth_sendRawTransaction', params: [await sign(start)] });
    await c.request({ method: 'eth_sendRawTransaction', params: [await sign(start + 1)] });
    for (let i = 0; i < 100 && (await c.getTransactionCount({ address: account.address })) < start + 3; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(await c.getTransactionCount({ address: account.address })).toBe(start + 3);
  });
});
