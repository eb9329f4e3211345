/**
 * `wallet faucet` on the devnets `npm start` runs, one per family: anvil (EVM), the Tron
 * stand-in and the Solana stand-in, each funded from the faucet credentials.json names, in
 * native coin and in a test token; the balances are read back from each chain's own API.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { base58 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_CHAINS, startDevnet, type Devnet, type DevnetChain } from '../../src/devnet/devnet.js';
import { fromBase58, toBase58 } from '../../src/devnet/tron/address.js';
import { createLogger } from '../../src/lib/logger.js';
import { waitUntil } from '../support/cli.js';
import { ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS, walletRun, writeCredentials } from '../support/sdk.js';
import { randomAddress } from '../withdrawals/world.js';

let devnet: Devnet;
let home: string;
let credentials: string;

const chain = (slug: string): DevnetChain => devnet.chains.find((c) => c.config.blockchain.slug === slug)!;
const token = (slug: string, symbol: string) => chain(slug).config.assets.find((a) => a.symbol === symbol && !a.isNative)!;
const post = async (url: string, body: unknown) =>
  (await (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json()) as any;
const rpc = async (slug: string, method: string, params: unknown[]) => {
  const answer = await post(chain(slug).config.rpcUrl, { jsonrpc: '2.0', id: 1, method, params });
  if (answer.error) throw new Error(JSON.stringify(answer.error));
  return answer.result;
};
const faucet = (args: string[]) =>
  walletRun(['faucet', ...args, '--credentials', credentials, '--json'], {
    PATH: process.env.PATH,
    HOME: home,
    WALLET_CONFIG: path.join(home, 'c.json'),
  });

beforeAll(ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS);
beforeAll(async () => {
  devnet = await startDevnet({
    portBase: 0,
    blockTime: 0,
    logger: createLogger('silent'),
    specs: [DEVNET_CHAINS[0]!],
    standIns: true,
  });
  home = mkdtempSync(path.join(os.tmpdir(), 'wallet-faucet-'));
  credentials = path.join(home, 'credentials.json');
  writeCredentials(credentials, { baseUrl: 'http://127.0.0.1:1', devnet });
}, 180_000);
afterAll(async () => {
  await devnet?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('wallet faucet', () => {
  it('EVM (anvil): ETH and USDC, mined before it returns', async () => {
    const to = randomAddress();
    const eth = await faucet([to, '--chain', 'devnet-eth', '--amount', '1.5']);
    expect(eth.code, eth.stderr).toBe(0);
    expect(JSON.parse(eth.stdout)).toMatchObject({ chain: 'devnet-eth', asset: 'ETH', amount: '1.5' });
    expect(BigInt(await rpc('devnet-eth', 'eth_getBalance', [to, 'latest']))).toBe(1_500_000_000_000_000_000n);
    const usdc = await faucet([to, '--chain', 'devnet-eth', '--asset', 'USDC', '--amount', '25.5']);
    expect(usdc.code, usdc.stderr).toBe(0);
    const data = `0x70a08231${to.slice(2).toLowerCase().padStart(64, '0')}`;
    expect(BigInt(await rpc('devnet-eth', 'eth_call', [{ to: token('devnet-eth', 'USDC').address, data }, 'latest']))).toBe(25_500_000n);
  });

  it('Tron (the stand-in): TRX and USDT', async () => {
    const to = toBase58(`41${randomBytes(20).toString('hex')}`);
    const base = chain('devnet-tron').config.rpcUrl;
    expect((await faucet([to, '--chain', 'devnet-tron', '--amount', '12'])).code).toBe(0);
    const usdt = await faucet([to, '--chain', 'devnet-tron', '--asset', 'USDT', '--amount', '3.25']);
    expect(usdt.code, usdt.stderr).toBe(0);
    expect(JSON.parse(usdt.stdout).transactions).toHaveLength(1);
    await waitUntil(
      'the TRX to land',
      async () => (await post(`${base}/wallet/getaccount`, { address: to, visible: true })).balance === 12_000_000,
      30_000,
    );
    const usdtAddress = token('devnet-tron', 'USDT').address;
    await waitUntil(
      'the USDT to land',
      async () => {
        const res = await post(`${base}/wallet/triggerconstantcontract`, {
          owner_address: to,
          contract_address: usdtAddress,
          function_selector: 'balanceOf(address)',
          parameter: `${'0'.repeat(24)}${fromBase58(to).slice(2)}`,
          visible: true,
        });
        return BigInt(`0x${res.constant_result?.[0] || '0'}`) === 3_250_000n;
      },
      30_000,
    );
  });

  it('Solana (the stand-in): SOL and USDC', async () => {
    const to = base58.encode(randomBytes(32));
    expect((await faucet([to, '--chain', 'devnet-solana', '--amount', '2'])).code).toBe(0);
    const usdc = await faucet([to, '--chain', 'devnet-solana', '--asset', 'USDC', '--amount', '7']);
    expect(usdc.code, usdc.stderr).toBe(0);
    await waitUntil(
      'the SOL to land',
      async () => (await rpc('devnet-solana', 'getBalance', [to, { commitment: 'confirmed' }])).value === 2_000_000_000,
      30_000,
    );
    const mint = token('devnet-solana', 'USDC').address;
    await waitUntil(
      'the USDC to land',
      async () => {
        const res = await rpc('devnet-solana', 'getTokenAccountsByOwner', [
          to,
          { mint },
          { encoding: 'jsonParsed', commitment: 'confirmed' },
        ]);
        return res.value[0]?.account.data.parsed.info.tokenAmount.amount === '7000000';
      },
      30_000,
    );
  });

  it('refuses what a devnet does not have, with a usage error', async () => {
    expect((await faucet([randomAddress(), '--chain', 'devnet-nope'])).code).toBe(2);
    expect((await faucet([randomAddress(), '--chain', 'devnet-eth', '--asset', 'DAI'])).code).toBe(2);
    expect((await faucet([randomAddress(), '--chain', 'devnet-eth', '--amount', '1.1234567890123456789'])).code).toBe(2);
    expect((await faucet(['not-an-address', '--chain', 'devnet-eth'])).code).toBe(2);
  });
});
