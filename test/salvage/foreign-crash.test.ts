/**
 * A recovery on a chain named by rpcUrl whose request dies between recording the transfer
 * and broadcasting it (the process killed, its claim on the sender left to expire). Nothing
 * follows a foreign chain and the URL is not kept, so the row was left PENDING for ever: with
 * no hash at all when the crash came before the hash was written (it was written in its own
 * statement after the recording COMMIT), and still PENDING after a later recovery of the same
 * sender on that chain took the nonce it was signed with, so that it can never land. Its
 * `reference` stayed taken (409 REFERENCE_IN_USE) for a transfer that was never sent.
 *
 * The crash is simulated in-process: every write after the recording transaction (the hash
 * written alone, the broadcast) never returns, as in a process that stopped there; its claim
 * is then expired, as a dead holder's is.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { createPublicClient, http, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startAnvil, type AnvilHandle } from '../../src/devnet/anvil.js';
import type { ChainAdapter } from '../../src/chains/types.js';
import { UpstreamError } from '../../src/lib/errors.js';
import { ChainRejectedError } from '../../src/chains/errors.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
let foreign: AnvilHandle;
/** The stopped request's pending writes: rejected at the end, so that the harness can stop. */
const stopped: (() => void)[] = [];
const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const fresh = () => privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  h = await startHarness({});
  foreign = await startAnvil({ chainId: 31_998, port: 0 });
}, 90_000);
afterAll(async () => {
  for (const stop of stopped) stop();
  await foreign?.stop();
  await h?.stop();
});

async function oneEtherOnForeign(address: string) {
  await fetch(foreign.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'anvil_setBalance', params: [address, '0xDE0B6B3A7640000'] }),
  });
}

async function rowOf(reference: string) {
  const { rows } = await sql<{ id: string; status: string; hash: string | null; nonce: string | null; reason: string | null }>`
    SELECT id, status, hash, nonce, reason FROM transactions WHERE wallet_id = ${wallet().id} AND reference = ${reference}`.execute(
    h.database.db,
  );
  return rows[0];
}

describe('a recovery on a chain named by rpcUrl whose process dies after recording it, before the broadcast', () => {
  it('keeps the hash it was signed with, and the next recovery of the sender on that chain settles it FAILED', async () => {
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const blockchainId = chain.row.blockchain_id;
    const sender = wallet().address;
    await oneEtherOnForeign(sender);
    const pub = createPublicClient({ transport: http(foreign.rpcUrl) });
    const body = (to: string, reference: string) => ({
      senderAddress: sender,
      recipientAddress: to,
      amount: '0.1',
      blockchainId,
      rpcUrl: foreign.rpcUrl,
      reference,
    });

    // The process "stops" after its recording COMMIT: what it writes or sends afterwards never returns.
    // Let go at the end as a refusal, so that the stopped request ends without sending anything.
    const never = <T>() =>
      new Promise<T>((_resolve, reject) => stopped.push(() => reject(new ChainRejectedError('refused', 'process stopped'))));
    const caps = chain.adapter.capabilities.foreignChains!;
    const open = caps.open.bind(caps);
    const opens = vi.spyOn(caps, 'open').mockImplementation(async (url, lookup) => {
      const adapter = (await open(url, lookup)) as ChainAdapter;
      adapter.broadcast = () => never();
      return adapter;
    });
    const transactions = h.services.transactions;
    const record = transactions.recordSigned.bind(transactions);
    const records = vi
      .spyOn(transactions, 'recordSigned')
      .mockImplementation((db, id, s, only) => (db === h.database.db ? never() : record(db, id, s, only)));

    const first = fresh();
    const dying = h.api('POST', `${base()}/salvage`, { body: body(first, 'crash-1') });
    // Recorded (committed), then the process stopped.
    for (let i = 0; i < 400 && stopped.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(stopped).toHaveLength(1);
    opens.mockRestore();
    records.mockRestore();
    const recorded = (await rowOf('crash-1'))!;
    expect(recorded.status).toBe('PENDING');
    // What the docs promise of a recovery left PENDING: its hash, to be looked up on that chain.
    expect(recorded.hash, 'the hash is recorded with the row').not.toBeNull();
    expect(recorded.nonce).toBe('0');
    // The dead process's claim expires.
    await sql`UPDATE foreign_salvage_claims SET expires_at = now() - interval '1 second' WHERE chain_id = 31998`.execute(h.database.db);

    // The client, told nothing, recovers again: the node's pending nonce is still the first's.
    const second = fresh();
    const res = await h.api('POST', `${base()}/salvage`, { body: body(second, 'crash-2') });
    expect([res.status, res.body.data?.status], JSON.stringify(res.body)).toEqual([200, 'SUCCESS']);
    expect(await pub.getBalance({ address: second as Address })).toBe(10n ** 17n);
    expect(await pub.getBalance({ address: first as Address })).toBe(0n);

    // The first can never land now (its nonce is taken): it is settled, not left PENDING for ever.
    const after = (await rowOf('crash-1'))!;
    expect([after.status, after.reason]).toEqual(['FAILED', expect.stringContaining('nonce')]);
    const { rows: events } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM events WHERE transaction_id = ${after.id} AND name = 'salvage.failed'`.execute(h.database.db);
    expect(Number(events[0]!.n)).toBe(1);

    // The stopped request's promises end (as the test's own cleanup); nothing it does changes the record.
    for (const stop of stopped.splice(0)) stop();
    await dying.catch(() => undefined);
    expect((await rowOf('crash-1'))!.status).toBe('FAILED');
  });
});

describe('a recovery on a chain named by rpcUrl whose broadcast gets no answer', () => {
  it('the node took the transfer but the connection broke before it answered: followed to its receipt, SUCCESS, not FAILED', async () => {
    const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
    const c = await h.api('POST', `${base()}/addresses`, { body: { disableAutoSweep: true } });
    expect(c.status).toBe(200);
    const sender = c.body.data.address as string;
    await oneEtherOnForeign(sender);
    const pub = createPublicClient({ transport: http(foreign.rpcUrl) });
    const caps = chain.adapter.capabilities.foreignChains!;
    const open = caps.open.bind(caps);
    // The node receives the bytes; its answer is lost (a reset, a timeout): what the adapter
    // raises for a call that got no answer from the node.
    const opens = vi.spyOn(caps, 'open').mockImplementation(async (url, lookup) => {
      const adapter = (await open(url, lookup)) as ChainAdapter;
      const send = adapter.broadcast.bind(adapter);
      adapter.broadcast = async (raw) => {
        await send(raw);
        throw new UpstreamError('CHAIN_UNAVAILABLE', 'RPC failed: socket hang up');
      };
      return adapter;
    });
    const to = fresh();
    let res;
    try {
      res = await h.api('POST', `${base()}/salvage`, {
        body: { senderAddress: sender, recipientAddress: to, amount: '0.1', blockchainId: chain.row.blockchain_id, rpcUrl: foreign.rpcUrl },
      });
    } finally {
      opens.mockRestore();
    }
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // Paid on that chain...
    expect(await pub.getBalance({ address: to as Address })).toBe(10n ** 17n);
    // ...so the record says so (before: FAILED "the chain's node refused the transfer", and a
    // client recovering again on that word paid the recipient twice).
    expect([res.body.data.status, res.body.data.hash]).toEqual(['SUCCESS', expect.stringMatching(/^0x/)]);
    const { rows } = await sql<{ name: string }>`SELECT name FROM events WHERE transaction_id = ${res.body.data.id}`.execute(h.database.db);
    expect(rows.map((r) => r.name)).toEqual(['salvage.success']);
  });
});
