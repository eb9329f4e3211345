// Against real anvil processes: the devnet is the thing under test, so nothing is mocked.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPublicClient, createWalletClient, http, parseAbi, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilHandle } from './anvil.js';
import { ANVIL_DEFAULT_PRIVATE_KEY, MULTICALL3_ADDRESS, devnetChain, provisionDevnetChain, type ProvisionedDevnetChain } from './chain.js';
import { loadArtifact } from './compile.js';

const CHAIN_ID = 31337;
const TOKENS = [
  { symbol: 'USDC', name: 'USD Coin', decimals: 6 },
  { symbol: 'USDT', name: 'Tether USD', decimals: 6 },
];
const MINTED = 1_000_000_000n * 10n ** 6n;
const erc20 = parseAbi([
  'function balanceOf(address) view returns (uint256)',
  'function totalSupply() view returns (uint256)',
  'function transfer(address to, uint256 value) returns (bool)',
]);
const multicallAbi = parseAbi([
  'function getEthBalance(address) view returns (uint256)',
  'function getBlockNumber() view returns (uint256)',
]);

const dir = mkdtempSync(path.join(tmpdir(), 'devnet-test-'));
const handles: AnvilHandle[] = [];
async function anvil(opts: Partial<Parameters<typeof startAnvil>[0]> = {}): Promise<AnvilHandle> {
  const h = await startAnvil({ chainId: CHAIN_ID, port: 0, ...opts });
  handles.push(h);
  return h;
}
const provision = (rpcUrl: string) =>
  provisionDevnetChain({ rpcUrl, chainId: CHAIN_ID, tokens: TOKENS, faucetPrivateKey: ANVIL_DEFAULT_PRIVATE_KEY });
const client = (rpcUrl: string) => createPublicClient({ chain: devnetChain(CHAIN_ID, rpcUrl), transport: http(rpcUrl) });
const balanceOf = (rpcUrl: string, token: Address, who: Address) =>
  client(rpcUrl).readContract({ address: token, abi: erc20, functionName: 'balanceOf', args: [who] });

const orphans: number[] = [];
afterAll(async () => {
  await Promise.all(handles.map((h) => h.stop()));
  // Only reached when the reclaim test failed before reclaiming its orphan.
  for (const pid of orphans) if (isRunning(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('devnet chain', { timeout: 15_000 }, () => {
  let node: AnvilHandle;
  let chain: ProvisionedDevnetChain;

  beforeAll(async () => {
    await loadArtifact('TestToken'); // compiles once if the cache is cold
    node = await anvil();
    chain = await provision(node.rpcUrl);
  }, 30_000);

  it('mints the configured supply to the faucet', async () => {
    expect(chain.assets.map((a) => [a.symbol, a.decimals])).toEqual([
      ['USDC', 6],
      ['USDT', 6],
    ]);
    expect(chain.faucet.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    for (const a of chain.assets) expect(await balanceOf(node.rpcUrl, a.address, chain.faucet.address)).toBe(MINTED);
  });

  it('moves exactly the transferred amount', async () => {
    const [usdc] = chain.assets;
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const wallet = createWalletClient({
      chain: devnetChain(CHAIN_ID, node.rpcUrl),
      transport: http(node.rpcUrl),
      account: privateKeyToAccount(chain.faucet.privateKey),
    });
    const before = await balanceOf(node.rpcUrl, usdc!.address, chain.faucet.address);
    const hash = await wallet.writeContract({ address: usdc!.address, abi: erc20, functionName: 'transfer', args: [to, 1_234_567n] });
    expect((await client(node.rpcUrl).waitForTransactionReceipt({ hash })).status).toBe('success');
    expect(await balanceOf(node.rpcUrl, usdc!.address, to)).toBe(1_234_567n);
    expect(await balanceOf(node.rpcUrl, usdc!.address, chain.faucet.address)).toBe(before - 1_234_567n);
  });

  it('serves viem multicall from the canonical Multicall3 address', async () => {
    expect(chain.multicall3).toBe(MULTICALL3_ADDRESS);
    const pub = client(node.rpcUrl);
    const results = await pub.multicall({
      allowFailure: false,
      contracts: [
        ...chain.assets.map((a) => ({
          address: a.address,
          abi: erc20,
          functionName: 'balanceOf' as const,
          args: [chain.faucet.address] as const,
        })),
        { address: MULTICALL3_ADDRESS, abi: multicallAbi, functionName: 'getEthBalance', args: [chain.faucet.address] },
        { address: MULTICALL3_ADDRESS, abi: multicallAbi, functionName: 'getBlockNumber' },
      ],
    });
    for (const [i, a] of chain.assets.entries()) expect(results[i]).toBe(await balanceOf(node.rpcUrl, a.address, chain.faucet.address));
    expect(results[2]).toBe(await pub.getBalance({ address: chain.faucet.address }));
    expect(results[3]).toBe(await pub.getBlockNumber());
    const failing = await pub.multicall({
      contracts: [{ address: chain.assets[0]!.address, abi: multicallAbi, functionName: 'getBlockNumber' }],
    });
    expect(failing[0]!.status).toBe('failure');
  });

  it('is idempotent: same addresses, no second mint, no new transactions', async () => {
    const pub = client(node.rpcUrl);
    const nonce = await pub.getTransactionCount({ address: chain.faucet.address });
    const again = await provision(node.rpcUrl);
    expect(again.assets).toEqual(chain.assets);
    expect(await pub.getTransactionCount({ address: chain.faucet.address })).toBe(nonce);
    for (const a of again.assets) {
      expect(await pub.readContract({ address: a.address, abi: erc20, functionName: 'totalSupply' })).toBe(MINTED);
    }
  });

  it('re-creates tokens at the same addresses on a chain that lost its state', async () => {
    const fresh = await anvil();
    expect((await provision(fresh.rpcUrl)).assets).toEqual(chain.assets);
  });

  it('refuses a mint from anyone but the deployer', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    await expect(
      client(node.rpcUrl).simulateContract({
        account: stranger,
        address: chain.assets[0]!.address,
        abi: parseAbi(['function mint(address,uint256)', 'error UnauthorizedMinter(address caller)']),
        functionName: 'mint',
        args: [stranger.address, 1n],
      }),
    ).rejects.toThrow(/UnauthorizedMinter/);
  });
});

describe('anvil lifecycle', { timeout: 15_000 }, () => {
  it('keeps balances and code across a stop and a start with a state file', async () => {
    const stateFile = path.join(dir, 'persist', 'state.json');
    const first = await anvil({ stateFile });
    const { assets, faucet } = await provision(first.rpcUrl);
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    await client(first.rpcUrl).request({ method: 'anvil_setBalance' as never, params: [holder, '0x2a'] as never });
    await first.stop();
    expect(existsSync(stateFile)).toBe(true);

    const second = await anvil({ stateFile });
    const pub = client(second.rpcUrl);
    for (const a of assets) {
      expect(await pub.getCode({ address: a.address })).toMatch(/^0x[0-9a-f]{100,}$/);
      expect(await balanceOf(second.rpcUrl, a.address, faucet.address)).toBe(MINTED);
    }
    expect(await pub.getBalance({ address: holder })).toBe(42n);
    expect(await pub.getCode({ address: MULTICALL3_ADDRESS })).toBe((await loadArtifact('Multicall3')).deployedBytecode);
    expect((await provision(second.rpcUrl)).assets).toEqual(assets);
    await second.stop();

    // anvil rewrites the file in place; a kill mid-dump leaves it torn. The copy taken when it
    // last loaded brings the chain back.
    writeFileSync(stateFile, readFileSync(stateFile, 'utf8').slice(0, 100));
    const third = await anvil({ stateFile });
    expect(await client(third.rpcUrl).getBalance({ address: holder })).toBe(42n);
    expect(await balanceOf(third.rpcUrl, assets[0]!.address, faucet.address)).toBe(MINTED);
  });

  it('reclaims an anvil orphaned by a SIGKILLed parent, keeping its state', async () => {
    const pidFile = path.join(dir, 'orphan', 'anvil.pid');
    const stateFile = path.join(dir, 'orphan', 'state.json');
    const { port, pid: orphanPid } = await startOrphan(pidFile, stateFile);
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(orphanPid));
    const holder = privateKeyToAccount(generatePrivateKey()).address;
    await client(`http://127.0.0.1:${port}`).request({ method: 'anvil_setBalance' as never, params: [holder, '0x7'] as never });

    const next = await anvil({ port, pidFile, stateFile });
    expect(next.port).toBe(port);
    expect(isRunning(orphanPid)).toBe(false);
    expect(readFileSync(pidFile, 'utf8').trim()).toBe(String(next.pid));
    // The orphan dumped its state on SIGTERM, so nothing done after its last interval dump is lost.
    expect(await client(next.rpcUrl).getBalance({ address: holder })).toBe(7n);
    await next.stop();
    expect(existsSync(pidFile)).toBe(false);
  });

  it('names the port when something else holds it', async () => {
    const blocker = net.createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const port = (blocker.address() as net.AddressInfo).port;
    try {
      await expect(anvil({ port })).rejects.toThrow(new RegExp(`port ${port}\\b.*in use`));
    } finally {
      blocker.close();
    }
  });
});

// A zombie (exited, not yet reaped by init) still answers kill(pid, 0).
function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

// Runs startAnvil in a separate Node process and SIGKILLs that process, which is exactly what
// a crashed `npm start` leaves behind: a live anvil and a pid file.
async function startOrphan(pidFile: string, stateFile: string): Promise<{ port: number; pid: number }> {
  const script = path.join(dir, 'orphan-parent.mts');
  const anvilUrl = new URL('./anvil.ts', import.meta.url).href;
  writeFileSync(
    script,
    `import { startAnvil } from ${JSON.stringify(anvilUrl)};
const h = await startAnvil({ chainId: ${CHAIN_ID}, port: 0, pidFile: ${JSON.stringify(pidFile)}, stateFile: ${JSON.stringify(stateFile)} });
console.log(JSON.stringify({ port: h.port, pid: h.pid }));
setInterval(() => {}, 1000);
`,
  );
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const parent = spawn(process.execPath, ['--import', tsx, script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    parent.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    parent.once('exit', (code) => reject(new Error(`orphan parent exited early (${code})`)));
  });
  const exited = new Promise((r) => parent.once('exit', r));
  parent.kill('SIGKILL');
  await exited;
  const orphan = JSON.parse(line) as { port: number; pid: number };
  orphans.push(orphan.pid);
  return orphan;
}
