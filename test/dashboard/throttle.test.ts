/**
 * The sign-in throttle over HTTP: a progressive delay per account and per client address
 * instead of a lock; the owner gets in from another address once the delay is over;
 * throttled attempts write nothing; old rows are pruned; TRUST_PROXY names the client.
 * A hand-moved clock makes the delays exact without waiting.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock } from '../../src/lib/clock.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { createDashboardUser, DashClient, type Page } from './support.js';

let h: Harness;
const clock = new ManualClock(Date.now());

beforeAll(async () => {
  // Behind a trusted proxy, as an operator with TRUST_PROXY=true: X-Forwarded-For names the client.
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], clock, trustProxy: true });
});
afterAll(async () => {
  await h?.stop();
});

let users = 0;
async function newUser() {
  const user = { email: `owner${++users}@throttle.example`, password: `the real password ${users}` };
  await createDashboardUser(h, h.businessId, user.email, user.password);
  return user;
}

const from = (address: string) => ({ 'x-forwarded-for': address });
const login = (email: string, password: string, address: string) => new DashClient(h.baseUrl).login(email, password, from(address));
const retryAfter = (p: Page) => Number(p.headers.get('retry-after'));

/** A wrong password, sent as soon as the throttle allows (the clock is moved by each Retry-After, which is noted in `waits`). */
async function guess(email: string, password: string, address: string, waits: number[] = []): Promise<Page> {
  for (;;) {
    const res = await login(email, password, address);
    if (res.status !== 429) return res;
    waits.push(retryAfter(res));
    clock.advance(retryAfter(res) * 1000);
  }
}

async function throttleRows() {
  const { rows } = await sql<Record<string, unknown>>`SELECT * FROM dashboard_login_throttle ORDER BY key`.execute(h.database.db);
  return rows;
}

async function sessions(): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM dashboard_sessions`.execute(h.database.db);
  return Number(rows[0]!.n);
}

describe('a progressive delay per account, not a lock', () => {
  it('six bad guesses from one address delay the owner, who gets in from another address once the delay is over', async () => {
    const user = await newUser();
    for (let i = 1; i <= 6; i++) expect((await guess(user.email, `guess ${i}`, '198.51.100.1')).status).toBe(401);
    // The owner, from another address, is told to wait (2 s after the sixth failure)...
    const early = await login(user.email, user.password, '203.0.113.50');
    expect(early.status).toBe(429);
    expect(retryAfter(early)).toBe(2);
    expect(early.text).toContain('Try again in 2 seconds.');
    clock.advance(1_000);
    expect(retryAfter(await login(user.email, user.password, '203.0.113.50'))).toBe(1);
    // ...and gets in once that time has passed.
    clock.advance(1_000);
    expect((await login(user.email, user.password, '203.0.113.50')).status).toBe(303);
    // A success starts the account afresh: a typo right after is a plain 401, not a wait.
    expect((await login(user.email, 'typo', '203.0.113.50')).status).toBe(401);
    expect((await login(user.email, user.password, '203.0.113.50')).status).toBe(303);
  });

  it('delays grow 1, 2, 4, ... seconds after 4 free failures and stop growing at 15 minutes; the right password works after the last', async () => {
    const user = await newUser();
    const waits: number[] = [];
    for (let i = 1; i <= 18; i++) expect((await guess(user.email, `guess ${i}`, '198.51.100.3', waits)).status).toBe(401);
    expect(waits).toEqual([1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900, 900]);
    const early = await login(user.email, user.password, '198.51.100.3');
    expect(retryAfter(early)).toBe(900);
    clock.advance(899_000);
    expect(retryAfter(await login(user.email, user.password, '198.51.100.3'))).toBe(1);
    clock.advance(1_000);
    expect((await login(user.email, user.password, '198.51.100.3')).status).toBe(303);
  });

  it('ten guesses at once get at most five password checks', async () => {
    const user = await newUser();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => login(user.email, `parallel guess ${i}`, '198.51.100.4')));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
    clock.advance(60_000);
  });
});

describe('the per-address limit', () => {
  it('slows down one address spraying many accounts, not the owner signing in from another', async () => {
    const owner = await newUser();
    for (let i = 0; i < 20; i++) {
      expect((await login(`nobody${i}@spray.example`, 'guess', '198.51.100.5')).status).toBe(401);
    }
    const sprayer = await login(owner.email, owner.password, '198.51.100.5');
    expect(sprayer.status).toBe(429);
    expect(retryAfter(sprayer)).toBe(1);
    expect((await login(owner.email, owner.password, '203.0.113.51')).status).toBe(303);
    // A failure is forgotten every 3 minutes: an hour later the address is free again.
    clock.advance(60 * 60 * 1000);
    expect((await login(owner.email, owner.password, '198.51.100.5')).status).toBe(303);
  });
});

describe('throttled attempts', () => {
  it('write nothing: no throttle row, no session, even with the right password', async () => {
    const user = await newUser();
    for (let i = 0; i < 5; i++) await login(user.email, `guess ${i}`, '198.51.100.6');
    const rows = await throttleRows();
    const before = await sessions();
    for (const [password, address] of [
      ['another guess', '198.51.100.6'],
      [user.password, '198.51.100.6'],
      [user.password, '203.0.113.52'],
    ] as const) {
      const res = await login(user.email, password, address);
      expect(res.status).toBe(429);
    }
    expect(await throttleRows()).toEqual(rows);
    expect(await sessions()).toBe(before);
    clock.advance(60_000);
  });
});

describe('pruning', () => {
  it('each recorded attempt deletes rows without a failure for a day, oldest first, so the table stays bounded', async () => {
    const old = new Date(clock.now().getTime() - 2 * 24 * 3600 * 1000);
    const recent = new Date(clock.now().getTime() - 3600 * 1000);
    await sql`INSERT INTO dashboard_login_throttle (key, failures, last_failure_at, next_attempt_at)
              SELECT 'account:stale' || g || '@x.example', 3, ${old.toISOString()}::timestamptz, ${old.toISOString()}::timestamptz
                FROM generate_series(1, 150) g`.execute(h.database.db);
    await sql`INSERT INTO dashboard_login_throttle (key, failures, last_failure_at, next_attempt_at)
              VALUES ('account:recent@x.example', 3, ${recent.toISOString()}::timestamptz, ${recent.toISOString()}::timestamptz)`.execute(
      h.database.db,
    );
    const stale = async () =>
      Number(
        (
          await sql<{ n: string }>`SELECT count(*) AS n FROM dashboard_login_throttle WHERE key LIKE 'account:stale%'`.execute(
            h.database.db,
          )
        ).rows[0]!.n,
      );
    expect((await login('someone@prune.example', 'guess', '198.51.100.8')).status).toBe(401);
    expect(await stale()).toBe(50);
    expect((await login('someone@prune.example', 'guess', '198.51.100.8')).status).toBe(401);
    expect(await stale()).toBe(0);
    const kept = await sql`SELECT 1 FROM dashboard_login_throttle WHERE key = 'account:recent@x.example'`.execute(h.database.db);
    expect(kept.rows).toHaveLength(1);
  });
});

describe('TRUST_PROXY', () => {
  it('set: the client is the address X-Forwarded-For names (an IPv6 client by its /64)', async () => {
    await login('someone@proxy.example', 'guess', '192.0.2.77');
    await login('someone@proxy.example', 'guess', '2001:db8:aa:bb:1::5');
    const keys = (await throttleRows()).map((r) => r.key);
    expect(keys).toContain('client:192.0.2.77');
    expect(keys).toContain('client:2001:db8:aa:bb::/64');
    expect(keys).not.toContain('client:127.0.0.1');
  });
});
