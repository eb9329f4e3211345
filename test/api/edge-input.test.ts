/**
 * Client input that once answered 500 or hung, found by fuzzing every route: a leap second
 * in a date filter (valid RFC 3339, an Invalid Date to JavaScript), a malformed multipart
 * form, a fractional dashboard page, and HEAD on the two event streams (Node holds a HEAD's
 * headers back until an end a stream never reaches). Each is a 4xx or an answer now, and
 * writes nothing.
 */
import { connect } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { createDashboardUser, DashClient } from '../dashboard/support.js';
import { ERROR_CATALOGUE } from '../../src/http/error-catalogue.js';

let h: Harness;
let w: TestWallet;
let dash: DashClient;

beforeAll(async () => {
  h = await startHarness();
  w = Object.values(h.wallets)[0]!;
  await createDashboardUser(h, h.businessId, 'edge@example.com', 'a long enough password');
  dash = new DashClient(h.baseUrl);
  expect((await dash.login('edge@example.com', 'a long enough password')).status).toBe(303);
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

/** Status line of a raw request, or 0 when none arrives within `ms`. */
function statusWithin(head: string, ms: number): Promise<number> {
  const u = new URL(h.baseUrl);
  return new Promise((resolve) => {
    const s = connect(Number(u.port), u.hostname);
    const timer = setTimeout(() => {
      s.destroy();
      resolve(0);
    }, ms);
    s.once('data', (c: Buffer) => {
      clearTimeout(timer);
      s.destroy();
      resolve(Number(/^HTTP\/1\.1 (\d+)/.exec(c.toString('latin1'))?.[1] ?? -1));
    });
    s.on('error', () => undefined);
    s.write(head);
  });
}

describe('a leap second in startDate/endDate (valid to Ajv date-time, Invalid Date to JS)', () => {
  const LEAP = ['2026-01-01T23:59:60Z', '2026-06-30T23:59:60.5Z'];

  it('GET /v1/wallets/{id}/transactions and .../addresses/{id}/transactions answer 400, not 500', async () => {
    const child = (await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: { name: 'leap' } })).body.data;
    for (const base of [`/v1/wallets/${w.id}/transactions`, `/v1/wallets/${w.id}/addresses/${child.id}/transactions`]) {
      for (const field of ['startDate', 'endDate']) {
        for (const d of LEAP) {
          const res = await h.api('GET', `${base}?${field}=${encodeURIComponent(d)}`, { key: w.apiKey });
          expect(res.status, `${base}?${field}=${d}: ${JSON.stringify(res.body)}`).toBe(400);
          expect(res.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
        }
      }
    }
  });

  it('the dashboard transactions page answers 400 with the form, not the 500 page', async () => {
    for (const q of ['startDate=2026-01-01T23:59:60Z', 'endDate=2026-01-01T23:59:60', 'startDate=2026-01-01+23%3A59%3A60']) {
      const page = await dash.get(`/dashboard/wallets/${w.id}/transactions?${q}`);
      expect(page.status, q).toBe(400);
      expect(page.text).not.toContain('Something went wrong');
    }
  });
});

describe('POST /v1/payment_links with a malformed multipart body', () => {
  it('is a 4xx in the error envelope (no boundary, empty boundary, body not multipart), and writes nothing', async () => {
    const count = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM payment_links`.execute(h.database.db)).rows[0]!.n);
    const before = await count();
    for (const type of ['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=zz']) {
      const res = await h.api('POST', '/v1/payment_links', {
        key: w.apiKey,
        rawBody: JSON.stringify({ name: 'x' }),
        headers: { 'content-type': type },
      });
      expect(res.status, `${type}: ${JSON.stringify(res.body)}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${type}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
      expect(res.body).toMatchObject({ statusCode: res.status, error: expect.any(String), requestId: expect.any(String) });
    }
    const link = (await h.api('POST', '/v1/payment_links', { key: w.apiKey, body: { name: 'target' } })).body.data;
    const patched = await h.api('PATCH', `/v1/payment_links/${link.id}`, {
      key: w.apiKey,
      rawBody: '--zz\r\nContent-Disposition: form-data; name="name"\r\n\r\nx',
      headers: { 'content-type': 'multipart/form-data; boundary=zz' },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBeLessThan(500);
    expect(await count()).toBe(before + 1);
  });
});

describe('the dashboard approvals page with a fractional page number', () => {
  it('?page=1.5 is a page (or a 400), not the 500 page', async () => {
    const page = await dash.get('/dashboard/approvals?page=1.5');
    expect(page.status).toBeLessThan(500);
    expect(page.text).not.toContain('Something went wrong');
  });
});

describe('HEAD on the event streams', () => {
  it('HEAD /v1/events/stream answers (headers) instead of hanging', async () => {
    const status = await statusWithin(`HEAD /v1/events/stream HTTP/1.1\r\nhost: x\r\nx-api-key: ${h.businessKey}\r\n\r\n`, 3000);
    expect(status).toBeGreaterThan(0);
  });

  it('HEAD /pay/{slug}/{id}/events answers instead of hanging', async () => {
    const link = (await h.api('POST', '/v1/payment_links', { key: w.apiKey, body: { name: 'head', slug: 'head-link' } })).body.data;
    const c = (await h.api('POST', `/v1/payment_links/${link.id}/checkouts`, { key: w.apiKey, body: { asset: 'USDC', amount: '1' } })).body
      .data;
    const status = await statusWithin(`HEAD /pay/head-link/${c.id}/events HTTP/1.1\r\nhost: x\r\n\r\n`, 3000);
    expect(status).toBeGreaterThan(0);
  });

  it("unanswered HEADs do not use up the key's stream slots (a GET stream still opens)", async () => {
    const key = (await h.api('POST', '/v1/api-keys', { key: h.businessKey, body: { name: 'heads' } })).body.data.apiKey as string;
    const u = new URL(h.baseUrl);
    const held = Array.from({ length: 5 }, () => {
      const s = connect(Number(u.port), u.hostname);
      s.on('error', () => undefined);
      s.write(`HEAD /v1/events/stream HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\n\r\n`);
      return s;
    });
    await new Promise((r) => setTimeout(r, 1000));
    const status = await statusWithin(`GET /v1/events/stream HTTP/1.1\r\nhost: x\r\nx-api-key: ${key}\r\n\r\n`, 3000);
    for (const s of held) s.destroy();
    expect(status).toBe(200);
  });
});

/** Status and parsed body of a raw request (fetch would not send every one of these as is). */
function rawAnswer(head: string): Promise<{ status: number; body: any }> {
  const u = new URL(h.baseUrl);
  return new Promise((resolve, reject) => {
    const s = connect(Number(u.port), u.hostname);
    let out = '';
    s.on('data', (c: Buffer) => (out += c.toString('utf8')));
    s.on('end', () => {
      const status = Number(/^HTTP\/1\.1 (\d+)/.exec(out)?.[1] ?? -1);
      resolve({ status, body: JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4)) });
    });
    s.on('error', reject);
    s.write(head);
  });
}

describe('paths the router cannot read', () => {
  const rawGet = (path: string) => rawAnswer(`GET ${path} HTTP/1.1\r\nHost: x\r\nx-api-key: ${w.apiKey}\r\nConnection: close\r\n\r\n`);

  it('a broken percent-encoding or an overlong path segment is a 400 in the error envelope', async () => {
    for (const path of [`/v1/wallets/${w.id}/addresses/%E0%A4%A`, `/v1/wallets/${'a'.repeat(500)}`]) {
      const res = await rawGet(path);
      expect(res.status, path).toBe(400);
      expect(res.body, path).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR', requestId: expect.any(String) });
    }
  });
});

describe("Fastify's own refusals answer with catalogue codes", () => {
  const codes = new Set(Object.keys(ERROR_CATALOGUE));

  it('a JSON body sent as text/plain is 415 UNSUPPORTED_MEDIA_TYPE, as any other type is', async () => {
    const body = '{"name":"x"}';
    const res = await rawAnswer(
      `POST /v1/wallets/${w.id}/addresses HTTP/1.1\r\nHost: x\r\nx-api-key: ${w.apiKey}\r\nContent-Type: text/plain\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(res.status).toBe(415);
    expect(res.body).toMatchObject({ statusCode: 415, error: 'UNSUPPORTED_MEDIA_TYPE' });
  });

  it('a traversal under /docs and a QUERY without a body type name a code of the catalogue', async () => {
    for (const head of [
      'GET /docs/static/../../package.json HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      `QUERY /v1/blockchains HTTP/1.1\r\nHost: x\r\nx-api-key: ${w.apiKey}\r\nConnection: close\r\n\r\n`,
    ]) {
      const res = await rawAnswer(head);
      expect(res.status, head).toBeGreaterThanOrEqual(400);
      expect(res.status, head).toBeLessThan(500);
      expect(codes.has(res.body.error), `${head}: ${JSON.stringify(res.body)}`).toBe(true);
      expect(ERROR_CATALOGUE[res.body.error as keyof typeof ERROR_CATALOGUE].status, head).toBe(res.status);
    }
  });
});
