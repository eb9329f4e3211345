/**
 * The zero address as a destination (issue 24, item 4): each family's all-zero address (EVM
 * 0x000…0, Tron T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb, Solana's System Program
 * 11111111111111111111111111111111) is refused wherever a destination is saved: auto-settlement
 * rule destinations (created or patched, wallet and address rules) and whitelisted external
 * addresses, in any spelling the family accepts; a catalogued token's contract too. Each refusal is a 400 that writes nothing.
 * The Tron and Solana chains are configured only (never dialled): nothing here needs a node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { familyOf } from '../../src/chains/family-lookup.js';
import { resolveChain } from '../../src/configuration.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { startHarness, type Harness } from '../support/harness.js';

const offline = { network: 'testnet' as const, rpcUrl: 'http://127.0.0.1:9/never-dialled', assets: [] };
const tron = resolveChain({ blockchain: 'tron-double', family: 'tron', chainId: 990_201, name: 'Tron', symbol: 'TRX', ...offline }, 'test');
const solana = resolveChain(
  { blockchain: 'solana-double', family: 'solana', chainId: 990_202, name: 'Solana', symbol: 'SOL', ...offline },
  'test',
);

/** Per family: the chain, its native coin, a valid destination, and the zero address as the family spells it. */
const FAMILIES = [
  {
    slug: 'devnet-eth',
    coin: 'ETH',
    valid: '0x000000000000000000000000000000000000dEaD',
    zeros: [`0x${'0'.repeat(40)}`],
  },
  {
    slug: 'tron-double',
    coin: 'TRX',
    valid: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    zeros: ['T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb', `41${'0'.repeat(40)}`],
  },
  { slug: 'solana-double', coin: 'SOL', valid: 'Vote111111111111111111111111111111111111111', zeros: ['11111111111111111111111111111111'] },
] as const;

let h: Harness;
const wallets: Record<string, { id: string; apiKey: string }> = {};

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], extraChains: [tron, solana] });
  wallets['devnet-eth'] = h.wallets['devnet-eth']!;
  for (const slug of ['tron-double', 'solana-double']) {
    const res = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: slug, network: 'testnet', name: slug } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    wallets[slug] = res.body.data;
  }
});
afterAll(async () => {
  await h?.stop();
});

async function counts() {
  const { rows } = await sql<{ rules: string; addresses: string }>`
    SELECT (SELECT count(*) FROM auto_settlement_rules)::text AS rules, (SELECT count(*) FROM addresses)::text AS addresses`.execute(
    h.database.db,
  );
  return rows[0]!;
}

function expectZeroRefused(res: { status: number; body: any }, field: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error).toBe('VALIDATION_ERROR');
  expect(res.body.details).toContainEqual({ field, message: expect.stringContaining('zero address') });
}

it("the families' zero addresses are the ones the issue names", () => {
  expect(FAMILIES.map((f) => f.zeros[0])).toEqual([
    familyOf('evm').zeroAddress,
    familyOf('tron').zeroAddress,
    familyOf('solana').zeroAddress,
  ]);
});

describe.each(FAMILIES)('$slug', (f) => {
  const rule = (address: string) => ({
    name: 'Settle',
    source: { assets: [f.coin], blockchain: f.slug },
    destination: { asset: f.coin, address, blockchain: f.slug },
  });

  it('an auto-settlement rule to the zero address is refused, created or patched, on the wallet and on an address', async () => {
    const w = wallets[f.slug]!;
    const address = await h.api('POST', `/v1/wallets/${w.id}/addresses`, { key: w.apiKey, body: {} });
    expect(address.status).toBe(200);
    for (const base of [`/v1/wallets/${w.id}`, `/v1/wallets/${w.id}/addresses/${address.body.data.id}`]) {
      const before = await counts();
      for (const zero of f.zeros) {
        expectZeroRefused(
          await h.api('POST', `${base}/auto-settlements/rules`, { key: w.apiKey, body: rule(zero) }),
          'destination.address',
        );
      }
      expect(await counts()).toEqual(before);
      const saved = await h.api('POST', `${base}/auto-settlements/rules`, { key: w.apiKey, body: rule(f.valid) });
      expect(saved.status, JSON.stringify(saved.body)).toBe(200);
      const path = `${base}/auto-settlements/rules/${saved.body.data.id}`;
      for (const zero of f.zeros) {
        expectZeroRefused(await h.api('PATCH', path, { key: w.apiKey, body: { destination: { address: zero } } }), 'destination.address');
      }
      expect((await h.api('GET', path, { key: w.apiKey })).body.data.destination.address).toBe(saved.body.data.destination.address);
    }
  });

  it('whitelisting the zero address is refused and writes nothing', async () => {
    const w = wallets[f.slug]!;
    const before = await counts();
    for (const zero of f.zeros) {
      const res = await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { key: w.apiKey, body: { address: zero } });
      expectZeroRefused(res, 'address');
    }
    expect(await counts()).toEqual(before);
    const ok = await h.api('POST', `/v1/wallets/${w.id}/addresses/whitelist`, { key: w.apiKey, body: { address: f.valid } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });
});

it("a catalogued token's contract is refused as a settlement destination (what is sent there is lost)", async () => {
  const w = wallets['devnet-eth']!;
  const usdc = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
  const before = await counts();
  const res = await h.api('POST', `/v1/wallets/${w.id}/auto-settlements/rules`, {
    key: w.apiKey,
    body: {
      name: 'Settle',
      source: { assets: ['USDC'], blockchain: 'devnet-eth' },
      destination: { asset: 'USDC', address: usdc.address, blockchain: 'devnet-eth' },
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.details).toContainEqual({ field: 'destination.address', message: expect.stringContaining('is the contract of USDC') });
  expect(await counts()).toEqual(before);
});

it("a withdrawal to a precompiled contract's address is refused (0x…01 to 0x…3ff), writing nothing; 0x…dEaD is a destination", async () => {
  const w = wallets['devnet-eth']!;
  const usdc = h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!;
  const payouts = async () =>
    Number(
      (await sql<{ n: string }>`SELECT count(*)::text AS n FROM transactions WHERE wallet_id = ${w.id}`.execute(h.database.db)).rows[0]!.n,
    );
  const before = await payouts();
  for (const address of ['0x0000000000000000000000000000000000000001', '0x0000000000000000000000000000000000000100']) {
    const res = await h.api('POST', `/v1/wallets/${w.id}/withdraw`, { key: w.apiKey, body: { assetId: usdc.id, address, amount: '1' } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.details).toContainEqual({ field: 'address', message: expect.stringContaining('precompiled contract') });
  }
  expect(await payouts()).toBe(before);
  // The burn address is refused for no such reason (it is sent to on purpose): only for funds here.
  const burn = await h.api('POST', `/v1/wallets/${w.id}/withdraw`, {
    key: w.apiKey,
    body: { assetId: usdc.id, address: '0x000000000000000000000000000000000000dEaD', amount: '1' },
  });
  expect(burn.body.details ?? [], JSON.stringify(burn.body)).not.toContainEqual(expect.objectContaining({ field: 'address' }));
});
