/**
 * Bad input to payment links and the payer's page is a 4xx that writes nothing, never a 500:
 * text PostgreSQL cannot store inside a multipart form's JSON fields, a redirect URL the
 * pattern lets through but no URL parser reads (refused when given, and survived when one
 * is stored anyway), a zero amount (the column's CHECK), and the payer's page answering
 * client errors (bad query text, a body of the wrong type, size or shape) with their own
 * status rather than its "something went wrong" page.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { payPage } from './pay-page.js';
import { createDashboardUser, DashClient } from '../dashboard/support.js';

const SLUG = 'devnet-eth';
const USER = { email: 'links@input.example', password: 'correct horse battery' };
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
  await createDashboardUser(h, h.businessId, USER.email, USER.password);
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

const key = () => h.wallets[SLUG]!.apiKey;

async function createLink(body: Record<string, unknown>) {
  const res = await h.api('POST', '/v1/payment_links', { key: key(), body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any>;
}

async function count(table: 'payment_links' | 'checkouts'): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ${sql.table(table)}`.execute(h.database.db);
  return rows[0]!.n;
}

async function row(id: string): Promise<Record<string, any>> {
  const { rows } = await sql<Record<string, any>>`SELECT * FROM payment_links WHERE id = ${id}`.execute(h.database.db);
  return rows[0]!;
}

function form(fields: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
}

async function multipart(method: 'POST' | 'PATCH', path: string, fields: Record<string, string>) {
  const res = await fetch(`${h.baseUrl}${path}`, { method, headers: { 'x-api-key': key() }, body: form(fields) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

const page = (method: 'GET' | 'POST', path: string, init: { body?: string; type?: string } = {}) => payPage(h.baseUrl, method, path, init);

describe('multipart payment-link forms', () => {
  it('refuses NUL and unpaired surrogates inside the JSON fields (400, as a JSON body would be), writing nothing', async () => {
    const link = await createLink({ name: 'Form target', metadata: { kept: 'yes' } });
    const links = await count('payment_links');
    for (const metadata of ['{"a":"\\u0000"}', '{"a":"\\ud800"}', '{"\\u0000":"x"}']) {
      const created = await multipart('POST', '/v1/payment_links', { name: 'Nul', metadata });
      expect(created.status, metadata).toBe(400);
      expect(created.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
      expect(created.body.details[0].field).toMatch(/^metadata/);
      const patched = await multipart('PATCH', `/v1/payment_links/${link.id}`, { metadata });
      expect(patched.status, metadata).toBe(400);
      expect(patched.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
      expect(patched.body.details[0].field).toMatch(/^metadata/);
    }
    const configurations = await multipart('POST', '/v1/payment_links', {
      name: 'Nul',
      accepts: JSON.stringify([{ walletId: h.wallets[SLUG]!.id, assets: ['US\u0000DC'] }]),
    });
    expect(configurations.status).toBe(400);
    expect(configurations.body.details[0].field).toBe('accepts.0.assets.0');
    expect(await count('payment_links')).toBe(links);
    expect((await row(link.id)).metadata).toEqual({ kept: 'yes' });
  });
});

describe('redirect URLs', () => {
  const BAD = ['http://[', 'http://exa%mple.com', 'https://a b'.replace(' ', '%zz')];

  it('refuses one no URL parser reads, on create, update and a session (400 redirectUrl), writing nothing', async () => {
    const link = await createLink({ name: 'Redirects', amount: '1', redirectUrl: 'https://shop.example/done' });
    const [links, sessions] = [await count('payment_links'), await count('checkouts')];
    for (const redirectUrl of BAD) {
      for (const res of [
        await h.api('POST', '/v1/payment_links', { key: key(), body: { name: 'Bad redirect', redirectUrl } }),
        await h.api('PATCH', `/v1/payment_links/${link.id}`, { key: key(), body: { redirectUrl } }),
        await h.api('POST', `/v1/payment_links/${link.id}/checkouts`, { key: key(), body: { asset: 'USDC', redirectUrl } }),
      ]) {
        expect(res.status, `${redirectUrl}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'redirectUrl' }] });
      }
    }
    expect([await count('payment_links'), await count('checkouts')]).toEqual([links, sessions]);
    expect((await row(link.id)).redirect_url).toBe('https://shop.example/done');
  });

  it("a session's page survives one stored before the check (no redirect rather than a 500)", async () => {
    const link = await createLink({ name: 'Stored bad', amount: '1', slug: 'stored-bad-redirect' });
    await sql`UPDATE payment_links SET redirect_url = 'http://[' WHERE id = ${link.id}`.execute(h.database.db);
    const c = (await h.api('POST', `/v1/payment_links/${link.id}/checkouts`, { key: key(), body: { asset: 'USDC' } })).body.data;
    const shown = await page('GET', `/stored-bad-redirect/${c.id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain('http://[');
  });

  it("the payer's page drops a prefilled one no URL parser reads (the session is made without it)", async () => {
    const link = await createLink({ name: 'Prefill', amount: '1', slug: 'prefill-redirect' });
    const choice = `${link.accepts[0].walletId}:${link.accepts[0].assetId}`;
    const chooser = await page('GET', '/prefill-redirect?redirectUrl=' + encodeURIComponent('http://['));
    expect(chooser.status).toBe(200);
    expect(chooser.text).not.toContain('http://[');
    const started = await page('POST', '/prefill-redirect', {
      type: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({ choice, redirectUrl: 'http://exa%mple.com' }).toString(),
    });
    expect(started.status).toBe(303);
    const id = started.location!.split('/').pop()!;
    const { rows } = await sql<{ redirect_url: string | null }>`SELECT redirect_url FROM checkouts WHERE id = ${id}`.execute(h.database.db);
    expect(rows[0]!.redirect_url).toBeNull();
    expect((await page('GET', `/prefill-redirect/${id}`)).status).toBe(200);
  });
});

describe("the pages' files", () => {
  it("the pages' own files answer only for their files: an object's property name is a 404, not an empty 200", async () => {
    for (const base of ['/pay/assets', '/dashboard/assets']) {
      const own = await fetch(`${h.baseUrl}${base}/${base.startsWith('/pay') ? 'pay.css' : 'dashboard.css'}`);
      expect(own.status).toBe(200);
      expect(own.headers.get('content-type')).toBe('text/css; charset=utf-8');
      for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
        const res = await fetch(`${h.baseUrl}${base}/${name}`);
        expect(res.status, `${base}/${name}`).toBe(404);
        expect(res.headers.get('cache-control') ?? '', `${base}/${name}`).not.toContain('public');
      }
    }
  });
});

describe('a long slug', () => {
  it("the longest slug a link takes (250 characters) has the payer's pages, not the router's 400", async () => {
    // The router refused any path segment past 100 characters (Fastify's default), so a link
    // made with a slug of 101 to 250 was answered 400 JSON at its own url: nobody could pay it.
    const slug = `${'long-slug-'.repeat(24)}0123456789`;
    expect(slug).toHaveLength(250);
    const link = await createLink({ name: 'Long slug', amount: '1', slug });
    expect(link.url).toBe(`${h.baseUrl}/pay/${slug}`);
    const chooser = await page('GET', `/${slug}`);
    expect(chooser.status).toBe(200);
    expect(chooser.text).toContain('Long slug');
    const choice = `${link.accepts[0].walletId}:${link.accepts[0].assetId}`;
    const started = await page('POST', `/${slug}`, {
      type: 'application/x-www-form-urlencoded',
      body: new URLSearchParams({ choice }).toString(),
    });
    expect(started.status).toBe(303);
    const session = await page('GET', started.location!.slice('/pay'.length));
    expect(session.status).toBe(200);
    expect((await page('GET', `${started.location!.slice('/pay'.length)}/qr.svg`)).status).toBe(200);
  });
});

describe('a zero amount', () => {
  it('is refused (400 amount) by POST, PATCH and the dashboard form, writing nothing', async () => {
    const link = await createLink({ name: 'Priced', amount: '5' });
    const links = await count('payment_links');
    for (const amount of ['0', '0.00', '0.000000']) {
      const created = await h.api('POST', '/v1/payment_links', { key: key(), body: { name: 'Free', amount } });
      expect(created.status, `${amount}: ${JSON.stringify(created.body)}`).toBe(400);
      expect(created.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'amount' }] });
      const patched = await h.api('PATCH', `/v1/payment_links/${link.id}`, { key: key(), body: { amount } });
      expect(patched.status, `${amount}: ${JSON.stringify(patched.body)}`).toBe(400);
      expect(patched.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'amount' }] });
    }
    const multi = await multipart('POST', '/v1/payment_links', { name: 'Free', amount: '0' });
    expect(multi.status).toBe(400);
    expect(multi.body).toMatchObject({ error: 'VALIDATION_ERROR', details: [{ field: 'amount' }] });

    const c = new DashClient(h.baseUrl);
    expect((await c.login(USER.email, USER.password)).status).toBe(303);
    const dash = await c.submit('/dashboard/payment-links', '/dashboard/payment-links', {
      name: 'Free',
      amount: '0',
      [`wallet_${h.wallets[SLUG]!.id}`]: 'on',
    });
    expect(dash.status).toBe(400);
    expect(dash.text).toContain('amount must be more than 0');

    expect(await count('payment_links')).toBe(links);
    expect((await row(link.id)).amount).toBe('5');
  });
});

describe("the payer's page answers client errors with their status", () => {
  let choice: string;
  beforeAll(async () => {
    const link = await createLink({ name: 'Page errors', slug: 'page-errors' });
    choice = `${link.accepts[0].walletId}:${link.accepts[0].assetId}`;
  });

  it('bad query text, a wrong content type, malformed or oversized bodies, and values of the wrong type: 4xx pages, nothing written', async () => {
    const sessions = await count('checkouts');
    const cases: [string, Awaited<ReturnType<typeof page>>, number][] = [
      ['NUL in the query', await page('GET', '/page-errors?name=%00'), 400],
      [
        'a lone surrogate in a JSON body',
        await page('POST', '/page-errors', { type: 'application/json', body: `{"choice":"${choice}","name":"\\ud800"}` }),
        400,
      ],
      [
        'NUL in the form',
        await page('POST', '/page-errors', { type: 'application/x-www-form-urlencoded', body: `choice=${choice}&name=%00` }),
        400,
      ],
      ['text/plain', await page('POST', '/page-errors', { type: 'text/plain', body: 'choice=x' }), 415],
      ['an unknown type', await page('POST', '/page-errors', { type: 'application/xml', body: '<a/>' }), 415],
      ['malformed JSON', await page('POST', '/page-errors', { type: 'application/json', body: '{"choice":' }), 400],
      ['a number for choice', await page('POST', '/page-errors', { type: 'application/json', body: '{"choice":1}' }), 400],
      [
        'an object for name',
        await page('POST', '/page-errors', { type: 'application/json', body: `{"choice":"${choice}","name":{}}` }),
        400,
      ],
      ['an array body', await page('POST', '/page-errors', { type: 'application/json', body: '["x"]' }), 400],
      [
        'a form over the limit',
        await page('POST', '/page-errors', {
          type: 'application/x-www-form-urlencoded',
          body: `choice=${choice}&name=${'x'.repeat(20_000)}`,
        }),
        413,
      ],
    ];
    // All at once, so a failure shows every case's status.
    expect(cases.map(([what, res]) => [what, res.status])).toEqual(cases.map(([what, , status]) => [what, status]));
    for (const [what, res] of cases) {
      expect(res.type, what).toMatch(/^text\/html/);
      expect(res.text, what).not.toContain('Something went wrong');
    }
    expect(await count('checkouts')).toBe(sessions);
  });
});
