/**
 * The dashboard's account and key security against a stolen password or a lesser role
 * (found by an attack review; each case failed before its fix):
 * - turning two-factor sign-in on ends the user's other sessions (a stolen password's
 *   session stayed full and could turn the second factor off and enrol its own);
 * - turning it off takes a session that gave a code and a current code;
 * - a developer revokes only the read-only keys it could create, not an owner's writing key;
 * - an invitation link's token is never written to the logs;
 * - `dashboard-user` for an email of another business refuses instead of moving the user.
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
  expect((await client.login(email, PASSWORD)).status).toBe(303);
  return { id: user.id, client };
}

/** Sets up two-factor sign-in from `client`'s session; the secret. */
async function enrol(client: DashClient): Promise<Uint8Array> {
  const started = await client.submit('/dashboard/account', '/dashboard/account/two-factor');
  const secret = base32.decode(/data-testid="totp-secret">([A-Z2-7]+)</.exec(started.text)![1]!);
  const done = await client.request('POST', '/dashboard/account/two-factor/confirm', {
    _csrf: csrfOf(started.text),
    code: totpAt(secret, clock.now().getTime()),
  });
  expect(done.status, done.text.slice(0, 300)).toBe(303);
  return secret;
}

const totpOn = async (id: string) =>
  (await sql<{ on: boolean }>`SELECT totp_enabled_at IS NOT NULL AS on FROM dashboard_users WHERE id = ${id}`.execute(h.database.db))
    .rows[0]!.on;
const sessionsOf = async (id: string) =>
  (await sql<{ two_factor: boolean }>`SELECT two_factor FROM dashboard_sessions WHERE user_id = ${id}`.execute(h.database.db)).rows;

describe('two-factor sign-in', () => {
  it('turned on, it ends the sessions that signed in with the password alone: one cannot turn it off and enrol its own', async () => {
    // A stolen password signed in before the owner turned two-factor on.
    const owner = await userWithRole('owner-2fa@security.example', 'owner');
    const thief = new DashClient(h.baseUrl);
    expect((await thief.login('owner-2fa@security.example', PASSWORD)).status).toBe(303);
    await enrol(owner.client);
    expect(await sessionsOf(owner.id)).toEqual([{ two_factor: true }]);

    const page = await thief.get('/dashboard/wallets');
    expect(page.status).toBe(303);
    expect(page.location).toMatch(/\/dashboard\/login/);
    const off = await thief.request('POST', '/dashboard/account/two-factor/disable', { _csrf: 'x' });
    expect(off.status).not.toBe(200);
    expect(await totpOn(owner.id)).toBe(true);
    expect(await sessionsOf(owner.id)).toEqual([{ two_factor: true }]);
  });

  it('turning it off takes a current code: none or a wrong one is refused (it stays on), the right one turns it off', async () => {
    const owner = await userWithRole('owner-2fa-off@security.example', 'owner');
    const secret = await enrol(owner.client);
    const account = await owner.client.get('/dashboard/account');
    expect(account.text).toContain('name="code"');
    const csrf = csrfOf(account.text);

    for (const code of ['', '000000']) {
      const refused = await owner.client.request('POST', '/dashboard/account/two-factor/disable', { _csrf: csrf, code });
      expect(refused.status, code).toBe(401);
      expect(await totpOn(owner.id)).toBe(true);
    }
    clock.advance(30_000); // the enrolment's code is good once: the next step's
    const ok = await owner.client.request('POST', '/dashboard/account/two-factor/disable', {
      _csrf: csrf,
      code: totpAt(secret, clock.now().getTime()),
    });
    expect(ok.status, ok.text.slice(0, 300)).toBe(303);
    expect(await totpOn(owner.id)).toBe(false);
    const { rows } = await sql<{ action: string }>`
      SELECT action FROM audit_log WHERE target_id = ${owner.id} AND action LIKE 'dashboard.two_factor%' ORDER BY created_at`.execute(
      h.database.db,
    );
    expect(rows.map((r) => r.action)).toEqual([
      'dashboard.two_factor_enabled',
      'dashboard.two_factor_failed',
      'dashboard.two_factor_failed',
      'dashboard.two_factor_disabled',
    ]);
  });
});

describe('a developer and business keys', () => {
  it("revokes a read-only key it made, not the owner's key that may write", async () => {
    const dev = await userWithRole('dev-revoke@security.example', 'developer');
    const listed = await h.api('GET', '/v1/api-keys', { key: h.businessKey });
    const ownerKey = (listed.body.data as { id: string; prefix: string; scopes: string[] }[]).find((k) =>
      h.businessKey.startsWith(k.prefix),
    )!;
    expect(ownerKey.scopes).toEqual([]);
    const page = await dev.client.get('/dashboard/developers');
    expect(page.text).not.toContain(`/developers/api-keys/${ownerKey.id}/revoke`);

    const refused = await dev.client.request('POST', `/dashboard/developers/api-keys/${ownerKey.id}/revoke`, { _csrf: csrfOf(page.text) });
    expect(refused.status).toBe(403);
    expect((await h.api('GET', '/v1/api-keys', { key: h.businessKey })).status).toBe(200);

    const made = await dev.client.submit('/dashboard/developers', '/dashboard/developers/api-keys', { name: 'dev reads' });
    expect(made.status).toBe(200);
    const own = (
      (await h.api('GET', '/v1/api-keys', { key: h.businessKey })).body.data as { id: string; name: string; scopes: string[] }[]
    ).find((k) => k.name === 'dev reads')!;
    expect(own.scopes).toContain('READ_ONLY');
    const revoked = await dev.client.submit('/dashboard/developers', `/dashboard/developers/api-keys/${own.id}/revoke`);
    expect(revoked.status).toBe(303);
    const { rows } = await sql<{ revoked: boolean }>`SELECT revoked_at IS NOT NULL AS revoked FROM api_keys WHERE id = ${own.id}`.execute(
      h.database.db,
    );
    expect(rows).toEqual([{ revoked: true }]);
  });
});

describe('invitations', () => {
  it('an invitation link (a bearer credential for an account) is not written to the logs', async () => {
    const owner = await userWithRole('owner-inv@security.example', 'owner');
    const page = await owner.client.submit('/dashboard/users', '/dashboard/users/invite', {
      email: 'new-admin@security.example',
      role: 'admin',
    });
    const token = /id="invitation-url">([^<]+)</.exec(page.text)![1]!.split('/join/')[1]!;
    const invitee = new DashClient(h.baseUrl);
    expect((await invitee.get(`/dashboard/join/${token}`)).status).toBe(200);
    expect(h.logs()).toContain('/dashboard/join/[redacted]');
    expect(h.logs()).not.toContain(token);
  });
});

describe('dashboard-user', () => {
  it('refuses an email of another business instead of moving its user there (and leaving that business without an owner)', async () => {
    const a = await h.services.businesses.create('Business A (security)');
    const b = await h.services.businesses.create('Business B (security)');
    const user = await createDashboardUser(h, a.business.id, 'sole-owner@security.example', PASSWORD);
    await expect(createDashboardUser(h, b.business.id, 'sole-owner@security.example', 'another long password')).rejects.toMatchObject({
      code: 'EMAIL_TAKEN',
    });
    const { rows } = await sql<{ business_id: string }>`SELECT business_id FROM dashboard_users WHERE id = ${user.id}`.execute(
      h.database.db,
    );
    expect(rows).toEqual([{ business_id: a.business.id }]);
    // The same business: a new password, as before.
    await createDashboardUser(h, a.business.id, 'sole-owner@security.example', 'another long password');
    expect((await new DashClient(h.baseUrl).login('sole-owner@security.example', 'another long password')).status).toBe(303);
  });
});
