/**
 * Rule CRUD and validation over HTTP: wallet and address level, the spec's shapes, every
 * refusal a 400 (or 404 for foreign ids) that writes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';

let h: Harness;
const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;
const DEST = '0x000000000000000000000000000000000000dEaD';

const rule = (over: Record<string, unknown> = {}) => ({
  name: 'Settle USDC',
  order: 'RECOMMENDED',
  slippageTolerance: '1',
  source: { assets: ['USDC'], blockchain: 'devnet-eth', minAmount: '1', maxAmount: '1000' },
  destination: { asset: 'USDC', address: DEST, blockchain: 'devnet-eth' },
  ...over,
});

async function ruleCount(): Promise<number> {
  const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM auto_settlement_rules`.execute(h.database.db);
  return Number(rows[0]!.n);
}

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!, DEVNET_CHAINS[1]!] });
});
afterAll(async () => {
  await h?.stop();
});

describe('wallet configuration', () => {
  it('starts off with no rules, and switches on and off', async () => {
    let res = await h.api('GET', `${base()}/auto-settlements`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, data: { isActive: false, name: '', rules: [] } });

    res = await h.api('PATCH', `${base()}/auto-settlements`, { body: { isActive: true, name: 'Treasury' } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ isActive: true, name: 'Treasury' });
    // One switch: the wallet's configurations show it too.
    expect((await h.api('GET', base())).body.data.configurations.autoSettlement.isActive).toBe(true);
    res = await h.api('PATCH', `${base()}/auto-settlements`, { body: { isActive: false } });
    expect(res.body.data).toMatchObject({ isActive: false, name: 'Treasury' });
    expect((await h.api('PATCH', `${base()}/auto-settlements`, { body: { isActive: 'yes' } })).status).toBe(400);
  });
});

describe('wallet rules', () => {
  it('create, list, get, update, delete', async () => {
    const created = await h.api('POST', `${base()}/auto-settlements/rules`, { body: rule() });
    expect(created.status).toBe(200);
    const r = created.body.data;
    expect(r).toMatchObject({
      name: 'Settle USDC',
      isActive: true,
      order: 'RECOMMENDED',
      slippageTolerance: '1',
      source: { assets: ['USDC'], blockchain: 'devnet-eth', minAmount: '1', maxAmount: '1000' },
      destination: { asset: 'USDC', address: DEST, blockchain: 'devnet-eth' },
    });
    expect(r.id).toMatch(/^[0-9a-f-]{36}$/);

    const list = await h.api('GET', `${base()}/auto-settlements/rules`);
    expect(list.body.data.map((x: { id: string }) => x.id)).toContain(r.id);
    expect((await h.api('GET', `${base()}/auto-settlements/rules/${r.id}`)).body.data).toEqual(r);
    // The configuration lists rules without id and timestamps (spec).
    const config = (await h.api('GET', `${base()}/auto-settlements`)).body.data;
    expect(config.rules[0]).not.toHaveProperty('id');
    expect(config.rules[0]).toMatchObject({ name: 'Settle USDC' });
    // The wallet's own view carries the same rules (spec: configurations.autoSettlement.rules).
    const view = (await h.api('GET', base())).body.data;
    expect(view.configurations.autoSettlement.rules).toEqual([r]);

    const patched = await h.api('PATCH', `${base()}/auto-settlements/rules/${r.id}`, {
      body: { order: 'CHEAPEST', slippageTolerance: '0.25', source: { maxAmount: null } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ order: 'CHEAPEST', slippageTolerance: '0.25', source: { minAmount: '1', maxAmount: null } });

    const deleted = await h.api('DELETE', `${base()}/auto-settlements/rules/${r.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data.id).toBe(r.id);
    expect((await h.api('GET', `${base()}/auto-settlements/rules/${r.id}`)).status).toBe(404);
    expect((await h.api('GET', base())).body.data.configurations.autoSettlement.rules).toEqual([]);
  });

  it('a swap rule between the two stablecoins is accepted (the devnet has a router)', async () => {
    const res = await h.api('POST', `${base()}/auto-settlements/rules`, {
      body: rule({ order: 'NO_SLIPPAGE', destination: { asset: 'USDT', address: DEST, blockchain: 'devnet-eth' } }),
    });
    expect(res.status).toBe(200);
    await h.api('DELETE', `${base()}/auto-settlements/rules/${res.body.data.id}`);
  });

  const bad: [string, Record<string, unknown>][] = [
    ['an unknown order', { order: 'FAST' }],
    ['a negative slippage', { slippageTolerance: '-1' }],
    ['a slippage of 100%', { slippageTolerance: '100' }],
    ['a numeric slippage', { slippageTolerance: 5 }],
    ['min above max', { source: { assets: ['USDC'], blockchain: 'devnet-eth', minAmount: '10', maxAmount: '5' } }],
    ['more decimals than the asset', { source: { assets: ['USDC'], blockchain: 'devnet-eth', minAmount: '0.0000001' } }],
    ['a negative amount', { source: { assets: ['USDC'], blockchain: 'devnet-eth', minAmount: '-1' } }],
    ['an unknown source asset', { source: { assets: ['DAI'], blockchain: 'devnet-eth' } }],
    ['an empty source list', { source: { assets: [], blockchain: 'devnet-eth' } }],
    ['another blockchain', { source: { assets: ['USDC'], blockchain: 'devnet-bsc' } }],
    ['an unknown destination asset', { destination: { asset: 'EURC', address: DEST, blockchain: 'devnet-eth' } }],
    ['a bad destination address', { destination: { asset: 'USDC', address: '0x1234', blockchain: 'devnet-eth' } }],
    ['a cross-chain destination', { destination: { asset: 'USDC', address: DEST, blockchain: 'devnet-bsc' } }],
    ['a swap from the native coin', { source: { assets: ['ETH'], blockchain: 'devnet-eth' } }],
    ['an unknown field', { colour: 'blue' }],
    ['no name', { name: undefined }],
  ];
  it.each(bad)('refuses %s with 400 and writes nothing', async (_what, over) => {
    const before = await ruleCount();
    const res = await h.api('POST', `${base()}/auto-settlements/rules`, { body: rule(over) });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR' });
    expect(typeof res.body.requestId).toBe('string');
    expect(await ruleCount()).toBe(before);
  });

  it('a PATCH that makes a rule invalid is refused and changes nothing', async () => {
    const r = (await h.api('POST', `${base()}/auto-settlements/rules`, { body: rule() })).body.data;
    for (const body of [
      { source: { minAmount: '2000' } },
      { order: 'SLOWEST' },
      { slippageTolerance: '-0.5' },
      { destination: { address: 'nope' } },
    ]) {
      const res = await h.api('PATCH', `${base()}/auto-settlements/rules/${r.id}`, { body });
      expect(res.status).toBe(400);
    }
    expect((await h.api('GET', `${base()}/auto-settlements/rules/${r.id}`)).body.data).toEqual(r);
    await h.api('DELETE', `${base()}/auto-settlements/rules/${r.id}`);
  });
});

describe('address rules', () => {
  it('create, list, PATCH and DELETE at the spec paths; foreign ids are 404', async () => {
    const address = (await h.api('POST', `${base()}/addresses`, { body: {} })).body.data;
    const path = `${base()}/addresses/${address.id}/auto-settlements`;
    expect((await h.api('GET', path)).body.data).toEqual({ isActive: true, rules: [] });

    const created = await h.api('POST', `${path}/rules`, { body: rule({ name: 'Address rule' }) });
    expect(created.status).toBe(200);
    const r = created.body.data;
    expect((await h.api('GET', `${path}/rules`)).body.data).toEqual([r]);
    expect((await h.api('GET', path)).body.data).toEqual({ isActive: true, rules: [r] });
    // The wallet level does not see it.
    expect((await h.api('GET', `${base()}/auto-settlements/rules/${r.id}`)).status).toBe(404);

    const patched = await h.api('PATCH', `${path}/rules/${r.id}`, { body: { name: 'Renamed', isActive: false } });
    expect(patched.body.data).toMatchObject({ id: r.id, name: 'Renamed', isActive: false });
    expect((await h.api('PATCH', `${path}/rules/${r.id}`, { body: { order: 'ANY' } })).status).toBe(400);

    const bsc = h.wallets['devnet-bsc']!;
    const foreign = await h.api('GET', `/v1/wallets/${bsc.id}/addresses/${address.id}/auto-settlements/rules`, { key: bsc.apiKey });
    expect(foreign.status).toBe(404);
    expect((await h.api('DELETE', `${path}/rules/${r.id}`, { key: bsc.apiKey })).status).toBe(404);

    const deleted = await h.api('DELETE', `${path}/rules/${r.id}`);
    expect(deleted.body.data).toMatchObject({ id: r.id, name: 'Renamed' });
    expect((await h.api('GET', `${path}/rules`)).body.data).toEqual([]);
    expect((await h.api('DELETE', `${path}/rules/${r.id}`)).status).toBe(404);

    expect((await h.api('PATCH', path, { body: { isActive: false } })).body.data).toEqual({ isActive: false, rules: [] });
  });
});
