/**
 * Test-side chain operations on the harness devnets: faucet transfers, mining, snapshots.
 * These act as the outside world (customers sending money), not as the service.
 */
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetChain } from '../../src/devnet/chain.js';
import type { Harness } from './harness.js';

/** anvil's well-known dev account 1 (funded on every devnet). */
const DEV_ACCOUNT_1: Hex = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';

export function chainOf(h: Harness, slug: string) {
  const chain = h.devnet.chains.find((c) => c.config.blockchain.slug === slug);
  if (!chain) throw new Error(`no devnet ${slug}`);
  const viemChain = devnetChain(chain.config.chainId, chain.config.rpcUrl);
  const account = privateKeyToAccount(chain.faucet.privateKey as Hex);
  const pub = createPublicClient({ chain: viemChain, transport: http(chain.config.rpcUrl) });
  const wallet = createWalletClient({ chain: viemChain, transport: http(chain.config.rpcUrl), account });
  const token = (symbol: string) => {
    const asset = chain.config.assets.find((a) => a.symbol === symbol && !a.isNative);
    if (!asset) throw new Error(`no ${symbol} on ${slug}`);
    return asset;
  };
  const rpc = <T = unknown>(method: string, params: unknown[] = []) =>
    pub.request({ method: method as never, params: params as never }) as Promise<T>;
  return {
    config: chain.config,
    pub,
    wallet,
    faucet: account.address,
    token,
    rpc,
    /** Sends `amount` (decimal string) of a token from the faucet; resolves when mined. */
    async sendToken(symbol: string, to: string, amount: string) {
      const t = token(symbol);
      const hash = await wallet.writeContract({
        address: t.address as Address,
        abi: erc20Abi,
        functionName: 'transfer',
        args: [to as Address, parseUnits(amount, t.decimals)],
      });
      return pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    },
    async sendNative(to: string, amount: string) {
      const hash = await wallet.sendTransaction({ to: to as Address, value: parseUnits(amount, 18) });
      return pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    },
    /** A signed token transfer not yet sent, to send (and re-send after a reorg) raw. */
    async signTokenTransfer(symbol: string, to: string, amount: string): Promise<Hex> {
      const t = token(symbol);
      const request = await wallet.prepareTransactionRequest({
        to: t.address as Address,
        data: (await import('viem')).encodeFunctionData({
          abi: erc20Abi,
          functionName: 'transfer',
          args: [to as Address, parseUnits(amount, t.decimals)],
        }),
        gas: 100_000n,
      });
      return wallet.signTransaction(request as never);
    },
    async sendRaw(raw: Hex) {
      const hash = await rpc<Hex>('eth_sendRawTransaction', [raw]);
      return pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    },
    /** A transaction from another dev account, so a branch differs without touching the faucet's nonces. */
    async sendFiller() {
      const other = createWalletClient({
        chain: viemChain,
        transport: http(chain.config.rpcUrl),
        account: privateKeyToAccount(DEV_ACCOUNT_1),
      });
      const hash = await other.sendTransaction({ to: other.account.address, value: 1n });
      return pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    },
    mine: (blocks = 1) => rpc('anvil_mine', [`0x${blocks.toString(16)}`]),
    snapshot: () => rpc<string>('evm_snapshot'),
    revert: (id: string) => rpc<boolean>('evm_revert', [id]),
    blockNumber: () => pub.getBlockNumber({ cacheTime: 0 }),
    balanceOf: (symbol: string, owner: string) =>
      pub.readContract({ address: token(symbol).address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [owner as Address] }),
  };
}

export type TestChain = ReturnType<typeof chainOf>;
