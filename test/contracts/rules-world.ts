/**
 * What the contract-rules tests share: one devnet chain with the worker, a fresh wallet per
 * test (its own whitelist, settings and balances), and readers of what was written.
 */
import { expect } from 'vitest';
import { sql } from 'kysely';
import { encodeFunctionData, erc20Abi, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type ApiResponse, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { ABI, call } from './support.js';

export const ETH = 'devnet-eth';
export const randomAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

export function startRulesHarness(): Promise<Harness> {
  return startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200, waitRetryMs: 200 } },
  });
}

export interface Wallet {
  id: string;
  apiKey: string;
  address: Address;
}

/** A new wallet of the test business with 10 ETH for gas and `usdc` USDC at its master. */
export async function freshWallet(h: Harness, usdc = '100'): Promise<Wallet> {
  const { wallet, apiKey } = await h.services.wallets.createForBusiness(h.businessId, {
    blockchain: ETH,
    network: 'testnet',
    name: 'Rules',
  });
  const chain = chainOf(h, ETH);
  await setEth(chain, wallet.address, 10n ** 19n);
  if (usdc !== '0') await chain.sendToken('USDC', wallet.address, usdc);
  return { id: wallet.id, apiKey, address: wallet.address as Address };
}

export const setEth = (chain: TestChain, address: string, wei: bigint) => chain.rpc('anvil_setBalance', [address, `0x${wei.toString(16)}`]);

export async function child(h: Harness, w: Wallet): Promise<{ id: string; address: Address }> {
  const res = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: { disableAutoSweep: true } });
  expect(res.status).toBe(200);
  await setEth(chainOf(h, ETH), res.body.data.address, 10n ** 19n);
  return res.body.data;
}

export async function whitelist(h: Harness, w: Wallet, address: string): Promise<void> {
  const res = await h.api('POST', `/v1/wallets/${w.id}/beneficiaries`, {
    key: w.apiKey,
    body: { name: `B ${address.slice(2, 8)}`, address, isWhitelisted: true },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

export function write(h: Harness, w: Wallet, calls: unknown[], opts: { addressId?: string; sign?: boolean; key?: string } = {}) {
  const base = opts.addressId ? `/v1/wallets/${w.id}/addresses/${opts.addressId}/contracts` : `/v1/wallets/${w.id}/contracts`;
  return h.api('POST', `${base}/${opts.sign ? 'write/sign' : 'write'}`, { key: opts.key ?? w.apiKey, body: { calls } });
}

export function withdraw(h: Harness, w: Wallet, address: string, amount: string): Promise<ApiResponse> {
  const usdc = h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
  return h.api('POST', `/v1/wallets/${w.id}/withdraw`, { key: w.apiKey, body: { assetId: usdc.id, address, amount } });
}

export const usdcOf = (h: Harness) => chainOf(h, ETH).token('USDC').address as Address;
/** USDC has 6 decimals on devnet-eth. */
export const units = (usdc: number) => (BigInt(usdc) * 1_000_000n).toString();

export const transfer = (h: Harness, to: string, usdc: number) => call(usdcOf(h), 'transfer', [to, units(usdc)]);
export const approve = (h: Harness, spender: string, usdc: number) => call(usdcOf(h), 'approve', [spender, units(usdc)]);
export const increaseAllowance = (h: Harness, spender: string, usdc: number) =>
  call(usdcOf(h), 'increaseAllowance', [spender, units(usdc)]);
export const transferFrom = (h: Harness, from: string, to: string, usdc: number) =>
  call(usdcOf(h), 'transferFrom', [from, to, units(usdc)]);

/** Waits until the transaction has left PENDING and returns it. */
export async function settled(h: Harness, w: Wallet, id: string, status = 'SUCCESS') {
  const t = await eventually(
    async () => (await h.api('GET', `/v1/wallets/${w.id}/transactions/${id}`, { key: w.apiKey })).body.data,
    (t) => t?.status !== 'PENDING',
    30_000,
  );
  expect(t.status, JSON.stringify(t.response)).toBe(status);
  return t;
}

/** The wallet's Transactions and outbound rows: a refused request must leave both as they were. */
export async function written(h: Harness, w: Wallet): Promise<{ transactions: number; outbound: number; moves: number }> {
  const { rows } = await sql<{ t: string; o: string; m: string }>`
    SELECT (SELECT count(*) FROM transactions WHERE wallet_id = ${w.id}) AS t,
           (SELECT count(*) FROM outbound_txs WHERE wallet_id = ${w.id}) AS o,
           (SELECT count(*) FROM contract_moves m JOIN transactions t ON t.id = m.transaction_id WHERE t.wallet_id = ${w.id}) AS m`.execute(
    h.database.db,
  );
  return { transactions: Number(rows[0]!.t), outbound: Number(rows[0]!.o), moves: Number(rows[0]!.m) };
}

export function expectRefused(res: ApiResponse, status: number, code: string): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ statusCode: status, error: code });
}

/** A transaction from `from` without its key (anvil impersonation): the outside world, or a key used elsewhere. */
export async function sendAs(chain: TestChain, from: string, to: string, data: Hex): Promise<void> {
  await chain.rpc('anvil_impersonateAccount', [from]);
  const hash = await chain.rpc<Hex>('eth_sendTransaction', [{ from, to, data }]);
  await chain.rpc('anvil_stopImpersonatingAccount', [from]);
  const receipt = await chain.pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
  expect(receipt.status).toBe('success');
}

export const erc20 = (fn: 'approve' | 'transferFrom' | 'transfer', args: unknown[]) =>
  encodeFunctionData({ abi: erc20Abi, functionName: fn, args: args as never });

export { ABI, chainOf, type Harness, type TestChain };
