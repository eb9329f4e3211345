/**
 * One outside address registered on one wallet by several requests at the same moment
 * (`POST .../addresses/whitelist`): one registers it, the others get 409 ADDRESS_EXISTS,
 * never a 500 from the unique index, and one row (and at most one imported key) is left.
 * The same for an address removed earlier and registered again at once by several requests.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!] });
});
afterAll(async () => {
  await h?.stop();
});

const w = () => h.wallets['devnet-eth']!;
const whitelist = () => `/v1/wallets/${w().id}/addresses/whitelist`;

function newKey() {
  const privateKey = generatePrivateKey();
  return { privateKey, address: privateKeyToAccount(privateKey).address };
}

async function rows(address: string) {
  const { rows } = await sql<{ n: string; live: string; keys: string }>`
    SELECT count(*) AS n, count(*) FILTER (WHERE deleted_at IS NULL) AS live,
           (SELECT count(*) FROM address_keys WHERE lower(address) = lower(${address})) AS keys
      FROM addresses WHERE wallet_id = ${w().id} AND lower(address) = lower(${address})`.execute(h.database.db);
  return { n: Number(rows[0]!.n), live: Number(rows[0]!.live), keys: Number(rows[0]!.keys) };
}

async function race(bodies: Record<string, unknown>[]) {
  const results = await Promise.all(bodies.map((body) => h.api('POST', whitelist(), { body })));
  return results;
}

describe('concurrent registrations of one address on one wallet', () => {
  for (const withKey of [false, true]) {
    it(`${withKey ? 'with' : 'without'} privateKey: one 200, the others 409 ADDRESS_EXISTS, one row`, async () => {
      const k = newKey();
      const body = withKey ? k : { address: k.address };
      const results = await race(Array.from({ length: 6 }, () => body));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses, JSON.stringify(results.map((r) => r.body))).toEqual([200, 409, 409, 409, 409, 409]);
      for (const r of results.filter((r) => r.status === 409)) expect(r.body.error).toBe('ADDRESS_EXISTS');
      expect(await rows(k.address)).toEqual({ n: 1, live: 1, keys: withKey ? 1 : 0 });
    });

    it(`${withKey ? 'with' : 'without'} privateKey, after a removal: registered again once, the others 409`, async () => {
      const k = newKey();
      const body = withKey ? k : { address: k.address };
      const first = await h.api('POST', whitelist(), { body });
      expect(first.status).toBe(200);
      expect((await h.api('DELETE', `${whitelist()}/${first.body.data.id}`)).status).toBe(200);
      const results = await race(Array.from({ length: 6 }, () => body));
      const statuses = results.map((r) => r.status).sort();
      expect(statuses, JSON.stringify(results.map((r) => r.body))).toEqual([200, 409, 409, 409, 409, 409]);
      for (const r of results.filter((r) => r.status === 409)) expect(r.body.error).toBe('ADDRESS_EXISTS');
      expect(await rows(k.address)).toEqual({ n: 1, live: 1, keys: withKey ? 1 : 0 });
    });
  }
});

describe('a deactivated wallet', () => {
  it('registers no address (422 WALLET_INACTIVE, nothing written, no key stored) and still lets its keys be exported', async () => {
    const k = newKey();
    const kept = await h.api('POST', whitelist(), { body: newKey() });
    expect(kept.status).toBe(200);
    const off = await h.api('PATCH', `/v1/wallets/${w().id}`, { body: { isActive: false } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    try {
      for (const body of [k, { address: k.address }]) {
        const res = await h.api('POST', whitelist(), { body });
        expect(res.status, JSON.stringify(res.body)).toBe(422);
        expect(res.body.error).toBe('WALLET_INACTIVE');
      }
      expect(await rows(k.address)).toEqual({ n: 0, live: 0, keys: 0 });
      // Export is how funds left on a deactivated wallet are recovered: it stays open.
      const exported = await h.api('GET', `/v1/wallets/${w().id}/addresses/${kept.body.data.id}?showPrivateKey=true`);
      expect(exported.status, JSON.stringify(exported.body)).toBe(200);
      expect(exported.body.data.privateKey).toMatch(/^0x[0-9a-f]{64}$/);
    } finally {
      await h.api('PATCH', `/v1/wallets/${w().id}`, { key: h.businessKey, body: { isActive: true } });
    }
  });
});

describe('concurrent removals of one registered address', () => {
  it('one removes it (200, its key deleted and audited once), the others 404', async () => {
    const k = newKey();
    const added = await h.api('POST', whitelist(), { body: k });
    expect(added.status).toBe(200);
    const results = await Promise.all(Array.from({ length: 4 }, () => h.api('DELETE', `${whitelist()}/${added.body.data.id}`)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 404, 404, 404]);
    expect(await rows(k.address)).toEqual({ n: 1, live: 0, keys: 0 });
    const { rows: audits } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM audit_log WHERE action = 'address.private_key_deleted' AND target_id = ${added.body.data.id}`.execute(
      h.database.db,
    );
    expect(Number(audits[0]!.n)).toBe(1);
  });
});
