// startDevnet's templates (what test worlds use): a chain started from a template is the
// chain that was provisioned, to a client, and independent of it afterwards.
import { createPublicClient, createWalletClient, http, parseAbi, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../lib/logger.js';
import { devnetChain } from './chain.js';
import { DEVNET_CHAINS, startDevnet, type Devnet, type DevnetTemplates } from './devnet.js';

const erc20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
]);
const spec = DEVNET_CHAINS[0]!;
const started: Devnet[] = [];
const start = async (templates: DevnetTemplates) => {
  const d = await startDevnet({ portBase: 0, blockTime: 0, logger: createLogger('silent'), specs: [spec], templates });
  started.push(d);
  return d.chains[0]!;
};
const client = (rpcUrl: string) => createPublicClient({ chain: devnetChain(spec.chainId, rpcUrl), transport: http(rpcUrl) });
const token = (chain: { config: { assets: { isNative: boolean; address: string }[] } }) =>
  chain.config.assets.find((a) => !a.isNative)!.address as Address;

const rpc = async (rpcUrl: string, method: string, params: unknown[] = []) =>
  (
    (await (
      await fetch(rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      })
    ).json()) as { result: unknown }
  ).result;
async function send(chain: Awaited<ReturnType<typeof start>>, to: Address, amount: bigint): Promise<void> {
  const wallet = createWalletClient({
    chain: devnetChain(spec.chainId, chain.config.rpcUrl),
    transport: http(chain.config.rpcUrl),
    account: privateKeyToAccount(chain.faucet.privateKey as `0x${string}`),
  });
  const hash = await wallet.writeContract({ address: token(chain), abi: erc20, functionName: 'transfer', args: [to, amount] });
  expect((await client(chain.config.rpcUrl).waitForTransactionReceipt({ hash })).status).toBe('success');
}

afterAll(async () => {
  await Promise.all(started.map((d) => d.stop()));
});

describe('devnet templates', { timeout: 60_000 }, () => {
  it('start a provisioned chain again from its state: same contracts, balances, blocks and logs; then each goes its own way', async () => {
    const templates: DevnetTemplates = new Map();
    const first = await start(templates);
    expect(templates.size).toBe(1);
    // Marks the template: a transfer made after it was taken, folded into its state, must be
    // on the next chain (a chain provisioned afresh would not have it).
    const marked = privateKeyToAccount(generatePrivateKey()).address;
    await send(first, marked, 7n);
    const [key, template] = [...templates][0]!;
    templates.set(key, { ...template, state: (await rpc(first.config.rpcUrl, 'anvil_dumpState')) as string });
    const second = await start(templates);
    expect(second.config.rpcUrl).not.toBe(first.config.rpcUrl);
    expect({ ...second.config, rpcUrl: '' }).toEqual({ ...first.config, rpcUrl: '' });
    expect(second.faucet).toEqual(first.faucet);

    const [a, b] = [client(first.config.rpcUrl), client(second.config.rpcUrl)];
    const usdc = token(first);
    const balance = (c: typeof a, who: Address) => c.readContract({ address: usdc, abi: erc20, functionName: 'balanceOf', args: [who] });
    expect(await balance(b, marked)).toBe(7n);
    const faucet = first.faucet.address as Address;
    const head = await a.getBlockNumber();
    expect(await b.getBlockNumber()).toBe(head);
    expect((await b.getBlock({ blockNumber: head })).hash).toBe((await a.getBlock({ blockNumber: head })).hash);
    expect(await b.getBytecode({ address: usdc })).toBe(await a.getBytecode({ address: usdc }));
    expect(await b.getTransactionCount({ address: faucet })).toBe(await a.getTransactionCount({ address: faucet }));
    expect(await balance(b, faucet)).toBe(await balance(a, faucet));
    // The deployment's logs, which an indexer reading from block 0 sees.
    const logs = (c: typeof a) => c.getLogs({ address: usdc, fromBlock: 0n, toBlock: head });
    expect((await logs(b)).map((l) => [l.blockHash, l.logIndex, l.data])).toEqual(
      (await logs(a)).map((l) => [l.blockHash, l.logIndex, l.data]),
    );
    expect((await logs(b)).length).toBeGreaterThan(0);

    // A transfer on the second chain moves nothing on the first.
    const to = privateKeyToAccount(generatePrivateKey()).address;
    await send(second, to, 5n);
    expect(await balance(b, to)).toBe(5n);
    expect(await balance(a, to)).toBe(0n);
    expect(await a.getBlockNumber()).toBe(head);

    // A third start is the template as it was, not the second chain as it is now.
    const third = await start(templates);
    expect(await balance(client(third.config.rpcUrl), to)).toBe(0n);
  });
});
