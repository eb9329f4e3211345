/**
 * Idempotency-Key edges: concurrent twins whose holder is refused in the creating
 * transaction (create.ts gives the key back) are each judged themselves, and get the same
 * refusal, never a 500, however many twins took turns holding the key; and a stored answer
 * is given as it was after the wallet was deactivated, not refused as a new request is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Address } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { addressKey } from '../../src/chains/address-key.js';
import { assetOf, chainOf, counts, eventually, randomAddress, startWorld, withdraw, type TestChain, type World } from './world.js';

let w: World;
let eth: TestChain;
const ETH = 'devnet-eth';

beforeAll(async () => {
  w = await startWorld({ specs: [DEVNET_CHAINS[0]!] });
  eth = chainOf(w.h, ETH);
});
afterAll(async () => {
  await w?.stop();
});

const master = () => w.h.wallets[ETH]!.address as Address;

describe('Idempotency-Key twins whose holder is refused', () => {
  it('each twin gets the refusal (422 NOT_WHITELISTED), none a 500, nothing written', { timeout: 120_000 }, async () => {
    await eth.sendToken('USDC', master(), '10');
    const wallet = w.h.wallets[ETH]!;
    // The wallet pays whitelisted beneficiaries only; the destination below is none of them.
    // A broadcast withdrawal's whitelist is decided in its creating transaction (create.ts).
    const ben = await w.h.api('POST', `/v1/wallets/${wallet.id}/beneficiaries`, {
      key: wallet.apiKey,
      body: { name: 'only one', address: randomAddress(), isWhitelisted: true },
    });
    expect(ben.status, JSON.stringify(ben.body)).toBe(200);

    const db = w.h.database.db;
    const usdc = assetOf(w.h, ETH, 'USDC');
    const body = { assetId: usdc.id, address: randomAddress(), amount: '1' };
    const headers = { 'idempotency-key': `twins-${Date.now()}` };
    const start = await counts(w.h);
    const { rows: chain } = await sql<{ chain_id: string }>`SELECT chain_id FROM wallets WHERE id = ${wallet.id}`.execute(db);
    // The sender's lock held, so that the twins after the first queue up and are taken as one batch.
    const { sent } = await db.transaction().execute(async (tx) => {
      await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`withdraw:${chain[0]!.chain_id}:${addressKey(master())}`}, 0))`.execute(tx);
      const sent = Promise.all(Array.from({ length: 8 }, () => withdraw(w.h, ETH, body, { headers })));
      await eventually(
        async () =>
          Number(
            (await sql<{ n: string }>`SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`.execute(db)).rows[0]!
              .n,
          ),
        (n) => n > 0,
        30_000,
      );
      await new Promise((r) => setTimeout(r, 1_500));
      // Wrapped: returned bare, the transaction would wait for the responses, which wait for its lock.
      return { sent };
    });
    const responses = await sent;
    for (const r of responses) {
      expect(r.status, JSON.stringify(r.body)).toBe(422);
      expect(r.body.error).toBe('NOT_WHITELISTED');
    }
    const end = await counts(w.h);
    expect(end.transactions! - start.transactions!).toBe(0);
    expect(end.outbound! - start.outbound!).toBe(0);
    const { rows: keys } = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM idempotency_keys WHERE key = ${headers['idempotency-key']}`.execute(db);
    expect(Number(keys[0]!.n)).toBe(0);
  });
});

describe('a stored answer outlives the standing it was given under', () => {
  it('the same key and body after the wallet is deactivated: the stored answer, not a refusal', async () => {
    const wallet = w.h.wallets[ETH]!;
    const usdc = assetOf(w.h, ETH, 'USDC');
    // The whitelist of the test above is in the way: this payment goes to its beneficiary.
    const { rows: bens } = await sql<{ address: string }>`
      SELECT address FROM beneficiaries WHERE wallet_id = ${wallet.id} AND is_whitelisted AND deleted_at IS NULL`.execute(w.h.database.db);
    const body = { assetId: usdc.id, address: bens[0]!.address, amount: '0.5' };
    const headers = { 'idempotency-key': `standing-${Date.now()}` };
    const first = await withdraw(w.h, ETH, body, { headers });
    expect(first.status, JSON.stringify(first.body)).toBe(200);

    const off = await w.h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { isActive: false } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    try {
      // The client's retry of a request whose answer it lost: it was paid, and must be told so.
      const again = await withdraw(w.h, ETH, body, { headers });
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(again.body.data).toEqual(first.body.data);
      // A new request is refused as before.
      const fresh = await withdraw(w.h, ETH, body, { headers: { 'idempotency-key': `standing-new-${Date.now()}` } });
      expect(fresh.status).toBe(422);
      expect(fresh.body.error).toBe('WALLET_INACTIVE');
    } finally {
      const on = await w.h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: w.h.businessKey, body: { isActive: true } });
      expect(on.status).toBe(200);
    }
  });
});
