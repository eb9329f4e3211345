/**
 * The dashboard over plain HTTP: sign-in, sessions, CSRF, tenancy. No browser needed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startHarness, type Harness } from '../support/harness.js';
import { recordDeposit } from '../support/fixtures.js';
import { createDashboardUser, csrfOf, DashClient } from './support.js';

let h: Harness;
const A = { email: 'owner@a.example', password: 'correct horse battery' };
const B = { email: 'owner@b.example', password: 'another long secret' };
let otherWallet: { id: string; apiKey: string };
let walletA: string;

beforeAll(async () => {
  h = await startHarness();
  walletA = h.wallets['devnet-eth']!.id;
  await createDashboardUser(h, h.businessId, A.email, A.password);
  const other = await h.services.businesses.create('Other Business');
  await createDashboardUser(h, other.business.id, B.email, B.password);
  const created = await h.services.wallets.createForBusiness(other.business.id, {
    blockchain: 'devnet-eth',
    network: 'testnet',
    name: 'Foreign wallet',
  });
  otherWallet = { id: created.wallet.id, apiKey: created.apiKey };
});
afterAll(async () => {
  await h?.stop();
});

async function signedIn(user = A) {
  const c = new DashClient(h.baseUrl);
  const res = await c.login(user.email, user.password);
  expect(res.status).toBe(303);
  return c;
}

describe('signing in', () => {
  it('redirects every page and every change to the sign-in page without a session', async () => {
    const c = new DashClient(h.baseUrl);
    const tx = '0192f0c0-0000-7000-8000-000000000000';
    const gets = [
      '/dashboard',
      '/dashboard/wallets',
      '/dashboard/developers',
      `/dashboard/wallets/${walletA}`,
      `/dashboard/wallets/${walletA}/addresses`,
      `/dashboard/wallets/${walletA}/transactions?status=SUCCESS`,
      `/dashboard/wallets/${walletA}/transactions/${tx}`,
      '/dashboard/no-such-page',
    ];
    for (const path of gets) {
      const res = await c.get(path);
      expect(res.status, path).toBe(303);
      expect(res.location, path).toBe(`/dashboard/login?next=${encodeURIComponent(path)}`);
    }
    const posts = [
      '/dashboard/logout',
      '/dashboard/wallets',
      `/dashboard/wallets/${walletA}/sweeping`,
      `/dashboard/wallets/${walletA}/addresses`,
      `/dashboard/developers/${walletA}/key`,
      `/dashboard/developers/${walletA}/webhook`,
      `/dashboard/developers/${walletA}/test`,
      `/dashboard/wallets/${walletA}/transactions/${tx}/resend`,
    ];
    for (const path of posts) {
      const res = await c.request('POST', path, { webhookUrl: 'http://127.0.0.1:1/x', name: 'x' });
      expect(res.status, path).toBe(303);
      expect(res.location, path).toBe('/dashboard/login');
    }
    // Nothing was changed by the refused posts.
    const wallet = await h.api('GET', `/v1/wallets/${walletA}`, { key: h.businessKey });
    expect(wallet.body.data.webhookUrl).toBeNull();
  });

  it('refuses a wrong password and an unknown email alike, without a session cookie', async () => {
    for (const [email, password] of [
      [A.email, 'wrong password!'],
      ['nobody@a.example', A.password],
    ] as const) {
      const c = new DashClient(h.baseUrl);
      const res = await c.login(email, password);
      expect(res.status).toBe(401);
      expect(res.text).toContain('Wrong email or password.');
      expect(c.jar.has('wallet_dashboard')).toBe(false);
      expect((await c.get('/dashboard/wallets')).status).toBe(303);
    }
  });

  it('sets an HttpOnly, SameSite=Strict session cookie scoped to /dashboard (not Secure on loopback)', async () => {
    const c = new DashClient(h.baseUrl);
    const page = await c.get('/dashboard/login');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const res = await c.request('POST', '/dashboard/login', {
      _csrf: token,
      email: A.email,
      password: A.password,
      next: '/dashboard/developers',
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe('/dashboard/developers');
    const cookie = res.headers.getSetCookie().find((l) => l.startsWith('wallet_dashboard='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/dashboard/);
    expect(cookie).not.toMatch(/Secure/);
    // Behind a TLS proxy on the same host the cookie is Secure.
    const proxied = new DashClient(h.baseUrl);
    const form = await proxied.get('/dashboard/login');
    const viaProxy = await proxied.request(
      'POST',
      '/dashboard/login',
      { _csrf: /name="_csrf" value="([^"]+)"/.exec(form.text)![1]!, email: A.email, password: A.password },
      { 'x-forwarded-proto': 'https' },
    );
    expect(viaProxy.headers.getSetCookie().find((l) => l.startsWith('wallet_dashboard='))).toMatch(/; Secure/);
    const wallets = await c.get('/dashboard/wallets');
    expect(wallets.status).toBe(200);
    expect(wallets.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(wallets.text).toContain('Test devnet-eth');
  });

  it('refuses a sign-in form without its token, and never redirects off the dashboard', async () => {
    const c = new DashClient(h.baseUrl);
    const res = await c.request('POST', '/dashboard/login', { email: A.email, password: A.password });
    expect(res.status).toBe(403);
    expect(c.jar.has('wallet_dashboard')).toBe(false);
    const page = await c.get('/dashboard/login');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const evil = await c.request('POST', '/dashboard/login', {
      _csrf: token,
      email: A.email,
      password: A.password,
      next: '//evil.example/x',
    });
    expect(evil.location).toBe('/dashboard/wallets');
  });

  it('signs in through a link whose next holds text no Location header can carry (the wallets page instead of a 500)', async () => {
    // A link handed to the operator (`/dashboard/login?next=/dashboard/%E2%82%AC`) put its
    // next in the form; after the right password the 303 named it, Node refused the header
    // and the answer was a 500 without the session cookie: a session opened, never delivered.
    for (const next of ['/dashboard/\u20ac', '/dashboard/a\u0001b', '/dashboard/a\u007fb']) {
      const c = new DashClient(h.baseUrl);
      const page = await c.get(`/dashboard/login?next=${encodeURIComponent(next)}`);
      expect(page.status, next).toBe(200);
      const res = await c.request('POST', '/dashboard/login', { _csrf: csrfOf(page.text), email: A.email, password: A.password, next });
      expect(res.status, next).toBe(303);
      expect(res.location, next).toBe('/dashboard/wallets');
      expect(c.jar.has('wallet_dashboard'), next).toBe(true);
      // Signed in already: the sign-in page sends the browser on, to the same safe place.
      const again = await c.get(`/dashboard/login?next=${encodeURIComponent(next)}`);
      expect(again.status, next).toBe(303);
      expect(again.location, next).toBe('/dashboard/wallets');
      const dismissed = await c.submit('/dashboard/wallets', '/dashboard/notice/dismiss', { next });
      expect(dismissed.status, next).toBe(303);
      expect(dismissed.location, next).toBe('/dashboard/wallets');
    }
  });

  it('stores only a hash of the session id and a scrypt hash of the password', async () => {
    const c = await signedIn();
    const id = c.jar.get('wallet_dashboard')!;
    const { rows } = await sql<{
      n: string;
    }>`SELECT count(*) AS n FROM dashboard_sessions WHERE encode(id_hash, 'escape') LIKE ${`%${id}%`}`.execute(h.database.db);
    expect(rows[0]!.n).toBe('0');
    const users = await sql<{ password_hash: string }>`SELECT password_hash FROM dashboard_users WHERE email = ${A.email}`.execute(
      h.database.db,
    );
    expect(users.rows[0]!.password_hash).toMatch(/^scrypt\$15\$8\$1\$/);
    expect(users.rows[0]!.password_hash).not.toContain(A.password);
  });

  it('logout ends the session on the server, not only in the browser', async () => {
    const c = await signedIn();
    const stolen = c.jar.get('wallet_dashboard')!;
    const out = await c.submit('/dashboard/wallets', '/dashboard/logout');
    expect(out.status).toBe(303);
    expect(out.location).toBe('/dashboard/login?out=1');
    expect(c.jar.has('wallet_dashboard')).toBe(false);
    const replay = new DashClient(h.baseUrl);
    replay.jar.set('wallet_dashboard', stolen);
    expect((await replay.get('/dashboard/wallets')).status).toBe(303);
  });

  // The throttle itself (delays, other addresses, no writes while throttled, pruning): throttle.test.ts.
  it('without TRUST_PROXY, X-Forwarded-For is ignored: the client is the connection address', async () => {
    const res = await new DashClient(h.baseUrl).login('nobody@xff.example', 'a guess', { 'x-forwarded-for': '198.51.100.99' });
    expect(res.status).toBe(401);
    const { rows } = await sql<{ key: string }>`SELECT key FROM dashboard_login_throttle WHERE key LIKE 'client:%'`.execute(h.database.db);
    expect(rows.map((r) => r.key)).toEqual(['client:127.0.0.1']);
  });
});

describe('changes', () => {
  it('refuses a POST without the CSRF token, or from another origin, and writes nothing', async () => {
    const c = await signedIn();
    const url = 'http://127.0.0.1:9/hooks';
    const none = await c.request('POST', `/dashboard/developers/${walletA}/webhook`, { webhookUrl: url });
    expect(none.status).toBe(403);
    const wrong = await c.request('POST', `/dashboard/developers/${walletA}/webhook`, { webhookUrl: url, _csrf: 'x'.repeat(32) });
    expect(wrong.status).toBe(403);
    const page = await c.get('/dashboard/developers');
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)![1]!;
    const foreign = await c.request(
      'POST',
      `/dashboard/developers/${walletA}/webhook`,
      { webhookUrl: url, _csrf: token },
      { origin: 'https://evil.example' },
    );
    expect(foreign.status).toBe(403);
    const wallet = await h.api('GET', `/v1/wallets/${walletA}`, { key: h.businessKey });
    expect(wallet.body.data.webhookUrl).toBeNull();
  });

  it('validates the webhook URL with the API rules and keeps the old value on refusal', async () => {
    const c = await signedIn();
    const bad = await c.submit('/dashboard/developers', `/dashboard/developers/${walletA}/webhook`, { webhookUrl: 'ftp://example.com/x' });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('webhookUrl must use http or https');
    const creds = await c.submit('/dashboard/developers', `/dashboard/developers/${walletA}/webhook`, {
      webhookUrl: 'http://user:pw@example.com/x',
    });
    expect(creds.status).toBe(400);
    const wallet = await h.api('GET', `/v1/wallets/${walletA}`, { key: h.businessKey });
    expect(wallet.body.data.webhookUrl).toBeNull();
  });

  it('refuses bad transaction filters with a 400 page, as the API does', async () => {
    const c = await signedIn();
    const res = await c.get(`/dashboard/wallets/${walletA}/transactions?status=DONE`);
    expect(res.status).toBe(400);
    expect(res.text).toContain('status must');
    // The form keeps what was typed.
    expect(res.text).toMatch(/<select name="status">/);
    const dates = await c.get(`/dashboard/wallets/${walletA}/transactions?startDate=2026-02-01&endDate=2026-01-01`);
    expect(dates.status).toBe(400);
    const ok = await c.get(`/dashboard/wallets/${walletA}/transactions?startDate=2026-01-01&endDate=2026-12-31&limit=10&order=ASC`);
    expect(ok.status).toBe(200);
  });

  it('saves auto-sweep settings and toggles assets through the wallet services', async () => {
    const c = await signedIn();
    const page = `/dashboard/wallets/${walletA}`;
    const saved = await c.submit(page, `${page}/sweeping`, { threshold: '12.5' });
    expect(saved.status).toBe(303);
    const wallet = await h.api('GET', `/v1/wallets/${walletA}`, { key: h.businessKey });
    expect(wallet.body.data.configurations.autoSweeping).toEqual({ isActive: false, threshold: 12.5 });
    const bad = await c.submit(page, `${page}/sweeping`, { threshold: '1e3', isActive: 'true' });
    expect(bad.status).toBe(400);

    const usdt = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDT')!;
    expect((await c.submit(page, `${page}/assets/${usdt.id}`, { isActive: 'false' })).status).toBe(303);
    let assets = await h.api('GET', `/v1/wallets/${walletA}/assets`, { key: h.businessKey });
    expect(assets.body.data.find((a: any) => a.asset.symbol === 'USDT').isActive).toBe(false);
    expect((await c.submit(page, `${page}/assets/${usdt.id}`, { isActive: 'true' })).status).toBe(303);
    assets = await h.api('GET', `/v1/wallets/${walletA}/assets`, { key: h.businessKey });
    expect(assets.body.data.find((a: any) => a.asset.symbol === 'USDT').isActive).toBe(true);
  });
});

describe('wallets', () => {
  it('creates a master wallet whose key is shown once and works on the API; bad input writes nothing', async () => {
    const c = await signedIn();
    const before = (await h.api('GET', '/v1/wallets', { key: h.businessKey })).body.meta.totalItems;
    const empty = await c.submit('/dashboard/wallets', '/dashboard/wallets', { chain: 'devnet-bsc|testnet', name: '' });
    expect(empty.status).toBe(400);
    const unknown = await c.submit('/dashboard/wallets', '/dashboard/wallets', { chain: 'nochain|testnet', name: 'X' });
    expect(unknown.status).toBe(422);
    expect(unknown.text).toContain('is not configured on this installation');
    const network = await c.submit('/dashboard/wallets', '/dashboard/wallets', { chain: 'devnet-bsc|moonnet', name: 'X' });
    expect(network.status).toBe(400);
    expect((await h.api('GET', '/v1/wallets', { key: h.businessKey })).body.meta.totalItems).toBe(before);

    const created = await c.submit('/dashboard/wallets', '/dashboard/wallets', { chain: 'devnet-bsc|testnet', name: 'Payouts <BSC>' });
    expect(created.status).toBe(200);
    expect(created.headers.get('cache-control')).toBe('no-store');
    // Escaped, never markup.
    expect(created.text).toContain('Payouts &lt;BSC&gt;');
    const key = /id="created-key">([^<]+)</.exec(created.text)![1]!;
    const wallets = await h.api('GET', '/v1/wallets', { key: h.businessKey });
    const wallet = wallets.body.data.find((w: { name: string }) => w.name === 'Payouts <BSC>');
    const own = await h.api('GET', `/v1/wallets/${wallet.id}`, { key });
    expect(own.status).toBe(200);
    // Later pages show only the prefix.
    const later = await c.get('/dashboard/developers');
    expect(later.text).not.toContain(key);
    expect(later.text).toContain(`${key.slice(0, 12)}…`);
  });
});

describe('lists', () => {
  it('pages transactions with the filters kept, and shows 18-decimal amounts exactly', async () => {
    const bsc = h.wallets['devnet-bsc']!.id;
    for (let i = 0; i < 3; i++) await recordDeposit(h, 'devnet-bsc', { amount: 123_456_789_012_345_678_901_234n + BigInt(i) });
    const c = await signedIn();
    const first = await c.get(`/dashboard/wallets/${bsc}/transactions?type=DEPOSIT&limit=2`);
    expect(first.status).toBe(200);
    expect(first.text).toContain('Page 1 of 2');
    expect(first.text).toContain('123,456.789012345678901236');
    expect(first.text).toContain('123,456.789012345678901235');
    const next = /href="([^"]+)" rel="next"/.exec(first.text)![1]!.replace(/&amp;/g, '&');
    expect(next).toContain('type=DEPOSIT');
    const second = await c.get(next);
    expect(second.text).toContain('Page 2 of 2');
    expect(second.text).toContain('123,456.789012345678901234');
    expect(second.text).not.toContain('123,456.789012345678901236');
  });

  it('pages addresses and shows the analytics', async () => {
    const c = await signedIn();
    const page = `/dashboard/wallets/${walletA}/addresses`;
    for (const name of ['first', 'second', 'third']) expect((await c.submit(page, page, { name })).status).toBe(303);
    const list = await c.get(`${page}?limit=2`);
    expect(list.text).toContain('Page 1 of 2');
    expect(list.text).toMatch(/data-testid="count-internal">\s*3\s*</);
    expect(list.text).toMatch(/data-testid="count-limit">\s*100,000\s*</);
    expect((await c.get(`${page}?limit=500`)).status).toBe(400);
  });
});

describe('tenancy', () => {
  it("business A's session cannot see or change business B's wallets (404, like an unknown id)", async () => {
    const c = await signedIn(A);
    const list = await c.get('/dashboard/wallets');
    expect(list.text).not.toContain(otherWallet.id);
    expect(list.text).not.toContain('Foreign wallet');
    expect((await c.get('/dashboard/developers')).text).not.toContain(otherWallet.id);
    for (const path of [
      `/dashboard/wallets/${otherWallet.id}`,
      `/dashboard/wallets/${otherWallet.id}/addresses`,
      `/dashboard/wallets/${otherWallet.id}/transactions`,
    ]) {
      const res = await c.get(path);
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain('Foreign wallet');
    }
    const regen = await c.submit('/dashboard/developers', `/dashboard/developers/${otherWallet.id}/key`);
    expect(regen.status).toBe(404);
    const hook = await c.submit('/dashboard/developers', `/dashboard/developers/${otherWallet.id}/webhook`, {
      webhookUrl: 'http://127.0.0.1:9/x',
    });
    expect(hook.status).toBe(404);
    // B's key still works and its wallet is untouched.
    const b = await h.api('GET', `/v1/wallets/${otherWallet.id}`, { key: otherWallet.apiKey });
    expect(b.status).toBe(200);
    expect(b.body.data.webhookUrl).toBeNull();

    const cb = await signedIn(B);
    expect((await cb.get('/dashboard/wallets')).text).toContain('Foreign wallet');
    expect((await cb.get(`/dashboard/wallets/${walletA}`)).status).toBe(404);
  });
});
