/**
 * Roles, invitations and two-factor sign-in over plain HTTP: what each role may change, the
 * team's rules (admins never touch owners, a business keeps an owner), invitation links
 * (once, revocable, expiring), and TOTP (sealed at rest, a code good once, guesses throttled,
 * approving only with a two-factor session).
 */
import { base32 } from '@scure/base';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { ManualClock } from '../../src/lib/clock.js';
import { totpAt } from '../../src/lib/totp.js';
import { startHarness, type Harness } from '../support/harness.js';
import { createDashboardUser, csrfOf, DashClient } from './support.js';

let h: Harness;
let clock: ManualClock;
const PASSWORD = 'a long enough password';

beforeAll(async () => {
  clock = new ManualClock(Date.now());
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], clock });
}, 120_000);
afterAll(async () => {
  await h?.stop();
});

async function userWithRole(email: string, role: string): Promise<{ id: string; client: DashClient }> {
  const user = await createDashboardUser(h, h.businessId, email, PASSWORD);
  await sql`UPDATE dashboard_users SET role = ${role} WHERE id = ${user.id}`.execute(h.database.db);
  const client = new DashClient(h.baseUrl);
  const res = await client.login(email, PASSWORD);
  expect(res.status).toBe(303);
  return { id: user.id, client };
}

/** Sets up TOTP from the account page; returns the secret the page showed. */
async function enrol(client: DashClient): Promise<Uint8Array> {
  const started = await client.submit('/dashboard/account', '/dashboard/account/two-factor');
  const secret = /data-testid="totp-secret">([A-Z2-7]+)</.exec(started.text)![1]!;
  const done = await client.request('POST', '/dashboard/account/two-factor/confirm', {
    _csrf: csrfOf(started.text),
    code: totpAt(base32.decode(secret), clock.now().getTime()),
  });
  expect(done.status, done.text.slice(0, 300)).toBe(303);
  return base32.decode(secret);
}

describe('roles', () => {
  it('a viewer reads every page and changes nothing', async () => {
    const { client } = await userWithRole('viewer@roles.example', 'viewer');
    for (const page of [
      '/dashboard/wallets',
      '/dashboard/transactions',
      '/dashboard/approvals',
      '/dashboard/deliveries',
      '/dashboard/reports',
      '/dashboard/policies',
    ]) {
      expect((await client.get(page)).status, page).toBe(200);
    }
    expect((await client.get('/dashboard/developers')).status).toBe(403);
    expect((await client.get('/dashboard/users')).status).toBe(403);
    const wallet = h.wallets['devnet-eth']!;
    const create = await client.submit('/dashboard/wallets', '/dashboard/wallets', {
      name: 'nope',
      blockchain: 'devnet-eth',
      network: 'testnet',
    });
    expect(create.status).toBe(403);
    expect(create.text).toContain('Your role (viewer) cannot change wallets');
    const before = await h.services.wallets.list({ keyId: 'x', businessId: h.businessId, walletId: null }, 1, 100);
    expect(before.meta.totalItems).toBe(1);
    expect((await client.submit('/dashboard/wallets', `/dashboard/wallets/${wallet.id}/withdraw`, { amount: '1' })).status).toBe(403);
    // A form the table does not know is refused too.
    expect((await client.submit('/dashboard/wallets', '/dashboard/made-up', {})).status).toBe(403);
  });

  it('a developer manages keys and addresses, not withdrawals or the team', async () => {
    const { client } = await userWithRole('dev@roles.example', 'developer');
    const wallet = h.wallets['devnet-eth']!;
    expect((await client.get('/dashboard/developers')).status).toBe(200);
    const address = await client.submit(`/dashboard/wallets/${wallet.id}/addresses`, `/dashboard/wallets/${wallet.id}/addresses`, {
      name: 'dev-made',
    });
    expect(address.status).toBe(303);
    expect((await client.get(`/dashboard/wallets/${wallet.id}/withdraw`)).status).toBe(403);
    expect((await client.submit('/dashboard/wallets', '/dashboard/users/invite', { email: 'x@y.example', role: 'viewer' })).status).toBe(
      403,
    );
    // Nor through a key: the keys a developer creates only read, and a wallet's key (which
    // pays out) is handed out by owners and admins only.
    const created = await client.submit('/dashboard/developers', '/dashboard/developers/api-keys', { name: 'dev key' });
    expect(created.status).toBe(200);
    const minted = /id="business-key-new">([^<]+)</.exec(created.text)?.[1];
    expect(minted).toBeDefined();
    const pay = await h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, {
      key: minted!,
      body: {
        assetId: h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id,
        address: wallet.address,
        amount: '1',
      },
    });
    expect([pay.status, pay.body.error]).toEqual([403, 'KEY_READ_ONLY']);
    expect((await client.submit('/dashboard/developers', `/dashboard/developers/${wallet.id}/key`, {})).status).toBe(403);
    // The wallet's key was not replaced.
    expect((await h.api('GET', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey })).status).toBe(200);
  });
});

describe('how a path is spelt', () => {
  it('no spelling of a path reaches a page the role may not see, and what it may see still answers', async () => {
    const viewer = await userWithRole('viewer-paths@roles.example', 'viewer');
    const approver = await userWithRole('approver-paths@roles.example', 'approver');
    await enrol(approver.client);
    const wallet = h.wallets['devnet-eth']!;
    // The router decodes the path, takes an absolute-form target's path, and ends it at '#':
    // each of these answers the Developers, Team or withdrawal page.
    const routed = [
      '/dashboard/develop%65rs',
      '/dashboard/%64evelopers',
      '/%64ashboard/developers',
      `http://${new URL(h.baseUrl).host}/dashboard/developers`,
      '/dashboard/developers#x',
      '/dashboard/developers?x=/dashboard/wallets',
      '/dashboard/user%73',
      `/dashboard/wallets/${wallet.id}/withdra%77`,
    ];
    // These reach no route at all (no trailing-slash, duplicate-slash, case or ';' folding;
    // dot segments and %2F are not resolved).
    const unrouted = [
      '/dashboard/developers/',
      '/dashboard//developers',
      '/dashboard/DEVELOPERS',
      '/dashboard/developers;x=1',
      '/dashboard/./developers',
      '/dashboard/wallets/../developers',
      '/dashboard/%2e/developers',
      '/dashboard%2Fdevelopers',
      '/dashboard/join/%2e%2e%2Fdevelopers',
    ];
    for (const [role, { client }] of [
      ['viewer', viewer],
      ['approver', approver],
    ] as const) {
      for (const target of routed) expect((await client.raw('GET', target)).status, `${role} ${target}`).toBe(403);
      for (const target of unrouted) expect((await client.raw('GET', target)).status, `${role} ${target}`).toBe(404);
      for (const target of ['/dashboard/wallets', '/dashboard/walle%74s', `/dashboard/wallets/${wallet.id}`, '/dashboard/approvals']) {
        expect((await client.raw('GET', target)).status, `${role} ${target}`).toBe(200);
      }
      // A change spelt another way is checked as the route it reaches.
      const token = csrfOf((await client.get('/dashboard/wallets')).text);
      const made = await client.request('POST', '/dashboard/develop%65rs/api-keys', { _csrf: token, name: `by ${role}` });
      expect(made.status, role).toBe(403);
      expect(made.text).toContain(`Your role (${role}) cannot manage API keys and webhooks`);
    }
    // The roles that may see the page still get it, however it is spelt.
    const dev = await userWithRole('dev-paths@roles.example', 'developer');
    expect((await dev.client.raw('GET', '/dashboard/develop%65rs')).status).toBe(200);
  });
});

describe('bodies that are not forms', () => {
  const json = (value: unknown) => ({ type: 'application/json', text: JSON.stringify(value) });
  const counts = async () => {
    const { rows } = await sql<{ sessions: string; throttle: string; audit: string }>`
      SELECT (SELECT count(*) FROM dashboard_sessions) AS sessions,
             (SELECT count(*) FROM dashboard_login_throttle) AS throttle,
             (SELECT count(*) FROM audit_log WHERE action LIKE 'dashboard.sign%') AS audit`.execute(h.database.db);
    return rows[0]!;
  };

  it('a sign-in posted as JSON is refused with a 4xx page and writes nothing', async () => {
    const email = 'json-login@roles.example';
    await createDashboardUser(h, h.businessId, email, PASSWORD);
    const c = new DashClient(h.baseUrl);
    // The login page sets the double-submit cookie, so the JSON bodies below can carry a good token.
    const token = csrfOf((await c.get('/dashboard/login')).text);
    const before = await counts();
    for (const body of [
      { email: 1 },
      { _csrf: 5 },
      { _csrf: token, email, password: 12345 },
      { _csrf: token, email: [email], password: { toString: PASSWORD } },
      { _csrf: token, email, password: 'wrong password', next: 7 },
      // Strings throughout, and the right password: still not a form.
      { _csrf: token, email, password: PASSWORD },
    ]) {
      const res = await c.raw('POST', '/dashboard/login', json(body));
      expect(res.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(res.status, JSON.stringify(body)).toBeLessThan(500);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.text).toContain('The dashboard accepts only the forms of its own pages.');
      expect(res.headers.get('set-cookie') ?? '').not.toContain('wallet_dashboard=');
    }
    expect(await counts()).toEqual(before);
    // The browser's form still signs in.
    expect((await c.login(email, PASSWORD)).status).toBe(303);
  });

  it('a signed-in form posted as JSON or plain text is refused with a 4xx page and changes nothing', async () => {
    const { client } = await userWithRole('json-owner@roles.example', 'owner');
    const token = csrfOf((await client.get('/dashboard/wallets')).text);
    const walletsBefore = (await h.services.wallets.list({ keyId: 'x', businessId: h.businessId, walletId: null }, 1, 100)).meta.totalItems;
    const { rows: keysBefore } = await sql<{ n: string }>`SELECT count(*) AS n FROM api_keys`.execute(h.database.db);
    for (const [path, body] of [
      ['/dashboard/wallets', json({ _csrf: token, name: 5, chain: 'devnet-eth|testnet' })],
      ['/dashboard/wallets', json({ _csrf: 5, name: 'five' })],
      ['/dashboard/wallets', json({ _csrf: [token], name: 'five' })],
      ['/dashboard/developers/api-keys', json({ _csrf: token, name: ['a key'], rateLimit: 3 })],
      ['/dashboard/users/invite', json({ _csrf: token, email: { a: 1 }, role: null })],
      ['/dashboard/logout', json({ _csrf: token })],
      ['/dashboard/wallets', { type: 'text/plain', text: `_csrf=${token}&name=plain` }],
    ] as const) {
      const res = await client.raw('POST', path, body);
      expect(res.status, `${path} ${body.text}`).toBeGreaterThanOrEqual(400);
      expect(res.status, `${path} ${body.text}`).toBeLessThan(500);
    }
    const walletsAfter = (await h.services.wallets.list({ keyId: 'x', businessId: h.businessId, walletId: null }, 1, 100)).meta.totalItems;
    expect(walletsAfter).toBe(walletsBefore);
    const { rows: keysAfter } = await sql<{ n: string }>`SELECT count(*) AS n FROM api_keys`.execute(h.database.db);
    expect(keysAfter[0]!.n).toBe(keysBefore[0]!.n);
    // Still signed in (the JSON logout did nothing), and a page asked for with a type but
    // no body still answers; the real form still works.
    expect((await client.get('/dashboard/wallets')).status).toBe(200);
    expect((await client.raw('GET', '/dashboard/wallets', { type: 'application/json', text: '' })).status).toBe(200);
    expect((await client.submit('/dashboard/wallets', '/dashboard/logout')).status).toBe(303);
  });
});

describe('the team', () => {
  it('admins never touch owners; a business always keeps an owner; removing a user ends their sessions', async () => {
    const owner = await userWithRole('owner@team.example', 'owner');
    const admin = await userWithRole('admin@team.example', 'admin');
    const other = await userWithRole('other@team.example', 'viewer');
    // An admin cannot make an owner, nor change one.
    const promote = await admin.client.submit('/dashboard/users', `/dashboard/users/${other.id}/role`, { role: 'owner' });
    expect(promote.status).toBe(403);
    expect((await admin.client.submit('/dashboard/users', `/dashboard/users/${owner.id}/role`, { role: 'viewer' })).status).toBe(403);
    expect((await admin.client.submit('/dashboard/users', `/dashboard/users/${other.id}/role`, { role: 'developer' })).status).toBe(303);
    // Owners: the first owner (from the harness business) and this one; demote one, then the last is kept.
    const { rows } = await sql<{
      id: string;
    }>`SELECT id FROM dashboard_users WHERE role = 'owner' AND business_id = ${h.businessId}`.execute(h.database.db);
    for (const r of rows.filter((r) => r.id !== owner.id)) {
      expect((await owner.client.submit('/dashboard/users', `/dashboard/users/${r.id}/role`, { role: 'admin' })).status).toBe(303);
    }
    const last = await admin.client.submit('/dashboard/users', `/dashboard/users/${owner.id}/role`, { role: 'admin' });
    expect(last.status).toBe(403);
    const self = await owner.client.submit('/dashboard/users', `/dashboard/users/${owner.id}/role`, { role: 'admin' });
    expect(self.status).toBe(409);
    expect(self.text).toContain('must keep an owner');
    // Removed: the session stops working at once.
    expect((await other.client.get('/dashboard/wallets')).status).toBe(200);
    expect((await owner.client.submit('/dashboard/users', `/dashboard/users/${other.id}/remove`)).status).toBe(303);
    expect((await other.client.get('/dashboard/wallets')).location).toContain('/dashboard/login');
    expect((await new DashClient(h.baseUrl).login('other@team.example', PASSWORD)).status).toBe(401);
    const { rows: audit } = await sql<{ action: string }>`
      SELECT action FROM audit_log WHERE target_id = ${other.id} AND action LIKE 'dashboard.%' AND action NOT LIKE 'dashboard.sign%' ORDER BY seq`.execute(
      h.database.db,
    );
    expect(audit.map((a) => a.action)).toEqual(['dashboard.role_changed', 'dashboard.user_removed']);
  });

  it('an invitation works once, can be revoked, and expires', async () => {
    const owner = await userWithRole('owner2@team.example', 'owner');
    const invite = async (email: string) => {
      const page = await owner.client.submit('/dashboard/users', '/dashboard/users/invite', { email, role: 'developer' });
      expect(page.status).toBe(200);
      return /\/dashboard\/join\/([A-Za-z0-9_-]{43})/.exec(page.text)![1]!;
    };
    const join = async (token: string) => {
      const c = new DashClient(h.baseUrl);
      const page = await c.get(`/dashboard/join/${token}`);
      if (page.status !== 200) return page;
      return c.request('POST', `/dashboard/join/${token}`, { _csrf: csrfOf(page.text), password: PASSWORD });
    };
    const token = await invite('joiner@team.example');
    const { rows } = await sql<{
      token_hash: Buffer;
    }>`SELECT token_hash FROM dashboard_invitations WHERE email = 'joiner@team.example'`.execute(h.database.db);
    expect(rows[0]!.token_hash.toString('hex')).not.toContain(Buffer.from(token).toString('hex'));
    expect((await join(token)).status).toBe(303);
    expect((await join(token)).status).toBe(404);
    const c = new DashClient(h.baseUrl);
    expect((await c.login('joiner@team.example', PASSWORD)).status).toBe(303);
    expect((await c.get('/dashboard/developers')).status).toBe(200);

    const revoked = await invite('revoked@team.example');
    const { rows: inv } = await sql<{ id: string }>`SELECT id FROM dashboard_invitations WHERE email = 'revoked@team.example'`.execute(
      h.database.db,
    );
    expect((await owner.client.submit('/dashboard/users', `/dashboard/invitations/${inv[0]!.id}/revoke`)).status).toBe(303);
    expect((await join(revoked)).status).toBe(404);

    const late = await invite('late@team.example');
    clock.advance(7 * 24 * 3600 * 1000 + 1000);
    expect((await join(late)).status).toBe(404);
    clock.set(Date.now());
  });

  it("an invitation dies with its inviter's power to give the role: removed, or demoted below it", async () => {
    const owner = await userWithRole('owner3@team.example', 'owner');
    const invite = async (by: DashClient, email: string, role: string) => {
      const page = await by.submit('/dashboard/users', '/dashboard/users/invite', { email, role });
      expect(page.status, page.text.slice(0, 300)).toBe(200);
      return /\/dashboard\/join\/([A-Za-z0-9_-]{43})/.exec(page.text)![1]!;
    };
    const join = async (token: string) => {
      const c = new DashClient(h.baseUrl);
      const page = await c.get(`/dashboard/join/${token}`);
      if (page.status !== 200) return page;
      return c.request('POST', `/dashboard/join/${token}`, { _csrf: csrfOf(page.text), password: PASSWORD });
    };
    const accounts = async (email: string) =>
      (await sql<{ n: number }>`SELECT count(*)::int AS n FROM dashboard_users WHERE email = ${email}`.execute(h.database.db)).rows[0]!.n;

    // An admin about to leave hands themselves a way back in, then is removed.
    const leaving = await userWithRole('leaving-admin@team.example', 'admin');
    const backdoor = await invite(leaving.client, 'way-back@team.example', 'admin');
    expect((await owner.client.submit('/dashboard/users', `/dashboard/users/${leaving.id}/remove`)).status).toBe(303);
    expect((await join(backdoor)).status).toBe(404);
    expect(await accounts('way-back@team.example')).toBe(0);

    // An admin demoted to viewer could not invite an admin now: neither does their invitation.
    const demoted = await userWithRole('demoted-admin@team.example', 'admin');
    const stale = await invite(demoted.client, 'stale@team.example', 'admin');
    expect((await owner.client.submit('/dashboard/users', `/dashboard/users/${demoted.id}/role`, { role: 'viewer' })).status).toBe(303);
    expect((await join(stale)).status).toBe(404);
    expect(await accounts('stale@team.example')).toBe(0);

    // An owner demoted to admin may still give every role but owner.
    const second = await userWithRole('second-owner@team.example', 'owner');
    const asOwner = await invite(second.client, 'new-owner@team.example', 'owner');
    const asAdmin = await invite(second.client, 'new-admin@team.example', 'admin');
    expect((await owner.client.submit('/dashboard/users', `/dashboard/users/${second.id}/role`, { role: 'admin' })).status).toBe(303);
    expect((await join(asOwner)).status).toBe(404);
    expect(await accounts('new-owner@team.example')).toBe(0);
    expect((await join(asAdmin)).status).toBe(303);
    expect(await accounts('new-admin@team.example')).toBe(1);
  });
});

describe('two-factor sign-in', () => {
  it('is sealed at rest, asked at each sign-in, a code works once, and guesses are throttled', async () => {
    const email = 'tfa@roles.example';
    const { id, client } = await userWithRole(email, 'admin');
    const secret = await enrol(client);
    const { rows } = await sql<{ s: Buffer }>`SELECT totp_secret_sealed AS s FROM dashboard_users WHERE id = ${id}`.execute(h.database.db);
    expect(rows[0]!.s.includes(Buffer.from(secret))).toBe(false);
    expect(rows[0]!.s.toString('latin1')).not.toContain(base32.encode(secret).replace(/=+$/, ''));

    const c = new DashClient(h.baseUrl);
    const signedIn = await c.login(email, PASSWORD);
    expect(signedIn.location).toBe('/dashboard/login/two-factor');
    // Until the code, nothing else.
    expect((await c.get('/dashboard/wallets')).location).toBe('/dashboard/login/two-factor');
    const form = await c.get('/dashboard/login/two-factor');
    const usedCode = totpAt(secret, clock.now().getTime());
    // The enrolment used this step's code: it is not good again.
    const replay = await c.request('POST', '/dashboard/login/two-factor', { _csrf: csrfOf(form.text), code: usedCode });
    expect(replay.status).toBe(401);
    // Four failures are free (the replay was one); the fifth is checked, then a delay begins.
    for (let i = 0; i < 4; i++) {
      expect((await c.request('POST', '/dashboard/login/two-factor', { _csrf: csrfOf(form.text), code: '000000' })).status).toBe(401);
    }
    const throttled = await c.request('POST', '/dashboard/login/two-factor', { _csrf: csrfOf(form.text), code: '000000' });
    expect(throttled.status).toBe(429);
    clock.advance(2_000);
    const ok = await c.request('POST', '/dashboard/login/two-factor', {
      _csrf: csrfOf(form.text),
      code: totpAt(secret, clock.now().getTime() + 30_000),
    });
    expect(ok.status).toBe(303);
    expect(ok.location).toBe('/dashboard/wallets');
    expect((await c.get('/dashboard/wallets')).status).toBe(200);
    const { rows: audit } = await sql<{ action: string }>`
      SELECT action FROM audit_log WHERE target_id = ${id} AND action LIKE 'dashboard.two_factor%' ORDER BY seq`.execute(h.database.db);
    expect(audit.map((a) => a.action)).toEqual([
      'dashboard.two_factor_enabled',
      'dashboard.two_factor_failed',
      'dashboard.two_factor_failed',
      'dashboard.two_factor_failed',
      'dashboard.two_factor_failed',
      'dashboard.two_factor_failed',
      'dashboard.two_factor_passed',
    ]);
  });
});
