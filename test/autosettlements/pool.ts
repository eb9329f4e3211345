/**
 * Moves the devnet USDC/USDT pool: the faucet sells 100,000 USDC for USDT, so a swap
 * quoted before now can no longer meet its bound (tests of swaps that revert on chain).
 */
import { maxUint256, parseAbi, type Address } from 'viem';
import type { TestChain } from '../support/chain.js';

const ROUTER_ABI = parseAbi([
  'function approve(address, uint256) returns (bool)',
  'function swapExactTokensForTokens(uint256, uint256, address[], address, uint256) returns (uint256[])',
]);

export async function movePool(chain: TestChain): Promise<void> {
  const router = chain.config.swapRouter as Address;
  const usdc = chain.token('USDC').address as Address;
  const usdt = chain.token('USDT').address as Address;
  const amount = 100_000n * 10n ** BigInt(chain.token('USDC').decimals);
  await chain.pub.waitForTransactionReceipt({
    hash: await chain.wallet.writeContract({ address: usdc, abi: ROUTER_ABI, functionName: 'approve', args: [router, maxUint256] }),
  });
  await chain.pub.waitForTransactionReceipt({
    hash: await chain.wallet.writeContract({
      address: router,
      abi: ROUTER_ABI,
      functionName: 'swapExactTokensForTokens',
      args: [amount, 0n, [usdc, usdt], chain.faucet as Address, BigInt(Math.floor(Date.now() / 1000) + 600)],
    }),
  });
}
