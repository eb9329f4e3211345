/**
 * A fourth chain family joins without touching anything shared: the abacus test double
 * (test/support/abacus/: its own addresses, keys at its own path, transactions, flat fees, an
 * 'expiry' ordering and no capability at all) is registered by one line in
 * src/chains/families.ts, which this file adds with vi.mock (the list plus abacusFamily, as
 * the line would), and nothing else: no adapterFor, no edit in config/, keys/, modules/,
 * runtime or devnet. Through HTTP, the real PostgreSQL and the real pipeline it then:
 * creates a wallet (its family's derivation and codec), withdraws from the master (no nonce:
 * a deadline), records a deposit to a child address (the indexer scanning its blocks) and
 * sweeps it to the master (the child pays the family's flat fee), refusing what it has no
 * capability for (422 NOT_SUPPORTED from the registry).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { secp256k1 } from '@noble/curves/secp256k1';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { FAMILIES } from '../../src/chains/family-lookup.js';
import { familyOfChain } from '../../src/chains/registry.js';
import type { TxIntent } from '../../src/chains/types.js';
import { startHarness, type Harness } from '../support/harness.js';
import { eventually } from '../support/fixtures.js';
import { abacusChainConfig, abacusFamily } from '../support/abacus/index.js';
import { AbacusAdapter } from '../support/abacus/adapter.js';
import { AbacusChain, FEE } from '../support/abacus/chain.js';
import { abacusAddress, abacusCodec } from '../support/abacus/codec.js';

// The one line a fourth family adds to src/chains/families.ts: `[evm, tron, solana, abacus]`.
vi.mock('../../src/chains/families.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/chains/families.js')>();
  const { abacusFamily: added } = await import('../support/abacus/index.js');
  return { FAMILIES: [...original.FAMILIES, added] };
});

/** Every file the double needed, all in its own folder. */
const FOLDER = new URL('../support/abacus/', import.meta.url);
const FILES = ['adapter.ts', 'chain.ts', 'codec.ts', 'index.ts', 'receipt.ts', 'sender.ts'];
/** What it imports of the service: the seam and the shared helpers a family builds on, nothing else. */
const SEAM = [
  'src/chains/bip32-derivation.js',
  'src/chains/errors.js',
  'src/chains/family.js',
  'src/chains/receipts.js',
  'src/chains/types.js',
  'src/config/chains.js',
  'src/config/index.js',
  'src/lib/errors.js',
];

const CHAIN_ID = 990_444;
const URL_ = `http://127.0.0.1:9/abacus/${CHAIN_ID}`;
const config = abacusChainConfig({ chainId: CHAIN_ID, rpcUrl: URL_, confirmations: 2 });
const slug = config.blockchain.slug;
const COIN = 10n ** 8n;

let h: Harness;
let chain: AbacusChain;
let wallet: { id: string; apiKey: string; address: string };
let nativeId: string;

beforeAll(async () => {
  chain = new AbacusChain(CHAIN_ID, URL_, { blockMs: 100 });
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    extraChains: [config],
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  const created = await h.services.wallets.createForBusiness(h.businessId, { blockchain: slug, network: 'testnet', name: 'Abacus' });
  wallet = { id: created.wallet.id, apiKey: created.apiKey, address: created.wallet.address };
  nativeId = h.services.catalogue.findChain(slug, 'testnet')!.assets.find((a) => a.is_native)!.id;
  const enabled = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${nativeId}`, { key: wallet.apiKey, body: { isActive: true } });
  expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
  chain.credit(wallet.address, 10n * COIN);
}, 120_000);
afterAll(async () => {
  await h?.stop();
  chain?.stop();
});

const api = (method: string, path: string, body?: unknown) =>
  h.api(method, `/v1/wallets/${wallet.id}${path}`, { key: wallet.apiKey, ...(body === undefined ? {} : { body }) });
const outsider = () => abacusAddress(secp256k1.getPublicKey(secp256k1.utils.randomPrivateKey(), true));

async function settled(id: string): Promise<Record<string, any>> {
  return eventually(
    async () => (await api('GET', `/transactions/${id}`)).body.data,
    (t) => t.status !== 'PENDING' && t.confirmed === true,
    30_000,
  );
}

describe('a fourth family: its own folder and one line in families.ts', () => {
  it('the double needed these files, in its folder, and imports of the service only the seam', () => {
    expect(readdirSync(FOLDER).sort()).toEqual(FILES);
    for (const file of FILES) {
      const text = readFileSync(new URL(file, FOLDER), 'utf8');
      const imported = [...text.matchAll(/from '((?:\.\.\/)+)(src\/[^']+)'/g)].map((m) => m[2]!);
      expect(
        imported.filter((path) => !SEAM.includes(path)),
        file,
      ).toEqual([]);
    }
  });

  it('is listed after the three real families; a chain naming it gets its adapter, codec and derivation', () => {
    expect(FAMILIES.map((f) => f.name)).toEqual(['evm', 'tron', 'solana', 'abacus']);
    expect(familyOfChain(config)).toBe(abacusFamily);
    const adapter = h.services.catalogue.findChain(slug, 'testnet')!.adapter;
    expect(adapter).toBeInstanceOf(AbacusAdapter);
    expect(adapter.sender.ordering).toBe('expiry');
    expect(abacusCodec.normalize(wallet.address)).toBe(wallet.address);
  });

  it('a withdrawal from the master: no nonce, a deadline; landed, SUCCESS, exact balances', async () => {
    const to = outsider();
    const before = chain.balanceOf(wallet.address);
    const res = await api('POST', '/withdraw', { assetId: nativeId, address: to, amount: '1.25' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const done = await settled(res.body.data.id);
    expect(done).toMatchObject({ status: 'SUCCESS', recipientAddress: to, senderAddress: wallet.address, gasUsed: '1' });
    const { rows } = await sql<{ nonce: string | null; network_data: Record<string, string>; hash: string }>`
      SELECT nonce, network_data, hash FROM outbound_txs WHERE owner_id = ${res.body.data.id}`.execute(h.database.db);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.nonce).toBeNull();
    expect(Object.keys(rows[0]!.network_data)).toEqual(['validUntil']);
    expect(done.hash).toBe(rows[0]!.hash);
    expect(chain.balanceOf(to)).toBe(125n * 10n ** 6n);
    expect(chain.balanceOf(wallet.address)).toBe(before - 125n * 10n ** 6n - FEE);
    expect(BigInt(done.gasPrice)).toBe(FEE);
  });

  it('a deposit to a child address is recorded once, SUCCESS, and swept to the master, the child paying its fee', async () => {
    const created = await api('POST', '/addresses', {});
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const child = created.body.data as { address: string };
    expect(abacusCodec.normalize(child.address)).toBe(child.address);
    // Someone outside pays the child, signing with their own key.
    const secret = secp256k1.utils.randomPrivateKey();
    const payer = abacusAddress(secp256k1.getPublicKey(secret, true));
    chain.credit(payer, 2n * COIN);
    const adapter = h.services.catalogue.findChain(slug, 'testnet')!.adapter;
    const intent: TxIntent = { kind: 'native', from: payer, to: child.address, amount: COIN / 2n };
    const signed = adapter.sender.sign(intent, null, await adapter.sender.prepare(intent, {}), {
      signDigest: (digest) => {
        const sig = secp256k1.sign(digest, secret, { lowS: true });
        return { r: sig.r, s: sig.s, recovery: sig.recovery };
      },
    });
    const masterBefore = chain.balanceOf(wallet.address);
    expect(await adapter.broadcast(signed.raw)).toBe(signed.hash);

    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(slug, 'testnet')!);
    const deposits = async () => {
      await indexer.step();
      const { rows } = await sql<{ id: string; status: string; amount: string; recipient_address: string }>`
        SELECT id, status, amount, recipient_address FROM transactions WHERE type = 'DEPOSIT' AND hash = ${signed.hash}`.execute(
        h.database.db,
      );
      return rows;
    };
    const rows = await eventually(deposits, (r) => r[0]?.status === 'SUCCESS', 30_000);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amount: (COIN / 2n).toString(), recipient_address: child.address });

    // Auto-sweep (the wallet's default): the child sends what it holds less the flat fee.
    const swept = await eventually(
      async () => (await api('GET', `/transactions/${rows[0]!.id}`)).body.data,
      (d) => d.assetSwept === true,
      30_000,
    );
    expect(swept.assetSweptRecipientAddress).toBe(wallet.address);
    expect(swept.assetSweptSenderAddress).toBe(child.address);
    await eventually(
      async () => chain.balanceOf(child.address),
      (b) => b === 0n,
      10_000,
    );
    expect(chain.balanceOf(wallet.address)).toBe(masterBefore + COIN / 2n - FEE);
  });

  it('what it has no capability for is refused by the registry: 422, nothing written', async () => {
    const before = (await api('GET', '/transactions?limit=100')).body.data.length;
    const message = await api('POST', '/signing/message', { message: 'hello' });
    expect(message.status, JSON.stringify(message.body)).toBe(422);
    expect(message.body.error).toBe('NOT_SUPPORTED');
    const typed = await api('POST', '/signing/typed-data', {
      domain: { name: 'Example', version: '1', chainId: 1, verifyingContract: '0x0000000000000000000000000000000000000001' },
      types: { Mail: [{ name: 'contents', type: 'string' }] },
      message: { contents: 'hello' },
    });
    expect(typed.status, JSON.stringify(typed.body)).toBe(422);
    expect(typed.body.error).toBe('TYPED_DATA_NOT_SUPPORTED');
    expect((await api('GET', '/transactions?limit=100')).body.data.length).toBe(before);
  });
});
