/**
 * Payment links and checkout sessions through HTTP, on the EVM devnet with the real indexer,
 * worker and webhooks (issue 30): links created (JSON and multipart with an image), listed,
 * edited and deactivated; slugs unique and checked; a session's address, amount and
 * deadlines; an exact payment seen then settled with checkout.* and deposit.* webhooks
 * naming the link and the session; a partial one topped up; expiry on the service clock,
 * then a late payment; the payment limit; tenancy; a payment AML screening holds (seen, not
 * confirmed: settled once released, invalid when still held at the window's end).
 */
import net from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, encodeFunctionData, erc20Abi, http, parseUnits, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { devnetChain } from '../../src/devnet/chain.js';
import { setDevnetSanctioned } from '../../src/devnet/sanctions.js';
import { ManualClock } from '../../src/lib/clock.js';
import { LiveCheckouts } from '../../src/pay/live.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

const SLUG = 'devnet-eth';
let h: Harness;
let receiver: Receiver;
const clock = new ManualClock(Date.now());
/** A 1x1 PNG. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

beforeAll(async () => {
  [h, receiver] = await Promise.all([startHarness({ worker: true, clock }), startReceiver()]);
  const w = h.wallets[SLUG]!;
  const patched = await h.api('PATCH', `/v1/wallets/${w.id}`, {
    key: w.apiKey,
    body: { webhookUrl: receiver.url, configurations: { autoSweeping: { isActive: false } } },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
}, 120_000);
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

const key = () => h.wallets[SLUG]!.apiKey;
const eth = () => chainOf(h, SLUG);

async function createLink(body: Record<string, unknown>, apiKey = key()) {
  const res = await h.api('POST', '/v1/payment_links', { key: apiKey, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any>;
}

async function startCheckout(linkId: string, body: Record<string, unknown> = {}) {
  const res = await h.api('POST', `/v1/payment_links/${linkId}/checkouts`, { key: key(), body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any>;
}

async function indexAll() {
  const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
  for (let i = 0; i < 100 && (await indexer.step()) !== 'idle'; i++);
}

const checkout = async (id: string) => (await h.api('GET', `/v1/checkouts/${id}`, { key: key() })).body.data as Record<string, any>;
const until = (id: string, check: (c: Record<string, any>) => boolean) => eventually(() => checkout(id), check, 20_000);

/** The verified webhooks received so far (signatures checked; their times follow the test's clock). */
function hooks() {
  return receiver.requests.map((r) =>
    verifyWebhook<Record<string, any>>({
      body: r.body,
      headers: r.headers,
      apiKey: key(),
      replay: false,
      now: Number(r.headers['webhook-timestamp']) * 1000,
    }),
  );
}

describe('payment links', () => {
  it('creates a link from JSON and answers the described shape', async () => {
    const link = await createLink({ name: 'T-shirt', amount: '25.50', description: 'Blue, size M', slug: 'Tshirt-Blue', paymentLimit: 3 });
    expect(link).toMatchObject({
      slug: 'Tshirt-Blue',
      name: 'T-shirt',
      amount: '25.5',
      currency: 'USD',
      active: true,
      network: 'testnet',
      type: 'payment',
      createdChannel: 'api',
      imageUrl: null,
      paymentLimit: 3,
      configurations: { expiresInMinutes: 30, monitoringMinutes: 1440, underpaymentTolerance: '0' },
    });
    expect(link.url).toMatch(/\/pay\/Tshirt-Blue$/);
    expect(link.accepts.map((a: any) => a.symbol).sort()).toEqual(['USDC', 'USDT']);
  });

  it('refuses a taken slug (any case), a malformed one and bad input, writing nothing', async () => {
    const before = (await h.api('GET', '/v1/payment_links', { key: key() })).body.meta.totalItems;
    const taken = await h.api('POST', '/v1/payment_links', { key: key(), body: { name: 'x', slug: 'tshirt-BLUE' } });
    expect(taken.status).toBe(409);
    expect(taken.body.error).toBe('SLUG_TAKEN');
    // The pages' own files are served under /pay/assets/: a link there could not show its sessions.
    for (const slug of ['assets', 'Assets']) {
      const reserved = await h.api('POST', '/v1/payment_links', { key: key(), body: { name: 'x', slug } });
      expect([reserved.status, reserved.body.error]).toEqual([409, 'SLUG_TAKEN']);
    }
    for (const body of [
      { name: 'x', slug: 'has space' },
      { name: 'x', slug: 'émoji' },
      { name: 'x', amount: '-1' },
      { name: 'x', amount: '1e3' },
      { name: 'x', amount: '1.1234567' }, // more places than USDC's 6
      { name: 'x', redirectUrl: 'javascript:alert(1)' },
      { name: 'x', paymentLimit: 0 },
      { name: 'x', configurations: { underpaymentTolerance: '75' } },
      { name: '' },
      { name: 'x', accepts: [{ walletId: h.wallets['devnet-bsc']!.id }] }, // another wallet: not this key's
    ]) {
      const res = await h.api('POST', '/v1/payment_links', { key: key(), body });
      expect([400, 404], JSON.stringify(body)).toContain(res.status);
    }
    expect((await h.api('GET', '/v1/payment_links', { key: key() })).body.meta.totalItems).toBe(before);
  });

  it('takes a multipart form with an image, as the described service does', async () => {
    const form = new FormData();
    form.set('name', 'Poster');
    form.set('amount', '');
    form.set('description', 'A poster');
    form.set('metadata', JSON.stringify({ sku: 'P-1', batch: 7 }));
    form.set('paymentLimit', '');
    form.set('inactiveMessage', 'Sold out');
    form.set('slug', 'poster-1');
    form.set('file', new Blob([PNG], { type: 'image/png' }), 'poster.png');
    const res = await fetch(`${h.baseUrl}/v1/payment_links`, { method: 'POST', headers: { 'x-api-key': key() }, body: form });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(body.data).toMatchObject({ slug: 'poster-1', amount: null, metadata: { sku: 'P-1', batch: 7 }, inactiveMessage: 'Sold out' });
    expect(body.data.imageUrl).toMatch(/\/pay\/poster-1\/image$/);
    const image = await fetch(`${h.baseUrl}/pay/poster-1/image`);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);

    const notImage = new FormData();
    notImage.set('name', 'Script');
    notImage.set('file', new Blob(['<svg onload=alert(1)></svg>'], { type: 'image/svg+xml' }), 'x.svg');
    const refused = await fetch(`${h.baseUrl}/v1/payment_links`, { method: 'POST', headers: { 'x-api-key': key() }, body: notImage });
    expect(refused.status).toBe(400);
  });

  it('a slug taken by another link while the edit runs: 409 SLUG_TAKEN, never a 500, and the link is unchanged', async () => {
    const a = await createLink({ name: 'Race A' });
    const b = await createLink({ name: 'Race B' });
    const slug = `race-${Date.now()}`;
    // A's edit to the slug, not yet committed: B's edit does not see it when it checks, then meets it in the unique index.
    const patched = await h.database.db.transaction().execute(async (tx) => {
      await sql`UPDATE payment_links SET slug = ${slug} WHERE id = ${a.id}`.execute(tx);
      const pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx)).rows[0]!.pid;
      const sent = h.api('PATCH', `/v1/payment_links/${b.id}`, { key: key(), body: { slug, name: 'Race B2' } });
      // B's UPDATE waits for this transaction (the index entry it would duplicate).
      const blocked = sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))`;
      await eventually(
        async () => Number((await blocked.execute(h.database.db)).rows[0]!.n),
        (n) => n > 0,
        30_000,
      );
      return { sent };
    });
    const res = await patched.sent;
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error).toBe('SLUG_TAKEN');
    const after = await h.api('GET', `/v1/payment_links/${b.id}`, { key: key() });
    expect(after.body.data).toMatchObject({ name: 'Race B', slug: b.slug });
  });

  it("a slug renamed away stays its business's: no other business can take it (its old URL would pay them)", async () => {
    const link = await createLink({ name: 'Renamed', slug: 'spring-sale' });
    const renamed = await h.api('PATCH', `/v1/payment_links/${link.id}`, { key: key(), body: { slug: 'summer-sale' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const other = await h.services.businesses.create('Slug Squatter');
    const wallet = await h.api('POST', '/v1/wallets', {
      key: other.apiKey,
      body: { blockchain: SLUG, network: 'testnet', name: 'Squatter' },
    });
    expect(wallet.status, JSON.stringify(wallet.body)).toBe(200);
    const accepts = [{ walletId: wallet.body.data.id }];
    // Neither by creating a link with it, in any case...
    const created = await h.api('POST', '/v1/payment_links', { key: other.apiKey, body: { name: 'x', slug: 'Spring-Sale', accepts } });
    expect([created.status, created.body.error]).toEqual([409, 'SLUG_TAKEN']);
    // ...nor by renaming one to it; their link keeps its slug, and nothing else is written.
    const theirs = await createLink({ name: 'Theirs', accepts }, other.apiKey);
    const taken = await h.api('PATCH', `/v1/payment_links/${theirs.id}`, {
      key: other.apiKey,
      body: { slug: 'spring-sale', name: 'Changed' },
    });
    expect([taken.status, taken.body.error]).toEqual([409, 'SLUG_TAKEN']);
    expect((await h.api('GET', `/v1/payment_links/${theirs.id}`, { key: other.apiKey })).body.data).toMatchObject({
      slug: theirs.slug,
      name: 'Theirs',
    });
    const listed = await h.api('GET', '/v1/payment_links', { key: other.apiKey });
    expect(listed.body.data.map((l: { id: string }) => l.id)).toEqual([theirs.id]);
    expect((await fetch(`${h.baseUrl}/pay/spring-sale`)).status).toBe(404);
    // The business that held it may take it again, with another link.
    const again = await createLink({ name: 'Spring again', slug: 'spring-sale' });
    expect(again.url).toMatch(/\/pay\/spring-sale$/);
  });

  it('a session opened before its link was renamed keeps its URL, until a link of the business takes the old slug again', async () => {
    const link = await createLink({ name: 'Autumn', amount: '2', slug: 'autumn-sale' });
    const other = await createLink({ name: 'Other', amount: '2', slug: 'other-sale' });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    const theirs = await startCheckout(other.id, { asset: 'USDC' });
    expect(c.url).toMatch(/\/pay\/autumn-sale\//);
    const renamed = await h.api('PATCH', `/v1/payment_links/${link.id}`, { key: key(), body: { slug: 'winter-sale' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);

    // The URL the payer holds still answers: the page, its QR code, its live status.
    const page = await fetch(c.url);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(c.address);
    // Its own links name the slug the link has now.
    expect(html).toContain(`/pay/winter-sale/${c.id}/qr.svg`);
    expect(html).not.toContain('/pay/autumn-sale/');
    expect((await fetch(`${c.url}/qr.svg`)).status).toBe(200);
    expect((await fetch(`${c.url}/events`, { method: 'HEAD' })).status).toBe(200);
    // The new URL answers too, and the API names it.
    expect((await fetch(`${h.baseUrl}/pay/winter-sale/${c.id}`)).status).toBe(200);
    expect((await checkout(c.id)).url).toBe(`${h.baseUrl}/pay/winter-sale/${c.id}`);
    // A slug opens only its own link's sessions, old or new.
    expect((await fetch(`${h.baseUrl}/pay/autumn-sale/${theirs.id}`)).status).toBe(404);
    expect((await fetch(`${h.baseUrl}/pay/winter-sale/${theirs.id}`)).status).toBe(404);
    expect((await fetch(`${h.baseUrl}/pay/other-sale/${c.id}`)).status).toBe(404);

    // Once another link of the business takes the old slug, it names that link only.
    await createLink({ name: 'Autumn again', slug: 'autumn-sale' });
    expect((await fetch(c.url)).status).toBe(404);
    expect((await fetch(`${h.baseUrl}/pay/winter-sale/${c.id}`)).status).toBe(200);
  });

  it('an edit takes a redirect, a payment limit and metadata off with null; a bad one writes nothing', async () => {
    const link = await createLink({ name: 'Clear me', redirectUrl: 'https://shop.example/done', paymentLimit: 5, metadata: { a: '1' } });
    const bad = await h.api('PATCH', `/v1/payment_links/${link.id}`, { key: key(), body: { redirectUrl: null, paymentLimit: 0 } });
    expect(bad.status).toBe(400);
    expect((await h.api('GET', `/v1/payment_links/${link.id}`, { key: key() })).body.data).toMatchObject({
      redirectUrl: 'https://shop.example/done',
      paymentLimit: 5,
    });
    const cleared = await h.api('PATCH', `/v1/payment_links/${link.id}`, {
      key: key(),
      body: { redirectUrl: null, paymentLimit: null, metadata: null, description: '' },
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect(cleared.body.data).toMatchObject({ redirectUrl: null, paymentLimit: null, metadata: null, description: null, active: true });
  });

  it('lists, reads, edits and deactivates; another business sees nothing', async () => {
    const link = await createLink({ name: 'Edit me' });
    const patched = await h.api('PATCH', `/v1/payment_links/${link.id}`, {
      key: key(),
      body: { name: 'Edited', amount: '10', active: false, inactiveMessage: 'Closed for today' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject({ name: 'Edited', amount: '10', active: false, inactiveMessage: 'Closed for today' });
    const refused = await h.api('POST', `/v1/payment_links/${link.id}/checkouts`, { key: key(), body: { asset: 'USDC' } });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ error: 'PAYMENT_LINK_INACTIVE', message: 'Closed for today' });
    const list = await h.api('GET', '/v1/payment_links?limit=2', { key: key() });
    expect(list.body.meta).toMatchObject({ itemsPerPage: 2, currentPage: 1 });
    expect(list.body.data[0].id).toBe(link.id);

    const other = await h.services.businesses.create('Other Business');
    expect((await h.api('GET', `/v1/payment_links/${link.id}`, { key: other.apiKey })).status).toBe(404);
    expect((await h.api('GET', '/v1/payment_links', { key: other.apiKey })).body.data).toEqual([]);
    expect((await h.api('GET', `/v1/payment_links/${link.id}`, { key: h.wallets['devnet-bsc']!.apiKey })).status).toBe(404);
    expect((await h.api('GET', `/v1/payment_links/${link.id}`, { key: h.businessKey })).status).toBe(200);
  });
});

describe('live status streams', () => {
  it('one client holds at most 20 open; past that 429, and a closed one frees its place', async () => {
    const link = await createLink({ name: 'Streams', amount: '3' });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    const open: AbortController[] = [];
    const stream = async () => {
      const abort = new AbortController();
      const res = await fetch(`${c.url}/events`, { signal: abort.signal });
      if (res.status === 200) {
        open.push(abort);
        // The first event comes at once: the stream is held.
        const reader = res.body!.getReader();
        await reader.read();
      } else await res.text();
      return res.status;
    };
    try {
      const first = [];
      for (let i = 0; i < 20; i++) first.push(await stream());
      expect(first).toEqual(Array(20).fill(200));
      expect(await stream()).toBe(429);
      open.shift()!.abort();
      await eventually(stream, (status) => status === 200);
    } finally {
      for (const a of open) a.abort();
    }
  });

  it('a client that hangs up before its stream starts holds no place', async () => {
    const link = await createLink({ name: 'Hang ups', amount: '3' });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    const { host, port, pathname } = new URL(`${c.url}/events`);
    // Each sends the request and leaves at once, while the server still reads the session.
    await Promise.all(
      Array.from(
        { length: 25 },
        () =>
          new Promise<void>((resolve) => {
            const socket = net.connect(Number(port), host.split(':')[0], () => {
              socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${host}\r\n\r\n`, () => {
                socket.destroy();
                resolve();
              });
            });
          }),
      ),
    );
    await new Promise((r) => setTimeout(r, 500));
    const abort = new AbortController();
    try {
      const res = await fetch(`${c.url}/events`, { signal: abort.signal });
      expect(res.status).toBe(200);
    } finally {
      abort.abort();
    }
  });
});

describe('checkout sessions', () => {
  it('an exact payment: seen (processing), then confirmed (settled); the webhooks name the link and the session', async () => {
    const link = await createLink({ name: 'Exact', amount: '12.5', metadata: { order: 'A-1' } });
    const c = await startCheckout(link.id, { asset: 'USDC', reference: 'ORDER-1', email: 'payer@example.com' });
    expect(c).toMatchObject({ status: 'new', amount: '12.5', amountDue: '12.5', currency: 'USDC', reference: 'ORDER-1', paidLate: false });
    expect(new Date(c.expiresAt).getTime() - clock.now().getTime()).toBe(30 * 60_000);
    const usdc = eth().token('USDC').address;
    expect(c.paymentUri).toBe(`ethereum:${usdc}@31337/transfer?address=${c.address}&uint256=12500000`);

    const instructions = async () => /<div class="pay"\s*(hidden)?\s*id="instructions">/.exec(await (await fetch(c.url)).text())!;
    expect((await instructions())[1]).toBeUndefined();

    await eth().sendToken('USDC', c.address, '12.5');
    await indexAll();
    const seen = await until(c.id, (x) => x.status === 'processing');
    // Paid in full, not yet confirmed: nothing more is asked (no URI, no instructions on the page).
    expect(seen).toMatchObject({ amountDue: '0', paymentUri: null });
    expect((await instructions())[1]).toBe('hidden');
    await eth().mine(2);
    await indexAll();
    const done = await until(c.id, (x) => x.status === 'settled');
    expect(done).toMatchObject({ partial: false, overpaid: false, amountPaid: '12.5', amountConfirmed: '12.5', amountDue: '0' });

    await eventually(
      async () => hooks().map((e) => e.event),
      (names) => names.includes('checkout.settled') && names.includes('deposit.success'),
      20_000,
    );
    const mine = hooks().filter((e) => e.data.id === c.id || e.data.metadata?.checkoutId === c.id);
    expect(mine.map((e) => e.event)).toEqual(
      expect.arrayContaining(['checkout.processing', 'checkout.settled', 'deposit.processing', 'deposit.success']),
    );
    const deposit = mine.find((e) => e.event === 'deposit.success')!;
    expect(deposit.data.metadata).toMatchObject({ paymentLinkId: link.id, checkoutId: c.id, reference: 'ORDER-1', order: 'A-1' });
    expect(mine.find((e) => e.event === 'checkout.settled')!.data).toMatchObject({ status: 'settled', paymentLinkId: link.id });
  });

  it('less is partial; topped up, it settles; more is settled and overpaid', async () => {
    const link = await createLink({ name: 'Partial' });
    const c = await startCheckout(link.id, { asset: 'USDT', amount: '100' });
    await eth().sendToken('USDT', c.address, '40');
    await eth().mine(2);
    await indexAll();
    const partial = await until(c.id, (x) => x.partial);
    expect(partial).toMatchObject({ status: 'processing', amountDue: '60' });
    expect(partial.paymentUri).toContain('uint256=60000000');
    await eth().sendToken('USDT', c.address, '60');
    await eth().mine(2);
    await indexAll();
    expect(await until(c.id, (x) => x.status === 'settled')).toMatchObject({ partial: false, overpaid: false, amountPaid: '100' });

    const over = await startCheckout(link.id, { asset: 'USDT', amount: '5' });
    await eth().sendToken('USDT', over.address, '7.25');
    await eth().mine(2);
    await indexAll();
    expect(await until(over.id, (x) => x.status === 'settled')).toMatchObject({ overpaid: true, amountPaid: '7.25' });
  });

  it('a full payment seen just before the deadline is in time, even read past the deadline before the worker has run', async () => {
    const link = await createLink({ name: 'Just in time', amount: '3', configurations: { expiresInMinutes: 10 } });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    await h.stopWorker(); // its checkout_payments job waits
    try {
      clock.advance(10 * 60_000 - 1_000);
      await eth().sendToken('USDC', c.address, '3');
      await indexAll(); // seen one second before the deadline
      clock.advance(2_000);
      expect(await checkout(c.id)).toMatchObject({ status: 'processing', amountPaid: '3', amountDue: '0', paidLate: false });
    } finally {
      await h.startWorker();
    }
    await eth().mine(2);
    await indexAll();
    expect(await until(c.id, (x) => x.status === 'settled')).toMatchObject({ paidLate: false, amountPaid: '3', amountConfirmed: '3' });
  });

  it('a payment seen in time whose indexer transaction commits after the deadline passed: never expired', async () => {
    const link = await createLink({ name: 'In flight', amount: '4', configurations: { expiresInMinutes: 10 } });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    const chainId = h.services.catalogue.findChain(SLUG, 'testnet')!.id;
    await indexAll();
    await h.stopWorker(); // the tick and checkout_payments run below, by hand
    try {
      clock.advance(10 * 60_000 - 1_000);
      await eth().sendToken('USDC', c.address, '4');
      // The range's transaction records the deposit (seen one second before the deadline, and
      // attached to the session), then waits for the cursor, held here as a previous range
      // still being written holds it.
      let release!: () => void;
      const holding = new Promise<void>((r) => (release = r));
      let pid = 0;
      const holder = h.database.db.transaction().execute(async (tx) => {
        pid = (await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(tx)).rows[0]!.pid;
        await sql`SELECT 1 FROM chain_cursors WHERE chain_id = ${chainId} FOR UPDATE`.execute(tx);
        await holding;
      });
      await eventually(
        async () => pid,
        (p) => p > 0,
        10_000,
      );
      const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
      const stepping = indexer.step();
      const blocked = sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity WHERE ${pid}::int = ANY(pg_blocking_pids(pid))`;
      await eventually(
        async () => Number((await blocked.execute(h.database.db)).rows[0]!.n),
        (n) => n > 0,
        30_000,
      );
      // The deadline passes while that transaction is still open: the tick (and any read) must
      // not close the session on the payments it can see so far.
      clock.advance(2_000);
      const ticked = h.services.checkouts.tick();
      await new Promise((r) => setTimeout(r, 300));
      release();
      await holder;
      await stepping;
      await ticked;
      await indexAll();
      // What the worker's checkout_payments job then does.
      const { rows } = await sql<{ id: string }>`SELECT transaction_id AS id FROM checkout_payments WHERE checkout_id = ${c.id}`.execute(
        h.database.db,
      );
      expect(rows).toHaveLength(1);
      await h.services.checkouts.takePayments([rows[0]!.id], new Date(clock.now().getTime() - 2_000));
      expect(await checkout(c.id)).toMatchObject({ status: 'processing', amountPaid: '4', paidLate: false });
    } finally {
      await h.startWorker();
    }
    await eth().mine(2);
    await indexAll();
    expect(await until(c.id, (x) => x.status === 'settled')).toMatchObject({ paidLate: false, amountConfirmed: '4' });
    const mine = hooks().filter((e) => e.data.id === c.id);
    expect(mine.map((e) => e.event)).not.toContain('checkout.expired');
  });

  it('a payment the indexer sees "in time" (its clock behind) after the session expired is paidLate, and told', async () => {
    const link = await createLink({ name: 'Skewed', amount: '2', configurations: { expiresInMinutes: 10 } });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    clock.advance(10 * 60_000 + 1_000);
    expect(await checkout(c.id)).toMatchObject({ status: 'expired' }); // the worker's (or an API replica's) clock
    // The indexer's host clock is two seconds behind: it sees the payment one second before the deadline.
    clock.advance(-2_000);
    await eth().sendToken('USDC', c.address, '2');
    await indexAll();
    clock.advance(2_000);
    expect(await until(c.id, (x) => x.paidLate)).toMatchObject({ status: 'expired', amountPaid: '2' });
    await eventually(
      async () =>
        hooks()
          .filter((e) => e.data.id === c.id)
          .map((e) => e.event),
      (names) => names.includes('checkout.paid-late'),
      20_000,
    );
  });

  it('a payment attached while another process is expiring the session (its transaction still open) is paidLate, and told', async () => {
    const link = await createLink({ name: 'Expiring', amount: '2', configurations: { expiresInMinutes: 10 } });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    await indexAll();
    await h.stopWorker(); // the tick and checkout_payments run below, by hand
    const webhooks = h.services.webhooks;
    const emit = webhooks.emit.bind(webhooks);
    let reached!: () => void;
    const atEmit = new Promise<void>((r) => (reached = r));
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    // The tick's recompute pauses once it has written `expired`, its transaction still open
    // (its row lock held), as a busy database or a slow process would hold it.
    webhooks.emit = async (tx, e) => {
      if (e.name === 'checkout.expired' && (e.data as { id?: string }).id === c.id) {
        reached();
        await gate;
      }
      return emit(tx, e);
    };
    try {
      clock.advance(10 * 60_000 + 1_000);
      const ticked = h.services.checkouts.tick();
      await atEmit;
      // The indexer's host clock is two seconds behind: it sees the payment one second before
      // the deadline, while the session's expiry is being written.
      clock.advance(-2_000);
      await eth().sendToken('USDC', c.address, '2');
      const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
      const stepping = (async () => {
        for (let i = 0; i < 100 && (await indexer.step()) !== 'idle'; i++);
      })();
      const waiting = sql<{ n: string }>`SELECT count(*) AS n FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%checkout_payments%'`;
      await eventually(
        async () => Number((await waiting.execute(h.database.db)).rows[0]!.n),
        (n) => n > 0,
        30_000,
      );
      release();
      await ticked;
      await stepping;
      clock.advance(2_000);
      // What the worker's checkout_payments job then does.
      const { rows } = await sql<{ id: string }>`SELECT transaction_id AS id FROM checkout_payments WHERE checkout_id = ${c.id}`.execute(
        h.database.db,
      );
      expect(rows).toHaveLength(1);
      await h.services.checkouts.takePayments([rows[0]!.id], new Date(clock.now().getTime() - 3_000));
      expect(await checkout(c.id)).toMatchObject({ status: 'expired', amountPaid: '2', paidLate: true });
    } finally {
      release();
      webhooks.emit = emit;
      await h.startWorker();
    }
    await eventually(
      async () =>
        hooks()
          .filter((e) => e.data.id === c.id)
          .map((e) => e.event),
      (names) => names.includes('checkout.expired') && names.includes('checkout.paid-late'),
      20_000,
    );
  });

  it('expires on the service clock; money after that is paidLate', async () => {
    const link = await createLink({ name: 'Late', amount: '3', configurations: { expiresInMinutes: 10 } });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    const qr = await fetch(`${c.url}/qr.svg`);
    expect(qr.status).toBe(200);
    expect(qr.headers.get('content-type')).toBe('image/svg+xml');
    clock.advance(10 * 60_000);
    expect(await checkout(c.id)).toMatchObject({ status: 'expired', paidLate: false });
    // The page tells the payer not to send money any more: its QR code is gone with it.
    expect((await fetch(`${c.url}/qr.svg`)).status).toBe(404);
    await eth().sendToken('USDC', c.address, '3');
    await eth().mine(2);
    await indexAll();
    expect(await until(c.id, (x) => x.paidLate)).toMatchObject({ status: 'expired', amountPaid: '3' });
    await eventually(
      async () =>
        hooks()
          .filter((e) => e.data.id === c.id)
          .map((e) => e.event),
      (names) => names.includes('checkout.expired') && names.includes('checkout.paid-late'),
      20_000,
    );
  });

  it('a page that starts watching after the poll saw its session change is still told (it read the state before)', async () => {
    const link = await createLink({ name: 'Watched', amount: '2', configurations: { expiresInMinutes: 10 } });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    const live = new LiveCheckouts(
      h.services.checkouts,
      (err) => {
        throw err;
      },
      50,
    );
    try {
      const first: string[] = [];
      const stopFirst = live.watch(c.id, (row) => first.push(row.status));
      await eventually(
        async () => first,
        (s) => s.includes('new'),
        10_000,
      );
      clock.advance(10 * 60_000);
      await eventually(
        async () => first,
        (s) => s.includes('expired'),
        10_000,
      );
      // A second page read the session while it was 'new', and comes to watch only now.
      const second: string[] = [];
      const stopSecond = live.watch(c.id, (row) => second.push(row.status));
      await eventually(
        async () => second,
        (s) => s.includes('expired'),
        10_000,
      );
      stopFirst();
      stopSecond();
    } finally {
      live.stop();
    }
  });

  it('stops taking sessions at its payment limit; two payers at once get their own address and amount', async () => {
    const link = await createLink({ name: 'Limited', paymentLimit: 1, inactiveMessage: 'All gone' });
    const a = await startCheckout(link.id, { asset: 'USDC', amount: '1' });
    await eth().sendToken('USDC', a.address, a.amount);
    await eth().mine(2);
    await indexAll();
    await until(a.id, (x) => x.status === 'settled');
    expect((await h.api('GET', `/v1/payment_links/${link.id}`, { key: key() })).body.data).toMatchObject({ active: false, payments: 1 });
    const refused = await h.api('POST', `/v1/payment_links/${link.id}/checkouts`, { key: key(), body: { asset: 'USDC', amount: '1' } });
    expect(refused.body).toMatchObject({ error: 'PAYMENT_LINK_INACTIVE', message: 'All gone' });

    const two = await createLink({ name: 'Two places', paymentLimit: 2, configurations: { expiresInMinutes: 10, monitoringMinutes: 0 } });
    const [x, y] = await Promise.all([
      startCheckout(two.id, { asset: 'USDC', amount: '1' }),
      startCheckout(two.id, { asset: 'USDC', amount: '2' }),
    ]);
    expect(x.address).not.toBe(y.address);
    expect([x.amount, y.amount].sort()).toEqual(['1', '2']);
    const listed = await h.api('GET', `/v1/payment_links/${two.id}/checkouts`, { key: key() });
    expect(listed.body.data.map((c: any) => c.id).sort()).toEqual([x.id, y.id].sort());
  });

  it('never settles more than its payment limit: a payer paying holds a place, given back when the session expires', async () => {
    const link = await createLink({ name: 'Two tickets', paymentLimit: 2, configurations: { expiresInMinutes: 10, monitoringMinutes: 0 } });
    const count = async () =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM checkouts WHERE link_id = ${link.id}`.execute(h.database.db)).rows[0]!.n;
    // Four payers at once for two places: two sessions, two refusals, nothing else written.
    const starts = await Promise.all(
      [1, 2, 3, 4].map(() => h.api('POST', `/v1/payment_links/${link.id}/checkouts`, { key: key(), body: { asset: 'USDC', amount: '1' } })),
    );
    expect(starts.map((r) => r.status).sort()).toEqual([200, 200, 422, 422]);
    const refusal = starts.find((r) => r.status === 422)!.body;
    expect(refusal).toMatchObject({
      error: 'PAYMENT_LINK_INACTIVE',
      message: 'All 2 payment(s) this link takes are settled or held by payers paying now: try again later',
    });
    expect(await count()).toBe(2);
    const [a, b] = starts.filter((r) => r.status === 200).map((r) => r.body.data);
    // Still active (nothing settled), yet full while both are being paid.
    expect((await h.api('GET', `/v1/payment_links/${link.id}`, { key: key() })).body.data).toMatchObject({ active: true, payments: 0 });
    await eth().sendToken('USDC', a.address, '1');
    await eth().mine(2);
    await indexAll();
    await until(a.id, (x) => x.status === 'settled');
    expect(
      (await h.api('POST', `/v1/payment_links/${link.id}/checkouts`, { key: key(), body: { asset: 'USDC', amount: '1' } })).status,
    ).toBe(422);
    // The other payer never pays: its session expires and gives its place back.
    clock.advance(11 * 60_000);
    expect((await checkout(b.id)).status).toBe('expired');
    const c = await startCheckout(link.id, { asset: 'USDC', amount: '1' });
    await eth().sendToken('USDC', c.address, '1');
    await eth().mine(2);
    await indexAll();
    await until(c.id, (x) => x.status === 'settled');
    expect((await h.api('GET', `/v1/payment_links/${link.id}`, { key: key() })).body.data).toMatchObject({ active: false, payments: 2 });
  });

  it('a payment AML screening holds is seen, not confirmed: released, it settles; still held when the window ends, invalid', async () => {
    const link = await createLink({ name: 'Held', amount: '4', configurations: { expiresInMinutes: 10, monitoringMinutes: 20 } });
    const [released, held] = [await startCheckout(link.id, { asset: 'USDC' }), await startCheckout(link.id, { asset: 'USDC' })];
    // A payer the devnet sanctions oracle lists: its deposits are FLAGGED and held (the wallet's default onDepositHit HOLD).
    const sender = privateKeyToAccount(generatePrivateKey());
    await setDevnetSanctioned(eth().config.rpcUrl, eth().config.chainId, [sender.address]);
    await eth().rpc('anvil_setBalance', [sender.address, '0x56BC75E2D63100000']);
    await eth().sendToken('USDC', sender.address, '8');
    const payer = createWalletClient({
      chain: devnetChain(eth().config.chainId, eth().config.rpcUrl),
      transport: http(eth().config.rpcUrl),
      account: sender,
    });
    const hashes: Hex[] = [];
    for (const to of [released.address, held.address] as Address[]) {
      const hash = await payer.sendTransaction({
        to: eth().token('USDC').address as Address,
        data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, parseUnits('4', 6)] }),
      });
      await eth().pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
      hashes.push(hash);
    }
    await eth().mine(2);
    await indexAll();
    const { rows } = await sql<{ id: string; hash: string; status: string; aml_held: boolean }>`
      SELECT id, hash, status, aml_held FROM transactions WHERE type = 'DEPOSIT' AND hash IN (${sql.join(hashes)})`.execute(h.database.db);
    expect(rows.map((r) => [r.status, r.aml_held])).toEqual([
      ['SUCCESS', true],
      ['SUCCESS', true],
    ]);

    // Confirmed on chain, but held: both sessions saw the money and wait (not settled).
    for (const c of [released, held]) {
      const seen = await until(c.id, (x) => x.amountPaid === '4');
      expect(seen).toMatchObject({ status: 'processing', amountConfirmed: '0', partial: false });
    }

    // Released by an operator: that session settles; the other is still held.
    const depositOf = rows.find((r) => r.hash === hashes[0])!.id;
    const release = await h.api('POST', `/v1/wallets/${h.wallets[SLUG]!.id}/transactions/${depositOf}/aml/release`, { key: h.businessKey });
    expect(release.status, JSON.stringify(release.body)).toBe(200);
    expect(await until(released.id, (x) => x.status === 'settled')).toMatchObject({ amountPaid: '4', amountConfirmed: '4' });
    expect(await checkout(held.id)).toMatchObject({ status: 'processing', amountConfirmed: '0' });

    // Past expiresAt it still waits (seen in time); the monitoring window ends with it held: invalid.
    clock.advance(15 * 60_000);
    expect(await checkout(held.id)).toMatchObject({ status: 'processing' });
    clock.advance(15 * 60_000);
    expect(await checkout(held.id)).toMatchObject({ status: 'invalid', amountPaid: '4', amountConfirmed: '0' });
  });
});

describe('a payment reorged away', () => {
  it('seen in time, then gone: the session waits out its window and ends invalid, never expired', async () => {
    const link = await createLink({ name: 'Reorged', amount: '3', configurations: { expiresInMinutes: 10, monitoringMinutes: 20 } });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    const snap = await eth().snapshot();
    await eth().sendToken('USDC', c.address, '3');
    await indexAll();
    expect(await until(c.id, (x) => x.amountPaid === '3')).toMatchObject({ status: 'processing', amountDue: '0' });
    await eth().revert(snap);
    await eth().sendFiller();
    await eth().mine(3);
    await indexAll();
    const { rows } = await sql<{ status: string }>`
      SELECT t.status FROM checkout_payments p JOIN transactions t ON t.id = p.transaction_id WHERE p.checkout_id = ${c.id}`.execute(
      h.database.db,
    );
    expect(rows.map((r) => r.status)).toEqual(['FAILED']);
    // Told at once, before its deadline: the payment no longer counts, and the payer is asked
    // again (amount due, payment URI), the clock unmoved.
    expect(await until(c.id, (x) => x.amountPaid === '0')).toMatchObject({ status: 'processing', amountDue: '3' });
    expect((await checkout(c.id)).paymentUri).toContain(c.address);
    clock.advance(15 * 60_000);
    expect((await checkout(c.id)).status).toBe('processing');
    clock.advance(15 * 60_000);
    expect(await checkout(c.id)).toMatchObject({ status: 'invalid', amountConfirmed: '0' });
  });
});

describe('a payment reorged away, then mined again', () => {
  it('counts again as soon as it is back (nothing due, no URI: the payer is not asked twice), and settles', async () => {
    const link = await createLink({ name: 'Re-mined', amount: '3', configurations: { expiresInMinutes: 10, monitoringMinutes: 20 } });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    const raw = await eth().signTokenTransfer('USDC', c.address, '3');
    const snap = await eth().snapshot();
    await eth().sendRaw(raw);
    await indexAll();
    expect(await until(c.id, (x) => x.amountPaid === '3')).toMatchObject({ status: 'processing', amountDue: '0' });
    await eth().revert(snap);
    await eth().sendFiller();
    await eth().mine(3);
    await indexAll();
    expect(await until(c.id, (x) => x.amountPaid === '0')).toMatchObject({ status: 'processing', amountDue: '3' });

    // The same signed transfer mined again: the failed deposit is revived, and the session follows it.
    await eth().sendRaw(raw);
    await indexAll();
    const back = await until(c.id, (x) => x.amountPaid === '3');
    expect(back).toMatchObject({ status: 'processing', amountDue: '0', paymentUri: null });
    await eth().mine(3);
    await indexAll();
    expect(await until(c.id, (x) => x.status === 'settled')).toMatchObject({ amountPaid: '3', amountConfirmed: '3' });
  });
});

describe('a payment reorged away, then a late payment', () => {
  it('the recompute the late payment makes does not forget that enough was seen in time: invalid at the end, never expired', async () => {
    const link = await createLink({
      name: 'Reorged, then late',
      amount: '3',
      configurations: { expiresInMinutes: 10, monitoringMinutes: 20 },
    });
    const c = await startCheckout(link.id, { asset: 'USDC' });
    const snap = await eth().snapshot();
    await eth().sendToken('USDC', c.address, '3');
    await indexAll();
    expect(await until(c.id, (x) => x.amountPaid === '3')).toMatchObject({ status: 'processing', amountDue: '0' });
    await eth().revert(snap);
    await eth().sendFiller();
    await eth().mine(3);
    await indexAll();
    // Past its deadline, a small payment comes late: the session is recomputed with the first one failed.
    clock.advance(11 * 60_000);
    await eth().sendToken('USDC', c.address, '0.5');
    await eth().mine(3);
    await indexAll();
    await until(c.id, (x) => x.paidLate === true);
    const waiting = await checkout(c.id);
    expect(waiting.status).toBe('processing');
    clock.advance(4 * 60_000);
    // It saw 3 USDC in time: still waiting out the window, as without the late payment.
    expect((await checkout(c.id)).status).toBe('processing');
    clock.advance(15 * 60_000);
    expect((await checkout(c.id)).status).toBe('invalid');
    const told = hooks()
      .filter((e) => e.data?.id === c.id)
      .map((e) => e.event);
    expect(told).not.toContain('checkout.expired');
  });
});

describe('an asset the wallet stopped taking', () => {
  it('starts no session in it: its deposits would never be recorded, the payer paying into a session that sees nothing', async () => {
    const w = h.wallets[SLUG]!;
    const usdt = h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === 'USDT')!;
    const link = await createLink({ name: 'Disabled later', amount: '2', slug: 'disabled-later' });
    expect(link.accepts.map((a: any) => a.symbol).sort()).toEqual(['USDC', 'USDT']);
    const off = await h.api('PATCH', `/v1/wallets/${w.id}/assets/${usdt.id}`, { key: key(), body: { isActive: false } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    try {
      const before = (await h.api('GET', `/v1/payment_links/${link.id}/checkouts`, { key: key() })).body.meta.totalItems;
      // The API refuses it, naming the asset; nothing is written (no session, no address).
      const refused = await h.api('POST', `/v1/payment_links/${link.id}/checkouts`, { key: key(), body: { asset: 'USDT' } });
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([422, 'ASSET_NOT_ENABLED']);
      expect(refused.body.details?.[0]?.field).toBe('asset');
      // The payer's page offers only what the wallet still takes, and refuses the other choice.
      const page = await (await fetch(`${h.baseUrl}/pay/disabled-later`)).text();
      expect(page).toContain(`${w.id}:${h.services.catalogue.findChain(SLUG, 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id}`);
      expect(page).not.toContain(`${w.id}:${usdt.id}`);
      const posted = await fetch(`${h.baseUrl}/pay/disabled-later`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ choice: `${w.id}:${usdt.id}` }).toString(),
        redirect: 'manual',
      });
      expect(posted.status).toBe(422);
      expect((await h.api('GET', `/v1/payment_links/${link.id}/checkouts`, { key: key() })).body.meta.totalItems).toBe(before);
      // What it still takes starts as before.
      expect((await startCheckout(link.id, { asset: 'USDC' })).currency).toBe('USDC');
    } finally {
      const on = await h.api('PATCH', `/v1/wallets/${w.id}/assets/${usdt.id}`, { key: key(), body: { isActive: true } });
      expect(on.status, JSON.stringify(on.body)).toBe(200);
    }
  });
});

describe('the checkout tick', () => {
  it('sessions it cannot move on (their asset left the catalogue) do not hold back the others, however many', async () => {
    const link = await createLink({ name: 'Tick', amount: '1', configurations: { expiresInMinutes: 10 } });
    const broken = await startCheckout(link.id, { asset: 'USDC' });
    const healthy = await startCheckout(link.id, { asset: 'USDC' });
    // An asset the running catalogue does not know (as when its chain leaves the chains file):
    // the broken session names it, and is the first due.
    const chainId = h.services.catalogue.findChain(SLUG, 'testnet')!.id;
    const gone = '0190f0a2-7b3c-7d4e-8f00-0000000000aa';
    await sql`INSERT INTO assets (id, chain_id, name, symbol, address, decimals)
              VALUES (${gone}, ${chainId}, 'Gone', 'GONE', ${`0x${'ab'.repeat(20)}`}, 6) ON CONFLICT DO NOTHING`.execute(h.database.db);
    await sql`UPDATE checkouts SET asset_id = ${gone}, expires_at = expires_at - interval '1 second' WHERE id = ${broken.id}`.execute(
      h.database.db,
    );
    clock.advance(11 * 60_000);
    // Pages of one: the broken session fills the first page (as 500 of them would fill a
    // page of 500), and the tick still reaches the healthy one.
    await h.services.checkouts.tick(1);
    const row = async (id: string) =>
      (await sql<{ status: string }>`SELECT status FROM checkouts WHERE id = ${id}`.execute(h.database.db)).rows[0]!.status;
    expect(await row(healthy.id)).toBe('expired');
    expect(await row(broken.id)).toBe('new');
  });
});
