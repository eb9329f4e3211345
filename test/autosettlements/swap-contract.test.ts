/**
 * The swap arithmetic and the router adapter against the real contracts on a devnet: the
 * service's constant-product formula equals the router's getAmountsOut, NO_SLIPPAGE's
 * "exact quote or nothing" holds on chain, and with two routes the order picks between them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, getAddress, http, maxUint256, parseAbi, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startDevnet, DEVNET_CHAINS, type Devnet } from '../../src/devnet/devnet.js';
import { devnetChain } from '../../src/devnet/chain.js';
import { loadArtifact } from '../../src/devnet/compile.js';
import { createLogger } from '../../src/lib/logger.js';
import { EvmAdapter } from '../../src/chains/evm/adapter.js';
import type { SwapProvider } from '../../src/chains/types.js';
import { amountOut, chooseRoute } from '../../src/modules/swaps/quote.js';
import { SWAP_ROUTERS } from '../../src/chains/evm/swap-routers.js';

let devnet: Devnet;
let provider: SwapProvider;
let adapter: EvmAdapter;
let pub: ReturnType<typeof createPublicClient>;
let faucet: ReturnType<typeof createWalletClient>;
let usdc: Address;
let usdt: Address;
const abi = parseAbi([
  'function getPair(address, address) view returns (address)',
  'function factory() view returns (address)',
  'function getReserves() view returns (uint112, uint112, uint32)',
  'function token0() view returns (address)',
  'function getAmountsOut(uint256, address[]) view returns (uint256[])',
  'function approve(address, uint256) returns (bool)',
  'function balanceOf(address) view returns (uint256)',
  'function mint(address, uint256)',
]);

beforeAll(async () => {
  devnet = await startDevnet({ portBase: 0, blockTime: 0, logger: createLogger('silent'), specs: [DEVNET_CHAINS[0]!] });
  const chain = devnet.chains[0]!;
  adapter = new EvmAdapter(chain.config);
  provider = adapter.capabilities.swaps!;
  const viemChain = devnetChain(chain.config.chainId, chain.config.rpcUrl);
  pub = createPublicClient({ chain: viemChain, transport: http(chain.config.rpcUrl), pollingInterval: 50 });
  faucet = createWalletClient({
    chain: viemChain,
    transport: http(chain.config.rpcUrl),
    account: privateKeyToAccount(chain.faucet.privateKey as Hex),
    pollingInterval: 50,
  });
  usdc = chain.config.assets.find((a) => a.symbol === 'USDC')!.address as Address;
  usdt = chain.config.assets.find((a) => a.symbol === 'USDT')!.address as Address;
}, 60_000);
afterAll(async () => {
  adapter?.close();
  await devnet?.stop();
});

async function mined(hash: Hex) {
  return pub.waitForTransactionReceipt({ hash });
}

describe('the devnet pool', () => {
  it("the service's formula equals the router's getAmountsOut", async () => {
    const router = provider.spender as Address;
    const factory = await pub.readContract({ address: router, abi, functionName: 'factory' });
    const pair = await pub.readContract({ address: factory, abi, functionName: 'getPair', args: [usdc, usdt] });
    const [r0, r1] = await pub.readContract({ address: pair, abi, functionName: 'getReserves' });
    const token0 = await pub.readContract({ address: pair, abi, functionName: 'token0' });
    const [rIn, rOut] = getAddress(token0) === getAddress(usdc) ? [r0, r1] : [r1, r0];
    for (const amount of [1n, 999n, 10n ** 6n, 123_456_789n, 10n ** 12n, 5n * 10n ** 12n]) {
      const amounts = await pub.readContract({ address: router, abi, functionName: 'getAmountsOut', args: [amount, [usdc, usdt]] });
      expect(amountOut(amount, rIn, rOut)).toBe(amounts[1]);
    }
    const [quote] = await provider.quote(usdc, usdt, 10n ** 8n);
    expect(quote!.path).toEqual([getAddress(usdc), getAddress(usdt)]);
    expect(quote!.amountOut).toBe(amountOut(10n ** 8n, rIn, rOut));
    expect(quote!.midAmountOut).toBe((10n ** 8n * rOut) / rIn);
  });

  it('a swap bounded by its exact quote executes at the quote; one unit more reverts', async () => {
    const me = faucet.account!.address;
    const amountIn = 250n * 10n ** 6n;
    await mined(
      await faucet.writeContract({
        address: usdc,
        abi,
        functionName: 'approve',
        args: [provider.spender as Address, maxUint256],
        chain: null,
        account: faucet.account!,
      }),
    );
    const [quote] = await provider.quote(usdc, usdt, amountIn);
    const deadline = BigInt(Math.floor(Date.now() / 1000) + 600);
    const tooMuch = provider.swapCall({ path: quote!.path, amountIn, amountOutMin: quote!.amountOut + 1n, recipient: me, deadline });
    await expect(pub.call({ account: me, to: tooMuch.to as Address, data: tooMuch.data as Hex })).rejects.toThrow();

    const before = await pub.readContract({ address: usdt, abi, functionName: 'balanceOf', args: [me] });
    const exact = provider.swapCall({ path: quote!.path, amountIn, amountOutMin: quote!.amountOut, recipient: me, deadline });
    const receipt = await mined(
      await faucet.sendTransaction({ to: exact.to as Address, data: exact.data as Hex, chain: null, account: faucet.account! }),
    );
    expect(receipt.status).toBe('success');
    const after = await pub.readContract({ address: usdt, abi, functionName: 'balanceOf', args: [me] });
    expect(after - before).toBe(quote!.amountOut);
    expect(await provider.outputOf(receipt.transactionHash, usdt, me)).toBe(quote!.amountOut);
  });
});

describe('two routes', () => {
  it('a router with a wrapped native coin quotes the direct route and the one through it; the order picks', async () => {
    const [token, factoryArt, routerArt] = await Promise.all(['TestToken', 'SwapFactory', 'SwapRouter'].map(loadArtifact));
    const deploy = async (art: typeof token, args: unknown[]) => {
      const hash = await faucet.deployContract({ abi: art!.abi, bytecode: art!.bytecode, args, chain: null, account: faucet.account! });
      return (await mined(hash)).contractAddress!;
    };
    const me = faucet.account!.address;
    const weth = await deploy(token, ['Wrapped Ether (devnet)', 'WETH', 18]);
    await mined(
      await faucet.writeContract({
        address: weth,
        abi,
        functionName: 'mint',
        args: [me, 10n ** 30n],
        chain: null,
        account: faucet.account!,
      }),
    );
    const factory = await deploy(factoryArt, []);
    const router = await deploy(routerArt, [factory, weth]);
    for (const t of [usdc, usdt, weth])
      await mined(
        await faucet.writeContract({
          address: t,
          abi,
          functionName: 'approve',
          args: [router, maxUint256],
          chain: null,
          account: faucet.account!,
        }),
      );
    const add = parseAbi(['function addLiquidity(address, address, uint256, uint256, address) returns (uint256)']);
    const liquidity = async (a: Address, b: Address, x: bigint, y: bigint) =>
      mined(
        await faucet.writeContract({
          address: router,
          abi: add,
          functionName: 'addLiquidity',
          args: [a, b, x, y, me],
          chain: null,
          account: faucet.account!,
        }),
      );
    // A thin direct pool and deep pools through WETH: the long way gives more.
    await liquidity(usdc, usdt, 1_000n * 10n ** 6n, 1_000n * 10n ** 6n);
    await liquidity(usdc, weth, 1_000_000n * 10n ** 6n, 500n * 10n ** 18n);
    await liquidity(weth, usdt, 500n * 10n ** 18n, 1_000_000n * 10n ** 6n);

    const two = new EvmAdapter({ ...devnet.chains[0]!.config, swapRouter: router }).capabilities.swaps!;
    const quotes = await two.quote(usdc, usdt, 100n * 10n ** 6n);
    expect(quotes.map((q) => q.path.length).sort()).toEqual([2, 3]);
    const direct = quotes.find((q) => q.path.length === 2)!;
    const via = quotes.find((q) => q.path.length === 3)!;
    expect(via.amountOut).toBeGreaterThan(direct.amountOut);
    expect(chooseRoute(quotes, 'FASTEST', () => null)).toBe(direct);
    expect(chooseRoute(quotes, 'RECOMMENDED', () => null)).toBe(via);
    // CHEAPEST values the extra hop's gas in USDT through the WETH pool.
    const gasValue = await two.nativeValueIn(usdt, 90_000n * 10n ** 9n);
    expect(gasValue).toBeGreaterThan(0n);
  });
});

describe('catalogue routers', () => {
  it('are EIP-55 checksummed', () => {
    for (const networks of Object.values(SWAP_ROUTERS))
      for (const address of Object.values(networks)) expect(getAddress(address!)).toBe(address);
  });
});
