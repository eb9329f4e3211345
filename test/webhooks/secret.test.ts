/**
 * Per-wallet webhook signing secrets (issue 17, item 6): `webhook-signature` keyed with a
 * Standard Webhooks `whsec_` secret, so a receiver need not hold the API key; shown once,
 * sealed by the key vault, rotatable with an overlap during which both signatures are sent.
 * `x-service-signature` stays keyed with the API key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ManualClock } from '../../src/lib/clock.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { parseWebhookSecret, serviceSignature } from '../../src/lib/webhook-signature.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type ReceivedRequest, type Receiver } from '../support/receiver.js';
import { createDashboardUser, DashClient } from '../dashboard/support.js';

const HOUR = 3_600_000;
const clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  h = await startHarness({ clock, worker: true, specs: [DEVNET_CHAINS[0]!] });
  receiver = await startReceiver();
  const res = await h.api('PATCH', `/v1/wallets/${w().id}`, { key: w().apiKey, body: { webhookUrl: receiver.url } });
  expect(res.status).toBe(200);
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
});

const w = () => h.wallets['devnet-eth']!;
const secretPath = () => `/v1/wallets/${w().id}/webhooks/secret`;

/** Sends a test event and returns the request the receiver got. */
async function testEvent(): Promise<ReceivedRequest> {
  const before = receiver.requests.length;
  const res = await h.api('POST', `/v1/wallets/${w().id}/webhooks/test`, { key: w().apiKey });
  expect(res.status).toBe(200);
  await receiver.waitForRequests(before + 1);
  return receiver.requests[before]!;
}

/** Verifies with the kit at the service clock's time; each call checks signatures afresh (no replay guard). */
const verify = (req: ReceivedRequest, keys: { secret?: string | string[]; apiKey?: string }) =>
  verifyWebhook({ body: req.body, headers: req.headers, now: clock.now().getTime(), replay: false, ...keys });

let first: string;
let second: string;

describe('before any secret', () => {
  it('the API key keys both signatures, as before secrets existed', async () => {
    const status = await h.api('GET', secretPath(), { key: w().apiKey });
    expect(status.status).toBe(200);
    expect(status.body.data).toEqual({
      walletId: w().id,
      hasSecret: false,
      createdAt: null,
      previousValidUntil: null,
      apiKeySigns: true,
      apiKeySignsUntil: null,
    });
    const req = await testEvent();
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verify(req, { apiKey: w().apiKey }).event).toBe('webhook.test');
  });
});

describe('creating the first secret', () => {
  it('returns a whsec_ secret once, sealed by the key vault, never shown again', async () => {
    const res = await h.api('POST', secretPath(), { key: w().apiKey });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    first = res.body.data.secret;
    expect(first).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const until = new Date(clock.now().getTime() + 24 * HOUR).toISOString();
    expect(res.body.data).toMatchObject({ hasSecret: true, previousValidUntil: null, apiKeySigns: true, apiKeySignsUntil: until });

    const { rows } = await sql<{ id: string; secret_ciphertext: Buffer }>`
      SELECT id, secret_ciphertext FROM webhook_secrets WHERE wallet_id = ${w().id}`.execute(h.database.db);
    expect(rows).toHaveLength(1);
    const bytes = parseWebhookSecret(first);
    expect(rows[0]!.secret_ciphertext.includes(bytes)).toBe(false);
    expect(await new LocalKeyVault(h.kek).open(rows[0]!.secret_ciphertext, rows[0]!.id)).toEqual(bytes);

    const status = await h.api('GET', secretPath(), { key: w().apiKey });
    expect(status.body.data).not.toHaveProperty('secret');
    expect(JSON.stringify(status.body)).not.toContain(first.slice(6, 20));
    expect(h.logs()).not.toContain(first.slice(6));
  });

  it('during the overlap the API key still signs beside the secret: old and new receivers verify', async () => {
    const req = await testEvent();
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(req, { secret: first }).event).toBe('webhook.test');
    expect(verify(req, { apiKey: w().apiKey }).event).toBe('webhook.test');
    // x-service-signature stays keyed with the API key (the spec's scheme).
    expect(req.headers['x-service-signature']).toBe(serviceSignature(req.body, w().apiKey));
  });
});

describe('rotating', () => {
  it('during the overlap the header carries both signatures and the kit verifies each secret', async () => {
    const res = await h.api('POST', secretPath(), { key: w().apiKey, body: { overlapSeconds: 3600 } });
    expect(res.status).toBe(200);
    second = res.body.data.secret;
    expect(second).not.toBe(first);
    expect(res.body.data).toMatchObject({
      hasSecret: true,
      previousValidUntil: new Date(clock.now().getTime() + HOUR).toISOString(),
      // A second rotation ends the API key's overlap: at most two keys sign at a time.
      apiKeySigns: false,
      apiKeySignsUntil: null,
    });
    const req = await testEvent();
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verify(req, { secret: second }).event).toBe('webhook.test');
    expect(verify(req, { secret: first }).event).toBe('webhook.test');
    expect(() => verify(req, { apiKey: w().apiKey })).toThrow(/webhook-signature/);
  });

  it('after the window only the new secret signs', async () => {
    clock.advance(HOUR + 1000);
    const req = await testEvent();
    expect(String(req.headers['webhook-signature']).split(' ')).toHaveLength(1);
    expect(verify(req, { secret: second }).event).toBe('webhook.test');
    expect(() => verify(req, { secret: first })).toThrow(/webhook-signature/);
    expect((await h.api('GET', secretPath(), { key: w().apiKey })).body.data).toMatchObject({
      hasSecret: true,
      previousValidUntil: null,
      apiKeySigns: false,
    });
  });

  it('overlapSeconds 0 replaces the secret at once', async () => {
    const res = await h.api('POST', secretPath(), { key: w().apiKey, body: { overlapSeconds: 0 } });
    const third = res.body.data.secret as string;
    expect(res.body.data.previousValidUntil).toBeNull();
    const req = await testEvent();
    expect(verify(req, { secret: third }).event).toBe('webhook.test');
    expect(() => verify(req, { secret: second })).toThrow(/webhook-signature/);
  });
});

describe('access and validation', () => {
  it("another business's wallet looks unknown (404), and bad overlaps are 400 with nothing written", async () => {
    const other = await h.services.businesses.create('Other Business');
    const foreign = await h.services.wallets.createForBusiness(other.business.id, {
      blockchain: 'devnet-eth',
      network: 'testnet',
      name: 'Foreign',
    });
    const count = async () =>
      Number((await sql<{ n: string }>`SELECT count(*) AS n FROM webhook_secrets`.execute(h.database.db)).rows[0]!.n);
    const before = await count();
    for (const [method, key] of [
      ['POST', w().apiKey],
      ['GET', w().apiKey],
      ['POST', h.businessKey],
    ] as const) {
      const res = await h.api(method, `/v1/wallets/${foreign.wallet.id}/webhooks/secret`, { key });
      expect(res.status).toBe(404);
      expect(res.body.error).toBe('NOT_FOUND');
    }
    for (const body of [{ overlapSeconds: -1 }, { overlapSeconds: 604_801 }, { overlapSeconds: 1.5 }, { overlap: 10 }]) {
      const res = await h.api('POST', secretPath(), { key: w().apiKey, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
    }
    expect(await count()).toBe(before);
    // The business key of the wallet's own business may rotate it.
    expect((await h.api('POST', secretPath(), { key: h.businessKey })).status).toBe(200);
  });

  it('the dashboard developers page creates a secret and shows it once', async () => {
    await createDashboardUser(h, h.businessId, 'owner@secret.example', 'a long dashboard password');
    const c = new DashClient(h.baseUrl);
    expect((await c.login('owner@secret.example', 'a long dashboard password')).status).toBe(303);
    const page = await c.submit('/dashboard/developers', `/dashboard/developers/${w().id}/webhook-secret`);
    expect(page.status).toBe(200);
    const shown = /<code class="key" id="whsec">(whsec_[^<]+)<\/code>/.exec(page.text)?.[1];
    expect(shown).toBeDefined();
    expect((await c.get('/dashboard/developers')).text).not.toContain(shown!);
    clock.advance(25 * HOUR);
    expect(verify(await testEvent(), { secret: shown! }).event).toBe('webhook.test');
  });

  it('is described in /openapi.json', async () => {
    const spec = (await h.api('GET', '/openapi.json', { key: null })).body;
    expect(Object.keys(spec.paths['/v1/wallets/{walletId}/webhooks/secret'])).toEqual(expect.arrayContaining(['get', 'post']));
  });
});
