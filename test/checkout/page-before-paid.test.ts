/**
 * What the payer's page carries before the session is paid, and a redirect prefilled from
 * the link's URL: the link's success message and redirect (what the payment buys, perhaps)
 * are in neither the page nor its live status of an unpaid session; a redirect a URL parser
 * reads but the session's check would refuse as written (a space, an upper-case scheme) is
 * taken as the parser writes it, so the form the page fills in can be submitted.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { payPage } from './pay-page.js';

const SLUG = 'devnet-eth';
let h: Harness;

beforeAll(async () => {
  h = await startHarness();
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

const page = (method: 'GET' | 'POST', path: string, init: { body?: string; type?: string } = {}) => payPage(h.baseUrl, method, path, init);

/** The first status event of a session's live stream. */
async function firstStatus(path: string): Promise<Record<string, unknown>> {
  const controller = new AbortController();
  const res = await fetch(`${h.baseUrl}/pay${path}`, { signal: controller.signal });
  const reader = res.body!.getReader();
  let text = '';
  try {
    while (!/\n\n/.test(text.slice(text.indexOf('event: status')))) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
  } finally {
    controller.abort();
  }
  return JSON.parse(/event: status\ndata: (.*)\n/.exec(text)![1]!);
}

/** The form's fields as a browser would post them (inputs with a value, the checked radio). */
function fieldsOf(htmlText: string): URLSearchParams {
  const out = new URLSearchParams();
  const unescape = (v: string) =>
    v
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  for (const m of htmlText.matchAll(/<input([^>]*)>/g)) {
    const attrs = m[1]!;
    const name = /name="([^"]*)"/.exec(attrs)?.[1];
    const value = /value="([^"]*)"/.exec(attrs)?.[1];
    if (!name || value === undefined) continue;
    if (/type="radio"/.test(attrs) && !/checked/.test(attrs)) continue;
    if (value === '') continue;
    out.set(name, unescape(value));
  }
  return out;
}

describe('a redirect prefilled from the URL', () => {
  for (const [what, redirectUrl, written] of [
    [
      'a space in its query (a URL parser reads it)',
      'https://shop.example/thanks?note=hello world',
      'https://shop.example/thanks?note=hello%20world',
    ],
    ['an upper-case scheme (a URL parser reads it)', 'HTTPS://shop.example/thanks', 'https://shop.example/thanks'],
  ] as const) {
    it(`the payer can still pay when the link's URL carries one with ${what}`, async () => {
      expect(new URL(redirectUrl).protocol).toBe('https:');
      const slug = `redirect-${Math.random().toString(36).slice(2, 8)}`;
      await createLink({ name: 'Prefilled redirect', amount: '1', slug });
      const chooser = await page('GET', `/${slug}?redirectUrl=${encodeURIComponent(redirectUrl)}`);
      expect(chooser.status).toBe(200);
      const form = fieldsOf(chooser.text);
      expect(form.get('choice')).toBeTruthy();
      // The browser posts the form as the page wrote it (the redirect in a hidden field).
      const posted = await page('POST', `/${slug}`, { type: 'application/x-www-form-urlencoded', body: form.toString() });
      // docs/checkout.md: the query's redirectUrl is taken, or dropped when the parser does not read it; never a dead end.
      expect(posted.status, /<p class="error"[^>]*>([^<]*)</.exec(posted.text)?.[1] ?? posted.text.slice(0, 200)).toBe(303);
      const id = posted.location!.split('/').pop()!;
      const { rows } = await sql<{ redirect_url: string }>`SELECT redirect_url FROM checkouts WHERE id = ${id}`.execute(h.database.db);
      expect(rows).toEqual([{ redirect_url: written }]);
    });
  }
});

describe('what an unpaid session page shows', () => {
  it("does not hand the payer the link's success message before the session settles", async () => {
    const slug = `success-${Math.random().toString(36).slice(2, 8)}`;
    const secret = 'Your download code: DL-7f3a9c';
    await createLink({ name: 'Ebook', amount: '1', slug, successMessage: secret });
    const chooser = await page('GET', `/${slug}`);
    const form = fieldsOf(chooser.text);
    const posted = await page('POST', `/${slug}`, { type: 'application/x-www-form-urlencoded', body: form.toString() });
    expect(posted.status).toBe(303);
    const id = posted.location!.split('/').pop()!;
    const { rows } = await sql<{ status: string }>`SELECT status FROM checkouts WHERE id = ${id}`.execute(h.database.db);
    expect(rows[0]!.status).toBe('new'); // nothing paid
    const shown = await page('GET', `/${slug}/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain('Waiting for your payment');
    expect(shown.text).not.toContain('DL-7f3a9c');
    // Nor its live status.
    const first = await firstStatus(`/${slug}/${id}/events`);
    expect(first).toMatchObject({ status: 'new', message: null, redirect: null });
  });

  it("does not hand the payer the link's redirect (with status=new) before the session settles", async () => {
    const slug = `redir-${Math.random().toString(36).slice(2, 8)}`;
    await createLink({ name: 'Course', amount: '1', slug, redirectUrl: 'https://shop.example/course/access' });
    const form = fieldsOf((await page('GET', `/${slug}`)).text);
    const posted = await page('POST', `/${slug}`, { type: 'application/x-www-form-urlencoded', body: form.toString() });
    expect(posted.status).toBe(303);
    const id = posted.location!.split('/').pop()!;
    const shown = await page('GET', `/${slug}/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.text).not.toContain('shop.example/course/access');
  });
});
