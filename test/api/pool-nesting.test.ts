/**
 * Work inside a transaction never waits for a second connection of the same pool. With as
 * many such requests at once as the pool has connections, each would hold one and wait for
 * another, and the process would answer nothing again. Two defences, each tested here:
 *
 * - the pool gives up waiting after POOL_WAIT_MS (db/pool.ts): such a wait fails, its
 *   transaction rolls back and the process recovers;
 * - the flows pass their transaction on. A world whose pool has ONE connection makes any
 *   query sent to the pool from inside a transaction wait for ever (here: until the pool's
 *   wait ends, a 503), so each flow below answering 200 there shows it asks nothing of the
 *   pool while its transaction is open.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { createDatabase } from '../../src/db/pool.js';
import { createLogger } from '../../src/lib/logger.js';
import { randomBytes } from 'node:crypto';
import { createDatabaseFromTemplate, dropDatabase, startHarness, type Harness } from '../support/harness.js';
import { openCustody } from '../../src/modules/custody/service.js';
import { localKeys } from '../keys/support.js';
import { chainOf } from '../support/chain.js';
import { mintKey } from '../policies/world.js';
import { eventually } from '../support/fixtures.js';
import { resolveChain } from '../../src/configuration.js';
import { startSolanaStandIn, type SolanaStandIn } from '../../src/devnet/solana/index.js';

const SOLANA = 'solana-pool-of-one';
let sol: SolanaStandIn;
let h: Harness;
beforeAll(async () => {
  sol = await startSolanaStandIn({ port: 0, slotMs: 50, tokens: [] });
  const solana = resolveChain(
    {
      blockchain: SOLANA,
      family: 'solana',
      network: 'testnet',
      rpcUrl: sol.url,
      chainId: 990_311,
      name: 'Solana',
      symbol: 'SOL',
      confirmations: 1,
      assets: [],
    },
    'test',
  );
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], extraChains: [solana], pool: { max: 1, waitMs: 5_000 } });
});
afterAll(async () => {
  await h?.stop();
  await sol?.stop();
});

describe('the pool', () => {
  it('a query that waits for a connection past the wait limit fails instead of waiting for ever', async () => {
    const database = createDatabase(h.databaseUrl, createLogger('silent'), 1, 300);
    try {
      const nested = database.db.transaction().execute(async () => {
        await sql`SELECT 1`.execute(database.db);
      });
      await expect(nested).rejects.toThrow('timeout exceeded when trying to connect');
      // And the connection came back: the pool serves again.
      expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db)).rows[0]!.one).toBe(1);
    } finally {
      await database.close();
    }
  });
});

describe('flows on a pool of one connection', () => {
  it('sealing a secret inside a transaction (a new API key, an imported key) reads the active master key on it', async () => {
    // Production custody: the key that seals is the one the database marks active, read at
    // every seal (so a rotation reaches every process at once).
    const url = await createDatabaseFromTemplate();
    const database = createDatabase(url, createLogger('silent'), 1, 2_000);
    try {
      const custody = await openCustody({
        db: database.db,
        keys: localKeys(randomBytes(32)),
        keyFileDir: null,
        logger: createLogger('silent'),
      });
      try {
        const sealed = await database.db.transaction().execute((tx) => custody.vault.seal(Buffer.from('a secret'), 'owner-1', tx));
        expect((await custody.vault.open(sealed, 'owner-1')).toString()).toBe('a secret');
      } finally {
        await custody.close();
      }
    } finally {
      await database.close();
      await dropDatabase(url);
    }
  });

  it("a new wallet's first payout (its account key read for the first time in this process, inside the enqueue transaction)", async () => {
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'pool of one' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const w = created.body.data as { id: string; address: string; apiKey: string };
    await chainOf(h, 'devnet-eth').sendNative(w.address, '1');
    const eth = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.is_native)!.id;
    expect((await h.api('POST', `/v1/wallets/${w.id}/assets`, { key: w.apiKey, body: { assetId: eth } })).status).toBe(200);
    const paid = await h.api('POST', `/v1/wallets/${w.id}/withdraw`, {
      key: w.apiKey,
      body: { assetId: eth, address: '0x000000000000000000000000000000000000dEaD', amount: '0.001' },
    });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
  });

  it('a payout held for approval, sent on at the deciding vote (its wallet, asset and whitelist read in the deciding transaction)', async () => {
    const manager = await mintKey(h, 'pool of one: policies', ['MANAGE_POLICIES']);
    const approver = await mintKey(h, 'pool of one: approver', ['APPROVE']);
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'pool of one: approval' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const w = created.body.data as { id: string; address: string; apiKey: string };
    await chainOf(h, 'devnet-eth').sendNative(w.address, '1');
    const eth = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.is_native)!.id;
    expect((await h.api('POST', `/v1/wallets/${w.id}/assets`, { key: w.apiKey, body: { assetId: eth } })).status).toBe(200);
    const rule = await h.api('POST', '/v1/policies', {
      key: manager.apiKey,
      body: {
        name: 'pool of one: every withdrawal needs one approval',
        priority: 1,
        walletId: w.id,
        conditions: { types: ['WITHDRAW'] },
        action: 'REQUIRE_APPROVAL',
        approval: { approvers: { apiKeys: [approver.id] }, quorum: 1, ttlSeconds: 3600 },
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    const held = await h.api('POST', `/v1/wallets/${w.id}/withdraw`, {
      key: w.apiKey,
      body: { assetId: eth, address: '0x000000000000000000000000000000000000dEaD', amount: '0.001' },
    });
    expect(held.status, JSON.stringify(held.body)).toBe(200);
    expect(held.body.data.status).toBe('PENDING_APPROVAL');
    const voted = await h.api('POST', `/v1/approvals/${held.body.data.id}/approve`, { key: approver.apiKey, body: {} });
    expect(voted.status, JSON.stringify(voted.body)).toBe(200);
    expect(voted.body.data.status).toBe('APPROVED');
    const { rows } = await sql<{ status: string; n: number }>`
      SELECT t.status, (SELECT count(*)::int FROM outbound_txs o WHERE o.owner_id = t.id) AS n
        FROM transactions t WHERE t.id = ${held.body.data.id}`.execute(h.database.db);
    expect(rows[0]).toEqual({ status: 'PENDING', n: 1 });
  });

  it("a transaction's deriver waits on no opening another caller started on the pool", async () => {
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: 'devnet-eth', network: 'testnet', name: 'shared deriver' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const row = await h.services.wallets.requireRow(created.body.data.id);
    let onPool: Promise<string> | undefined;
    const inTx = await h.services.db.transaction().execute(async (tx) => {
      // Started first, on the pool, whose one connection this transaction holds: its read
      // waits until the transaction ends. The transaction's own lookup must not wait on it.
      onPool = h.services.wallets.addressOf(row, 1);
      return h.services.wallets.addressOf(row, 2, tx);
    });
    expect(inTx).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await onPool!).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(await h.services.wallets.addressOf(row, 2)).toBe(inTx);
  });

  it("a new Solana wallet's first child address (its seed read inside the issuing transaction)", async () => {
    const created = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: SOLANA, network: 'testnet', name: 'pool of one' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const w = created.body.data as { id: string; apiKey: string };
    const child = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: {} });
    expect(child.status, JSON.stringify(child.body)).toBe(200);
    expect(child.body.data.derivationPath).toBe("m/44'/501'/1'/0'");
  });
});

describe('a worker on a pool of one connection', () => {
  it("an auto-settlement from a child address (planned in the transaction that holds the sender's lock) reaches its destination", async () => {
    const w = await startHarness({
      specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
      worker: true,
      services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
      // Longer than the first world's: twenty jobs and the indexer share the connection here.
      pool: { max: 1, waitMs: 20_000 },
    });
    try {
      const wallet = w.wallets['devnet-eth']!;
      const base = `/v1/wallets/${wallet.id}`;
      expect((await w.api('PATCH', `${base}/auto-settlements`, { body: { isActive: true } })).status).toBe(200);
      const child = await w.api('POST', `${base}/addresses`, { body: { disableAutoSweep: true } });
      expect(child.status, JSON.stringify(child.body)).toBe(200);
      const dest = '0x000000000000000000000000000000000000bEEF';
      const rule = await w.api('POST', `${base}/addresses/${child.body.data.id}/auto-settlements/rules`, {
        body: {
          name: 'pool of one',
          order: 'RECOMMENDED',
          slippageTolerance: '1',
          source: { assets: ['USDC'], blockchain: 'devnet-eth', minAmount: '0', maxAmount: null },
          destination: { asset: 'USDC', address: dest, blockchain: 'devnet-eth' },
        },
      });
      expect(rule.status, JSON.stringify(rule.body)).toBe(200);
      const eth = chainOf(w, 'devnet-eth');
      await eth.sendToken('USDC', child.body.data.address, '3');
      const indexer = w.services.deposits.indexer(w.services.catalogue.findChain('devnet-eth', 'testnet')!);
      for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') break;
      await eventually(
        async () => (await eth.balanceOf('USDC', dest)).toString(),
        (v) => v === '3000000',
        30_000,
      );
    } finally {
      await w.stop();
    }
  });
});
