/**
 * Deposits across tenants (issue 11, item 1): two businesses on one chain. An address the
 * service holds a key for (a master or child address) is credited to the wallet holding the
 * key, whatever another wallet registers; registering one as external is refused alike for
 * every wallet; an outside address two wallets watch is reported to each, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { uuidv7 } from '../../src/lib/ids.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

interface Tenant {
  id: string;
  apiKey: string;
  address: string;
  receiver: Receiver;
}

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;
let chainId: string;
/** A: the harness's business. D: another business. D2: D's second wallet on the same chain. */
let A: Tenant;
let D: Tenant;
let D2: Tenant;

async function tenant(businessId: string | null, name: string): Promise<Tenant> {
  const receiver = await startReceiver();
  let id: string;
  let apiKey: string;
  let address: string;
  if (businessId === null) ({ id, apiKey, address } = h.wallets['devnet-eth']!);
  else {
    const created = await h.services.wallets.createForBusiness(businessId, { blockchain: 'devnet-eth', network: 'testnet', name });
    ({ id, address } = created.wallet);
    apiKey = created.apiKey;
  }
  expect((await h.api('PATCH', `/v1/wallets/${id}`, { key: apiKey, body: { webhookUrl: receiver.url } })).status).toBe(200);
  return { id, apiKey, address, receiver };
}

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
  const chain = h.services.catalogue.findChain('devnet-eth', 'testnet')!;
  chainId = chain.id;
  indexer = h.services.deposits.indexer(chain);
  A = await tenant(null, 'A');
  const other = await h.services.businesses.create('Other business');
  D = await tenant(other.business.id, 'D');
  D2 = await tenant(other.business.id, 'D2');
});
afterAll(async () => {
  for (const t of [A, D, D2]) await t?.receiver.close();
  await h?.stop();
});

const outside = () => privateKeyToAccount(generatePrivateKey()).address;

async function drain(ix: ChainIndexer = indexer) {
  for (let i = 0; i < 1000; i++) if ((await ix.step()) === 'idle') return;
}
async function child(t: Tenant): Promise<{ id: string; address: string }> {
  const res = await h.api('POST', `/v1/wallets/${t.id}/addresses`, { key: t.apiKey, body: {} });
  expect(res.status).toBe(200);
  return res.body.data;
}
const whitelist = (t: Tenant, address: string) =>
  h.api('POST', `/v1/wallets/${t.id}/addresses/whitelist`, { key: t.apiKey, body: { address } });
const finder = (t: Tenant, transactionHash: string) =>
  h.api('POST', `/v1/wallets/${t.id}/rescan/blocks`, { key: t.apiKey, body: { transactionHash } });

/** The wallet's history entries for a chain transaction, through the API. */
async function history(t: Tenant, hash: string): Promise<Record<string, any>[]> {
  const res = await h.api('GET', `/v1/wallets/${t.id}/transactions?hash=${hash}`, { key: t.apiKey });
  expect(res.status).toBe(200);
  return res.body.data;
}

/** Webhooks the tenant's receiver got about a chain transaction, each verified with the tenant's own key. */
function webhooks(t: Tenant, hash: string): { event: string; data: Record<string, any> }[] {
  return t.receiver.requests
    .filter((r) => r.body.toLowerCase().includes(hash.toLowerCase()))
    .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: t.apiKey, replay: false }))
    .map((w) => ({ event: w.event, data: w.data }));
}

/** Rows as the old whitelist wrote them: an EXTERNAL registration in `t` of an address another wallet holds. */
async function legacyRegistration(t: Tenant, address: string): Promise<string> {
  const id = uuidv7();
  await sql`INSERT INTO addresses (id, wallet_id, chain_id, address, type, configurations)
            VALUES (${id}, ${t.id}, ${chainId}, ${address}, 'EXTERNAL', '{"disableAutoSweep": true}'::jsonb)`.execute(h.database.db);
  return id;
}

async function depositRows(hash: string) {
  const { rows } = await sql<{ id: string; wallet_id: string; address_id: string | null; status: string }>`
    SELECT id, wallet_id, address_id, status FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash}) ORDER BY wallet_id`.execute(
    h.database.db,
  );
  return rows;
}

describe("another tenant's child and master addresses", () => {
  it('the attack: whitelisting a child address of another business is refused, and its deposit stays with the key holder', async () => {
    const c = await child(A);
    const res = await whitelist(D, c.address);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('ADDRESS_NOT_EXTERNAL');

    const receipt = await eth.sendToken('USDC', c.address, '5');
    await drain();
    const [mine] = await history(A, receipt.transactionHash);
    expect(mine).toMatchObject({ type: 'DEPOSIT', amount: '5', recipientAddress: c.address });
    expect(await history(D, receipt.transactionHash)).toEqual([]);
    await eventually(
      async () => webhooks(A, receipt.transactionHash).map((w) => w.event),
      (events) => events.includes('deposit.success') && events.includes('deposit.swept.success'),
      20_000,
    );
    expect(webhooks(D, receipt.transactionHash)).toEqual([]);
    expect(await eth.balanceOf('USDC', c.address)).toBe(0n);
  });

  it('a registration written before the fix (or racing it) changes nothing: deposit, webhook, sweep and finder stay with the owner', async () => {
    const c = await child(A);
    const stale = await legacyRegistration(D, c.address);
    const receipt = await eth.sendToken('USDC', c.address, '6');
    await drain();

    const rows = await depositRows(receipt.transactionHash);
    expect(rows).toEqual([expect.objectContaining({ wallet_id: A.id, address_id: c.id })]);
    const found = await finder(A, receipt.transactionHash);
    expect(found.status).toBe(200);
    expect(found.body.data.map((d: { id: string }) => d.id)).toEqual([rows[0]!.id]);
    const theirs = await finder(D, receipt.transactionHash);
    expect(theirs.status).toBe(422);
    expect(theirs.body.error).toBe('NO_DEPOSIT_FOUND');
    expect(await depositRows(receipt.transactionHash)).toHaveLength(1);

    await eventually(
      async () => webhooks(A, receipt.transactionHash).map((w) => w.event),
      (events) => events.includes('deposit.swept.success'),
      20_000,
    );
    expect(webhooks(D, receipt.transactionHash)).toEqual([]);
    // Removing the stale registration is D's own business and touches nothing of A's.
    expect((await h.api('DELETE', `/v1/wallets/${D.id}/addresses/whitelist/${stale}`, { key: D.apiKey })).status).toBe(200);
    expect(await depositRows(receipt.transactionHash)).toHaveLength(1);
  });

  it('the master address: refused as external, and its deposits stay with its wallet', async () => {
    const res = await whitelist(D, A.address);
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('ADDRESS_NOT_EXTERNAL');
    await legacyRegistration(D, A.address);
    const receipt = await eth.sendToken('USDT', A.address, '2');
    await drain();
    expect(await depositRows(receipt.transactionHash)).toEqual([expect.objectContaining({ wallet_id: A.id, address_id: null })]);
    expect((await history(A, receipt.transactionHash))[0]).toMatchObject({ amount: '2', recipientAddress: A.address });
    await eventually(
      async () => webhooks(A, receipt.transactionHash).map((w) => w.event),
      (events) => events.includes('deposit.success'),
    );
    expect(await history(D, receipt.transactionHash)).toEqual([]);
    expect(webhooks(D, receipt.transactionHash)).toEqual([]);
  });
});

describe('registering one of the service’s own addresses as external', () => {
  it("is refused alike for the caller's own other wallet and another business's, saying nothing more, and writes nothing", async () => {
    const own = await child(D);
    const foreign = await child(A);
    const count = async () =>
      Number((await sql<{ n: string }>`SELECT count(*) AS n FROM addresses WHERE wallet_id = ${D2.id}`.execute(h.database.db)).rows[0]!.n);
    const before = await count();
    const answers = [];
    for (const address of [own.address, foreign.address, D.address, A.address, own.address.toLowerCase()]) {
      const res = await whitelist(D2, address);
      expect(res.status).toBe(422);
      const { requestId, ...rest } = res.body;
      expect(requestId).toBeTruthy();
      answers.push(rest);
    }
    for (const a of answers) expect(a).toEqual(answers[0]);
    expect(answers[0]).toEqual({
      statusCode: 422,
      error: 'ADDRESS_NOT_EXTERNAL',
      message: 'This address cannot be registered as an external address',
    });
    expect(await count()).toBe(before);
    // A wallet's own addresses keep their own answer (409: already on this wallet).
    expect((await whitelist(D, own.address)).body.error).toBe('ADDRESS_EXISTS');
    expect((await whitelist(D, D.address)).body.error).toBe('ADDRESS_EXISTS');
  });
});

describe('an outside address watched by two wallets', () => {
  it('each wallet gets its own deposit row, history entry and signed webhooks', async () => {
    const x = outside();
    expect((await whitelist(A, x)).status).toBe(200);
    expect((await whitelist(D, x)).status).toBe(200);
    const receipt = await eth.sendToken('USDC', x, '3');
    await drain();

    const rows = await depositRows(receipt.transactionHash);
    expect(rows.map((r) => r.wallet_id).sort()).toEqual([A.id, D.id].sort());
    for (const t of [A, D]) {
      const entries = await history(t, receipt.transactionHash);
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({ type: 'DEPOSIT', amount: '3', recipientAddress: x, status: 'SUCCESS' });
      const events = await eventually(
        async () => webhooks(t, receipt.transactionHash),
        (list) => list.some((w) => w.event === 'deposit.success'),
      );
      // Only its own record reaches each wallet.
      expect(new Set(events.map((w) => w.data.id))).toEqual(new Set([entries[0]!.id]));
      expect(events.map((w) => w.event).sort()).toEqual(['deposit.processing', 'deposit.success']);
    }
    expect((await history(A, receipt.transactionHash))[0]!.id).not.toBe((await history(D, receipt.transactionHash))[0]!.id);
  });

  it('one wallet removing it hides nothing from the other', async () => {
    const x = outside();
    const mine = await whitelist(A, x);
    const theirs = await whitelist(D, x);
    await drain();
    expect((await h.api('DELETE', `/v1/wallets/${D.id}/addresses/whitelist/${theirs.body.data.id}`, { key: D.apiKey })).status).toBe(200);
    const receipt = await eth.sendToken('USDC', x, '4');
    await drain();
    expect(await depositRows(receipt.transactionHash)).toEqual([
      expect.objectContaining({ wallet_id: A.id, address_id: mine.body.data.id }),
    ]);
  });
});

describe('the deposit finder and replays', () => {
  it('finds the owner’s deposit and each watcher’s own, before the indexer; replays, two indexers and the finder record each once', async () => {
    const c = await child(A);
    await legacyRegistration(D, c.address);
    const x = outside();
    expect((await whitelist(A, x)).status).toBe(200);
    expect((await whitelist(D, x)).status).toBe(200);
    await drain();
    const start = await eth.blockNumber();
    const toChild = await eth.sendToken('USDC', c.address, '7');
    const toOutside = await eth.sendToken('USDT', x, '8');

    // Before any indexer has seen them.
    const ownerFound = await finder(A, toChild.transactionHash);
    expect(ownerFound.status).toBe(200);
    expect(ownerFound.body.data).toEqual([expect.objectContaining({ amount: '7', recipientAddress: c.address })]);
    expect((await finder(D, toChild.transactionHash)).body.error).toBe('NO_DEPOSIT_FOUND');
    const a = await finder(A, toOutside.transactionHash);
    const d = await finder(D, toOutside.transactionHash);
    expect([a.status, d.status]).toEqual([200, 200]);
    expect(a.body.data[0].id).not.toBe(d.body.data[0].id);

    // Two indexers at once, then the same blocks read again from an older cursor.
    const second = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
    await Promise.all([drain(), drain(second)]);
    const before = await eth.pub.getBlock({ blockNumber: start });
    await sql`UPDATE chain_cursors SET block_number = ${start}, block_hash = ${before.hash} WHERE chain_id = ${chainId}`.execute(
      h.database.db,
    );
    await Promise.all([drain(), drain(second)]);
    expect((await finder(A, toOutside.transactionHash)).body.data[0].id).toBe(a.body.data[0].id);
    expect((await finder(D, toOutside.transactionHash)).body.data[0].id).toBe(d.body.data[0].id);

    expect(await depositRows(toChild.transactionHash)).toEqual([expect.objectContaining({ wallet_id: A.id, status: 'SUCCESS' })]);
    const outsideRows = await depositRows(toOutside.transactionHash);
    expect(outsideRows.map((r) => [r.wallet_id, r.status]).sort()).toEqual(
      [
        [A.id, 'SUCCESS'],
        [D.id, 'SUCCESS'],
      ].sort(),
    );
    for (const [t, id] of [
      [A, a.body.data[0].id],
      [D, d.body.data[0].id],
    ] as const) {
      const events = await eventually(
        async () => webhooks(t, toOutside.transactionHash),
        (list) => list.some((w) => w.event === 'deposit.success'),
      );
      expect(events.map((w) => [w.event, w.data.id]).sort()).toEqual([
        ['deposit.processing', id],
        ['deposit.success', id],
      ]);
      const { rows } = await sql<{ name: string }>`SELECT name FROM events WHERE transaction_id = ${id} ORDER BY name`.execute(
        h.database.db,
      );
      expect(rows.map((r) => r.name)).toEqual(['deposit.processing', 'deposit.success']);
    }
  });
});
