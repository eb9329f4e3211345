/**
 * What the policy tests share: one devnet chain, a worker, a hand-moved clock (set to the
 * real time, so only approval expiry is moved by hand), a webhook receiver, keys with the
 * MANAGE_POLICIES and APPROVE grants the operator gives, and a funded wallet per test (rules
 * are scoped to it, so tests do not see each other's rules).
 */
import { sql } from 'kysely';
import { expect } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { ManualClock } from '../../src/lib/clock.js';
import type { ApiKeyScope, AuthContext } from '../../src/modules/apikeys/service.js';
import { startHarness, type ApiResponse, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { FAST } from '../withdrawals/world.js';

export const ETH = 'devnet-eth';

export interface Key {
  id: string;
  apiKey: string;
}

export interface PolicyWorld {
  h: Harness;
  eth: TestChain;
  clock: ManualClock;
  receiver: Receiver;
  /** A business key with MANAGE_POLICIES. */
  manager: Key;
  /** Business keys with APPROVE. */
  approvers: [Key, Key, Key];
  usdc: { id: string; decimals: number };
  stop(): Promise<void>;
}

const OPERATOR_AUTH = (businessId: string): AuthContext => ({ keyId: 'cli:operator', businessId, walletId: null, operator: true });

export async function mintKey(h: Harness, name: string, scopes: ApiKeyScope[]): Promise<Key> {
  const k = await h.services.apiKeys.createBusinessKey(OPERATOR_AUTH(h.businessId), { name, scopes });
  return { id: k.id, apiKey: k.apiKey };
}

export async function startPolicyWorld(): Promise<PolicyWorld> {
  const clock = new ManualClock(Date.now());
  const h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    clock,
    services: { outbound: FAST, rates: { pegFallback: true, cacheMs: 0 } },
  });
  const receiver = await startReceiver();
  const manager = await mintKey(h, 'policy manager', ['MANAGE_POLICIES']);
  const approvers = [
    await mintKey(h, 'approver 1', ['APPROVE']),
    await mintKey(h, 'approver 2', ['APPROVE']),
    await mintKey(h, 'approver 3', ['APPROVE']),
  ] as [Key, Key, Key];
  const asset = h.services.catalogue.findChain(ETH, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
  return {
    h,
    eth: chainOf(h, ETH),
    clock,
    receiver,
    manager,
    approvers,
    usdc: { id: asset.id, decimals: asset.decimals },
    async stop() {
      await receiver.close();
      await h.stop();
    },
  };
}

export interface TestWallet {
  id: string;
  apiKey: string;
  address: string;
}

/** A wallet of the business with gas and `usdc` USDC on its master, webhooks to the receiver. */
export async function fundedWallet(w: PolicyWorld, name: string, usdc = '1000'): Promise<TestWallet> {
  const { wallet, apiKey } = await w.h.services.wallets.createForBusiness(w.h.businessId, { blockchain: ETH, network: 'testnet', name });
  await w.eth.rpc('anvil_setBalance', [wallet.address, '0x56BC75E2D63100000']);
  if (usdc !== '0') await w.eth.sendToken('USDC', wallet.address, usdc);
  const res = await w.h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: apiKey, body: { webhookUrl: w.receiver.url } });
  expect(res.status).toBe(200);
  return { id: wallet.id, apiKey, address: wallet.address };
}

export async function policy(w: PolicyWorld, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await w.h.api('POST', '/v1/policies', { key: w.manager.apiKey, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data;
}

export function withdraw(w: PolicyWorld, wallet: TestWallet, body: unknown, opts: { key?: string; addressId?: string } = {}) {
  const base = opts.addressId ? `/v1/wallets/${wallet.id}/addresses/${opts.addressId}/withdraw` : `/v1/wallets/${wallet.id}/withdraw`;
  return w.h.api('POST', base, { key: opts.key ?? wallet.apiKey, body });
}

export function vote(
  w: PolicyWorld,
  key: Key | string,
  id: string,
  decision: 'approve' | 'reject',
  comment?: string,
): Promise<ApiResponse> {
  return w.h.api('POST', `/v1/approvals/${id}/${decision}`, {
    key: typeof key === 'string' ? key : key.apiKey,
    body: comment ? { comment } : {},
  });
}

export async function getTx(w: PolicyWorld, wallet: TestWallet, id: string): Promise<Record<string, any>> {
  const res = await w.h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey });
  expect(res.status).toBe(200);
  return res.body.data;
}

export function waitStatus(w: PolicyWorld, wallet: TestWallet, id: string, status: string, timeoutMs = 30_000) {
  return eventually(
    () => getTx(w, wallet, id),
    (t) => t.status === status,
    timeoutMs,
  );
}

/** Rows a request could have written for a wallet: transactions, outbound rows, approvals. */
export async function footprint(w: PolicyWorld, walletId: string): Promise<{ transactions: number; outbound: number; approvals: number }> {
  const { rows } = await sql<{ t: string; o: string; a: string }>`
    SELECT (SELECT count(*) FROM transactions WHERE wallet_id = ${walletId})::text AS t,
           (SELECT count(*) FROM outbound_txs WHERE wallet_id = ${walletId})::text AS o,
           (SELECT count(*) FROM approvals WHERE wallet_id = ${walletId})::text AS a`.execute(w.h.database.db);
  return { transactions: Number(rows[0]!.t), outbound: Number(rows[0]!.o), approvals: Number(rows[0]!.a) };
}

/** The events the receiver got for a transaction, in order. */
export function eventsOf(w: PolicyWorld, transactionId: string): string[] {
  return w.receiver.requests
    .map((r) => JSON.parse(r.body) as { event: string; data: { id: string } })
    .filter((b) => b.data?.id === transactionId)
    .map((b) => b.event);
}
