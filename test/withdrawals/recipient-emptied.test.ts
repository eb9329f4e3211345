/**
 * A token transfer's gas limit holds for a recipient that holds none of the token when it is
 * mined. Crediting an account that holds none writes a new storage slot (about 17,000 gas
 * more on EVM, twice the energy on Tron): a limit estimated while the recipient held some,
 * with its 20% margin, ran out of gas when the recipient spent all of it first (a busy
 * master's USDC drained by its payouts while a sweep to it is under way, a customer emptying
 * an account): FAILED, its gas burned. The family estimates the transfer to a recipient
 * holding none as well and signs for the larger.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, erc20Abi, http, parseEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { devnetChain } from '../../src/devnet/chain.js';
import { assetOf, chainOf, eventually, outboundOf, settledTx, startWorld, withdraw, type TestChain, type World } from './world.js';

let w: World;
let eth: TestChain;
const ETH = 'devnet-eth';

beforeAll(async () => {
  w = await startWorld({ specs: [DEVNET_CHAINS[0]!] });
  eth = chainOf(w.h, ETH);
});
afterAll(async () => {
  await eth?.rpc('evm_setAutomine', [true]).catch(() => undefined);
  await w?.stop();
});

describe('a token withdrawal to a recipient that empties its balance of the token first', () => {
  it('is mined: its gas limit covers crediting an account holding none', { timeout: 90_000 }, async () => {
    const usdc = assetOf(w.h, ETH, 'USDC');
    const recipient = privateKeyToAccount(generatePrivateKey());
    await eth.sendNative(recipient.address, '1');
    await eth.sendToken('USDC', recipient.address, '1');
    await eth.sendToken('USDC', w.h.wallets[ETH]!.address, '5');

    await eth.rpc('evm_setAutomine', [false]);
    const res = await withdraw(w.h, ETH, { assetId: usdc.id, address: recipient.address, amount: '5' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Signed and sent while the recipient still holds 1 USDC.
    await eventually(
      () => outboundOf(w.h, res.body.data.id),
      (rows) => rows[0]?.hash != null && rows[0]?.stage === 'broadcast',
      20_000,
    );
    // The recipient moves all of it away in the same block, ahead of the payout (a higher tip).
    const spender = createWalletClient({
      chain: devnetChain(eth.config.chainId, eth.config.rpcUrl),
      transport: http(eth.config.rpcUrl),
      account: recipient,
    });
    await spender.writeContract({
      address: usdc.address,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [privateKeyToAccount(generatePrivateKey()).address, 1_000_000n],
      maxPriorityFeePerGas: parseEther('0.0000001'),
      maxFeePerGas: parseEther('0.000001'),
    });
    await eth.mine();
    await eth.rpc('evm_setAutomine', [true]);
    await eth.mine(3);

    const done = await settledTx(w.h, ETH, res.body.data.id);
    expect({ status: done.status, reason: done.reason }).toEqual({ status: 'SUCCESS', reason: null });
    expect(
      await eth.pub.readContract({ address: usdc.address, abi: erc20Abi, functionName: 'balanceOf', args: [recipient.address as Address] }),
    ).toBe(5_000_000n);
  });
});
