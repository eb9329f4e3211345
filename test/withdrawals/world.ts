/**
 * What the withdrawal tests share: a harness with a worker and fast outbound polling, a
 * webhook receiver, API shortcuts, and counts of everything a request could write.
 */
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Address, Hash } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { DevnetChainSpec } from '../../src/devnet/devnet.js';
import type { OutboundOptions } from '../../src/modules/outbound/service.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type ApiResponse, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

export interface World {
  h: Harness;
  receiver: Receiver;
  stop(): Promise<void>;
}

export const FAST: OutboundOptions = { firstTrackDelayMs: 50, maxTrackDelayMs: 200 };

export async function startWorld(opts: { specs?: DevnetChainSpec[]; outbound?: OutboundOptions; worker?: boolean } = {}): Promise<World> {
  const h = await startHarness({
    ...(opts.specs ? { specs: opts.specs } : {}),
    worker: opts.worker ?? true,
    services: { outbound: { ...FAST, ...opts.outbound } },
  });
  const receiver = await startReceiver();
  for (const w of Object.values(h.wallets)) {
    const res = await h.api('PATCH', `/v1/wallets/${w.id}`, { key: w.apiKey, body: { webhookUrl: receiver.url } });
    expect(res.status).toBe(200);
  }
  return {
    h,
    receiver,
    async stop() {
      await receiver.close();
      await h.stop();
    },
  };
}

export const randomAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

export function assetOf(h: Harness, slug: string, symbol: string) {
  const chain = h.services.catalogue.findChain(slug, 'testnet')!;
  const asset = chain.assets.find((a) => a.symbol === symbol)!;
  return { id: asset.id, address: asset.address as Address, decimals: asset.decimals, native: asset.is_native };
}

/** Turns the native coin on for the wallet (wallets start with their tokens only). */
export async function enableNative(h: Harness, slug: string): Promise<string> {
  const w = h.wallets[slug]!;
  const chain = h.services.catalogue.findChain(slug, 'testnet')!;
  const native = chain.assets.find((a) => a.is_native)!;
  const res = await h.api('PATCH', `/v1/wallets/${w.id}/assets/${native.id}`, { key: w.apiKey, body: { isActive: true } });
  expect(res.status).toBe(200);
  return native.id;
}

export async function newChild(h: Harness, slug: string): Promise<{ id: string; address: Address }> {
  const w = h.wallets[slug]!;
  const res = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: { disableAutoSweep: true } });
  expect(res.status).toBe(200);
  return res.body.data;
}

export function withdraw(
  h: Harness,
  slug: string,
  body: unknown,
  opts: { addressId?: string; sign?: boolean; fee?: boolean; headers?: Record<string, string> } = {},
): Promise<ApiResponse> {
  const w = h.wallets[slug]!;
  const base = opts.addressId ? `/v1/wallets/${w.id}/addresses/${opts.addressId}/withdraw` : `/v1/wallets/${w.id}/withdraw`;
  const path = opts.sign ? `${base}/sign` : opts.fee ? `${base}/network-fee` : base;
  return h.api('POST', path, { key: w.apiKey, body, ...(opts.headers ? { headers: opts.headers } : {}) });
}

export function txAction(h: Harness, slug: string, action: 'cancel' | 'retry', id: string): Promise<ApiResponse> {
  const w = h.wallets[slug]!;
  return h.api('POST', `/v1/wallets/${w.id}/transactions/${action}`, { key: w.apiKey, body: { id } });
}

export async function getTx(h: Harness, slug: string, id: string): Promise<Record<string, any>> {
  const w = h.wallets[slug]!;
  const res = await h.api('GET', `/v1/wallets/${w.id}/transactions/${id}`, { key: w.apiKey });
  expect(res.status).toBe(200);
  return res.body.data;
}

/**
 * Waits until the transaction leaves PENDING (or reaches `status`). A wait in vain says
 * where the pipeline stands (pipelineState), so a failure on CI explains itself.
 */
export async function settledTx(h: Harness, slug: string, id: string, status?: string, timeoutMs = 30_000): Promise<Record<string, any>> {
  let last: Record<string, any> | undefined;
  try {
    return await eventually(
      async () => (last = await getTx(h, slug, id)),
      (t) => (status ? t.status === status : t.status !== 'PENDING'),
      timeoutMs,
    );
  } catch (err) {
    const seen = last ? `status ${last.status}, hash ${last.hash}, sender ${last.senderAddress}` : 'never read';
    throw new Error(`transaction ${id} not ${status ?? 'settled'} within ${timeoutMs} ms (${seen}); ${await pipelineState(h)}`, {
      cause: err,
    });
  }
}

/** Unsettled outbound rows, queued jobs, busy database sessions and the nodes' view of the senders. */
export async function pipelineState(h: Harness): Promise<string> {
  const db = h.database.db;
  try {
    const rows = (
      await sql<{ from_address: string; nonce: string }>`
        SELECT from_address, nonce, stage, purpose, attempts, error, updated_at FROM outbound_txs
         WHERE stage IN ('created', 'signed', 'broadcast') ORDER BY from_address, nonce LIMIT 12`.execute(db)
    ).rows;
    const jobs = (
      await sql`SELECT task_identifier, attempts, last_error, run_at, locked_at, key FROM graphile_worker.jobs
                 ORDER BY locked_at NULLS LAST, run_at LIMIT 12`.execute(db)
    ).rows;
    const sessions = (
      await sql`SELECT pid, state, wait_event_type, wait_event, left(query, 160) AS query, now() - xact_start AS age
                  FROM pg_stat_activity WHERE datname = current_database() AND state <> 'idle' AND pid <> pg_backend_pid()`.execute(db)
    ).rows;
    const nodes: Record<string, unknown> = {};
    for (const slug of Object.keys(h.wallets)) {
      const c = chainOf(h, slug);
      const senders = [...new Set(rows.map((r) => r.from_address))];
      nodes[slug] = {
        pool: await c.pub.request({ method: 'txpool_status' as never }).catch((e: Error) => e.message),
        senders: await Promise.all(
          senders.map(async (a) => ({
            a,
            latest: await c.pub.getTransactionCount({ address: a as Address }),
            pending: await c.pub.getTransactionCount({ address: a as Address, blockTag: 'pending' }),
          })),
        ),
      };
    }
    return `pipeline: ${JSON.stringify({ rows, jobs, sessions, nodes }, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`;
  } catch (err) {
    return `pipeline state unreadable: ${(err as Error).message}`;
  }
}

/** Every row a withdrawal request could write. */
export async function counts(h: Harness): Promise<Record<string, number>> {
  const { rows } = await sql<{ t: string; o: string; k: string; e: string; n: string }>`
    SELECT (SELECT count(*) FROM transactions) AS t, (SELECT count(*) FROM outbound_txs) AS o,
           (SELECT count(*) FROM idempotency_keys) AS k, (SELECT count(*) FROM events) AS e,
           (SELECT coalesce(sum(next_nonce), 0) FROM nonces) AS n`.execute(h.database.db);
  const r = rows[0]!;
  return { transactions: Number(r.t), outbound: Number(r.o), idempotencyKeys: Number(r.k), events: Number(r.e), nonces: Number(r.n) };
}

/** Verified webhook events about one transaction, in arrival order. */
export function eventsOf(w: World, slug: string, transactionId: string): { event: string; data: Record<string, any> }[] {
  const apiKey = w.h.wallets[slug]!.apiKey;
  return w.receiver.requests
    .filter((r) => r.body.includes(transactionId))
    .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey, replay: false }))
    .filter((e) => e.data.id === transactionId)
    .map((e) => ({ event: e.event, data: e.data }));
}

export function waitForEvent(w: World, slug: string, transactionId: string, event: string, timeoutMs = 20_000) {
  return eventually(
    async () => eventsOf(w, slug, transactionId),
    (list) => list.some((e) => e.event === event),
    timeoutMs,
  );
}

/** Outbound rows of a withdrawal (its attempts, replacements and cancellations). */
export async function outboundOf(h: Harness, transactionId: string) {
  const { rows } = await sql<{
    id: string;
    stage: string;
    purpose: string;
    nonce: string;
    hash: string | null;
    to_address: string;
    value: string;
    max_fee_per_gas: string | null;
    max_priority_fee_per_gas: string | null;
    replaced_by: string | null;
  }>`SELECT id, stage, purpose, nonce, hash, to_address, value, network_data->>'maxFeePerGas' AS max_fee_per_gas,
            network_data->>'maxPriorityFeePerGas' AS max_priority_fee_per_gas, replaced_by
       FROM outbound_txs WHERE owner_id = ${transactionId} ORDER BY created_at, id`.execute(h.database.db);
  return rows;
}

export async function receiptOf(chain: TestChain, hash: string) {
  return chain.pub.getTransactionReceipt({ hash: hash as Hash });
}

export { chainOf, eventually, type Harness, type TestChain };
