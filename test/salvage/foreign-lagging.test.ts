/**
 * A recovery on a chain named by rpcUrl left PENDING with its hash (its request ended before
 * the receipt came), settled by the next recovery of the sender there (foreign.ts
 * settleEarlier). The next request may reach the chain through another URL, or one behind a
 * load balancer, and the node that answers its receipt look-up need not have the block the
 * nonce count was read at (a backend a block behind, a node still indexing its transactions,
 * one that keeps no index that far back): no receipt for a transfer that was mined, while the
 * sender's mined nonce count is past it. That was taken as "its nonce was used by another
 * transaction": the recovery ended FAILED ("nothing was sent", salvage.failed) while its
 * recipient held the funds, and a client recovering again on that word paid twice.
 *
 * A missing receipt is no proof: a recovery ends FAILED by its nonce only when another
 * recorded recovery of the sender signed with that nonce is mined (its receipt found).
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { createPublicClient, http, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type AnvilHandle } from '../../src/devnet/anvil.js';
import type { ChainAdapter } from '../../src/chains/types.js';
import { ChainRejectedError } from '../../src/chains/errors.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let foreign: AnvilHandle;
const stopped: (() => void)[] = [];
const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  h = await startHarness({});
  foreign = await startAnvil({ chainId: 31_997, port: 0 });
}, 90_000);
afterAll(async () => {
  for (const stop of stopped) stop();
  await foreign?.stop();
  await h?.stop();
});

async function rowOf(reference: string) {
  const { rows } = await sql<{ id: string; status: string; hash: string | null; nonce: string | null; reason: string | null }>`
    SELECT id, status, hash, nonce, reason FROM transactions WHERE wallet_id = ${wallet().id} AND reference = ${reference}`.execute(
    h.database.db,
  );
  return rows[0]!;
}

async function eventsOf(id: string) {
  const { rows } = await sql<{ name: string }>`SELECT name FROM events WHERE transaction_id = ${id} ORDER BY created_at`.execute(
    h.database.db,
  );
  return rows.map((r) => r.name);
}

describe('an earlier foreign-chain recovery that landed, looked at through a node without its receipt', () => {
  it('is not ended FAILED by its nonce alone; a node that has its receipt settles it SUCCESS', async () => {
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const c = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    expect(c.status).toBe(200);
    const sender = c.body.data.address as string;
    await fetch(foreign.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [sender, '0xDE0B6B3A7640000'] }),
    });
    const pub = createPublicClient({ transport: http(foreign.rpcUrl) });
    const body = (to: string, reference: string) => ({
      senderAddress: sender,
      recipientAddress: to,
      amount: '0.1',
      blockchainId: chain.row.blockchain_id,
      rpcUrl: foreign.rpcUrl,
      reference,
    });
    const caps = chain.adapter.capabilities.foreignChains!;
    const open = caps.open.bind(caps);

    // The first request's transfer reaches the chain (anvil mines it at once), and the request
    // ends before it reads the receipt (its process stopped after the broadcast).
    const never = <T>() =>
      new Promise<T>((_resolve, reject) => stopped.push(() => reject(new ChainRejectedError('refused', 'process stopped'))));
    let opens = vi.spyOn(caps, 'open').mockImplementation(async (url, lookup) => {
      const adapter = (await open(url, lookup)) as ChainAdapter;
      const send = adapter.broadcast.bind(adapter);
      adapter.broadcast = async (raw) => {
        await send(raw);
        return never();
      };
      return adapter;
    });
    const first = fresh();
    const dying = h.api('POST', `${base()}/salvage`, { body: body(first, 'lag-1') });
    for (let i = 0; i < 400 && stopped.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toHaveLength(1);
    opens.mockRestore();
    expect(await pub.getBalance({ address: first as Address })).toBe(10n ** 17n);
    const landed = await rowOf('lag-1');
    expect([landed.status, landed.nonce]).toEqual(['PENDING', '0']);
    await sql`UPDATE foreign_salvage_claims SET expires_at = now() - interval '1 second' WHERE chain_id = 31997`.execute(h.database.db);

    // The next recovery goes through a node that answers the sender's nonce count but has no
    // receipt for the first transfer (a backend a block behind, a node still indexing).
    opens = vi.spyOn(caps, 'open').mockImplementation(async (url, lookup) => {
      const adapter = (await open(url, lookup)) as ChainAdapter;
      const receipt = adapter.getReceipt.bind(adapter);
      adapter.getReceipt = async (hash) => (hash === landed.hash ? null : receipt(hash));
      return adapter;
    });
    const second = fresh();
    let res;
    try {
      res = await h.api('POST', `${base()}/salvage`, { body: body(second, 'lag-2') });
    } finally {
      opens.mockRestore();
    }
    expect([res.status, res.body.data?.status], JSON.stringify(res.body)).toEqual([200, 'SUCCESS']);

    // The first transfer paid its recipient: its record must not say FAILED, nothing sent.
    const after = await rowOf('lag-1');
    expect([after.status, after.reason], 'a landed recovery ended FAILED').toEqual(['PENDING', null]);
    expect(await eventsOf(after.id)).toEqual([]);

    // A node that has its receipt settles it as it landed.
    const third = await h.api('POST', `${base()}/salvage`, { body: body(fresh(), 'lag-3') });
    expect([third.status, third.body.data?.status], JSON.stringify(third.body)).toEqual([200, 'SUCCESS']);
    expect((await rowOf('lag-1')).status).toBe('SUCCESS');
    expect(await eventsOf(after.id)).toEqual(['salvage.success']);

    for (const stop of stopped.splice(0)) stop();
    await dying.catch(() => undefined);
    expect((await rowOf('lag-1')).status).toBe('SUCCESS');
  });
});
