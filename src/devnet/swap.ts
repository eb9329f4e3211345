/**
 * Puts a Uniswap V2 style AMM on a devnet chain (contracts/Swap.sol): factory and router
 * deployed by a dedicated deployer key as its first two transactions (so they sit at the
 * same addresses after any restart, like the tokens), and a pool of the chain's first two
 * test tokens seeded with deep liquidity by the faucet. Safe to run on every start.
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  getContractAddress,
  http,
  keccak256,
  parseEther,
  toHex,
  zeroAddress,
  type Address,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { loadArtifact } from './compile.js';
import { devnetChain, type DevnetAsset } from './chain.js';

/** Devnet only: a key anyone can derive, so never fund it anywhere else. */
export const SWAP_DEPLOYER_KEY: Hex = keccak256(toHex('stablecoin-wallet-service devnet swap deployer'));
/** Whole tokens on each side of the devnet pool: deep enough that settlement-sized swaps barely move it. */
export const POOL_DEPTH = 10_000_000n;

export interface ProvisionedSwap {
  router: Address;
  factory: Address;
  pair: Address;
}

export async function provisionDevnetSwap(opts: {
  rpcUrl: string;
  chainId: number;
  tokens: DevnetAsset[];
  faucetPrivateKey: Hex;
}): Promise<ProvisionedSwap> {
  const chain = devnetChain(opts.chainId, opts.rpcUrl);
  const transport = http(opts.rpcUrl);
  const pollingInterval = 100;
  const pub = createPublicClient({ chain, transport, pollingInterval });
  const test = createTestClient({ chain, transport, mode: 'anvil', pollingInterval });
  const deployer = privateKeyToAccount(SWAP_DEPLOYER_KEY);
  const asDeployer = createWalletClient({ chain, transport, account: deployer, pollingInterval });
  const asFaucet = createWalletClient({ chain, transport, account: privateKeyToAccount(opts.faucetPrivateKey), pollingInterval });
  const [factoryArt, routerArt, pairArt, tokenArt] = await Promise.all(
    ['SwapFactory', 'SwapRouter', 'SwapPair', 'TestToken'].map(loadArtifact),
  );
  const [tokenA, tokenB] = opts.tokens;
  if (!tokenA || !tokenB) throw new Error('devnet swap: needs two tokens');

  const factory = getContractAddress({ from: deployer.address, nonce: 0n });
  const router = getContractAddress({ from: deployer.address, nonce: 1n });
  const wait = async (hash: Hex) => {
    const r = await pub.waitForTransactionReceipt({ hash, timeout: 60_000 });
    if (r.status !== 'success') throw new Error(`devnet swap: transaction ${hash} reverted`);
  };

  if (!(await hasCode(pub, router))) {
    const nonce = await pub.getTransactionCount({ address: deployer.address, blockTag: 'pending' });
    if (nonce !== 0 && !(await hasCode(pub, factory)))
      throw new Error(
        `devnet swap: the deployer ${deployer.address} has sent ${nonce} transactions; delete the chain's state file to reset the devnet`,
      );
    await test.setBalance({ address: deployer.address, value: parseEther('10') });
    if (nonce === 0) await wait(await asDeployer.deployContract({ abi: factoryArt!.abi, bytecode: factoryArt!.bytecode, nonce: 0 }));
    await wait(
      await asDeployer.deployContract({ abi: routerArt!.abi, bytecode: routerArt!.bytecode, args: [factory, zeroAddress], nonce: 1 }),
    );
  }

  let pair = (await pub.readContract({
    address: factory,
    abi: factoryArt!.abi,
    functionName: 'getPair',
    args: [tokenA.address, tokenB.address],
  })) as Address;
  const liquid =
    pair !== zeroAddress && ((await pub.readContract({ address: pair, abi: pairArt!.abi, functionName: 'totalSupply' })) as bigint) > 0n;
  if (!liquid) {
    const amountA = POOL_DEPTH * 10n ** BigInt(tokenA.decimals);
    const amountB = POOL_DEPTH * 10n ** BigInt(tokenB.decimals);
    for (const [token, amount] of [
      [tokenA.address, amountA],
      [tokenB.address, amountB],
    ] as const)
      await wait(await asFaucet.writeContract({ address: token, abi: tokenArt!.abi, functionName: 'approve', args: [router, amount] }));
    await wait(
      await asFaucet.writeContract({
        address: router,
        abi: routerArt!.abi,
        functionName: 'addLiquidity',
        args: [tokenA.address, tokenB.address, amountA, amountB, asFaucet.account.address],
      }),
    );
    pair = (await pub.readContract({
      address: factory,
      abi: factoryArt!.abi,
      functionName: 'getPair',
      args: [tokenA.address, tokenB.address],
    })) as Address;
  }
  return { router, factory, pair };
}

async function hasCode(pub: ReturnType<typeof createPublicClient>, address: Address): Promise<boolean> {
  const code = await pub.getCode({ address });
  return !!code && code !== '0x';
}
