/**
 * A Tron chain end to end, through HTTP and the real service: a chains-file chain of the tron
 * family (config/chains.ts resolveChain) whose node is the java-tron stand-in (src/devnet/tron)
 * with short blocks; the registry builds its TronAdapter itself (no adapterFor). A wallet's
 * master T… address is funded from the stand-in's faucet, TRX and USDT are enabled, then:
 * balances, a TRX and a USDT withdrawal (SUCCESS, withdraw.success, exact balances on the
 * stand-in, one transaction each) and a USDT deposit to a child found by the deposit indexer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { resolveChain } from '../../../src/configuration.js';
import { DEVNET_CHAINS } from '../../../src/devnet/devnet.js';
import type { TronStandIn } from '../../../src/devnet/tron/index.js';
import {
  balance,
  fundedWallet,
  info,
  newWallet,
  sendToken,
  sendTrx,
  startForTest,
  tokenBalance,
} from '../../../src/devnet/tron/testkit.js';
import { TronAdapter } from '../../../src/chains/tron/adapter.js';
import { ChainRegistry } from '../../../src/chains/registry.js';
import { tronHex as hex41 } from '../../../src/chains/tron/codec.js';
import { verifyWebhook } from '../../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../../support/harness.js';
import { startReceiver, type Receiver } from '../../support/receiver.js';
import { eventually } from '../../support/fixtures.js';

const SLUG = 'tron-e2e';
// Tron's blocks are final once solidified, 19 behind the head: deposits are confirmed then,
// whatever this says; withdrawals wait this deep (20: the depth of solidification, docs/tron.md).
const CONFIRMATIONS = 20;

let s: TronStandIn;
let h: Harness;
let receiver: Receiver;
let usdt: string;
let wallet: { id: string; apiKey: string; address: string };
let trxId: string;
let usdtId: string;

const tronHex = (address: string) => hex41(address)!;

beforeAll(async () => {
  s = await startForTest({ blockTimeMs: 100 });
  usdt = s.tokens[0]!.address;
  const chain = resolveChain(
    {
      blockchain: SLUG,
      family: 'tron',
      network: 'testnet',
      rpcUrl: s.url,
      chainId: 990_201,
      name: 'Tron',
      symbol: 'TRX',
      tokenStandard: 'TRC20',
      confirmations: CONFIRMATIONS,
      multicall3: s.multicall.address,
      assets: [{ symbol: 'USDT', address: usdt, decimals: 6 }],
    },
    'test',
  );
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    extraChains: [chain],
    services: { outbound: { firstTrackDelayMs: 100, maxTrackDelayMs: 400 } },
  });
  receiver = await startReceiver();

  const created = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: SLUG, network: 'testnet', name: 'Tron' } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  wallet = created.body.data;
  expect(wallet.address).toMatch(/^T[1-9A-HJ-NP-Za-km-z]{33}$/);
  const patched = await h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { webhookUrl: receiver.url } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);

  const assets = h.services.catalogue.findChain(SLUG, 'testnet')!.assets;
  trxId = assets.find((a) => a.is_native)!.id;
  usdtId = assets.find((a) => a.symbol === 'USDT')!.id;
  for (const id of [trxId, usdtId]) {
    const res = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${id}`, { key: wallet.apiKey, body: { isActive: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  await s.control.fund(wallet.address, { trx: 500_000_000, tokens: { USDT: 1_000_000_000n } });
  await s.control.produceBlocks(1);
}, 60_000);

afterAll(async () => {
  await receiver?.close();
  await h?.stop();
  await s?.stop();
});

async function withdraw(assetId: string, amount: string, to: string) {
  const res = await h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, { key: wallet.apiKey, body: { assetId, address: to, amount } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any>;
}

/** The network-fee estimate of a withdrawal body: the fee (sun) and the master's TRX balance. */
async function quote(assetId: string, amount: string, to: string) {
  const res = await h.api('POST', `/v1/wallets/${wallet.id}/withdraw/network-fee`, {
    key: wallet.apiKey,
    body: { assetId, address: to, amount },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const data = res.body.data as { fee: string; balance: string };
  return { fee: sun(data.fee), balance: sun(data.balance) };
}

/** A 6-decimal string in base units, exactly. */
function sun(decimal: string): bigint {
  const [whole, frac = ''] = decimal.split('.');
  return BigInt(whole!) * 1_000_000n + BigInt(frac.padEnd(6, '0'));
}

async function settled(id: string): Promise<Record<string, any>> {
  return eventually(
    async () => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data,
    (t) => t.status !== 'PENDING' && t.confirmed === true,
    40_000,
  );
}

async function outboundRows(ownerId: string) {
  const { rows } = await sql<{ stage: string; purpose: string; hash: string | null }>`
    SELECT stage, purpose, hash FROM outbound_txs WHERE owner_id = ${ownerId} ORDER BY created_at, id`.execute(h.database.db);
  return rows;
}

async function events(id: string, event: string) {
  const read = async () =>
    receiver.requests
      .filter((r) => r.body.includes(id))
      .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: wallet.apiKey, replay: false }))
      .filter((e) => e.event === event && e.data.id === id);
  return eventually(read, (list) => list.length >= 1, 20_000);
}

describe('a Tron chain through the service', () => {
  it('balances: TRX and USDT exact, 6 decimals', async () => {
    const res = await h.api('GET', `/v1/wallets/${wallet.id}/balances`, { key: wallet.apiKey });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = res.body.data as { asset: { asset: { symbol: string; decimals: number } }; balance: string }[];
    const bySymbol = rows.map((r) => [r.asset.asset.symbol, r.asset.asset.decimals, r.balance]).sort();
    expect(bySymbol).toEqual([
      ['TRX', 6, '500'],
      ['USDT', 6, '1000'],
    ]);
  });

  it('a TRX withdrawal to a new (inactive) address: PENDING, SUCCESS, withdraw.success, exact balances, one transaction', async () => {
    const to = newWallet();
    const before = BigInt(await balance(s, tronHex(wallet.address)));
    const estimate = await quote(trxId, '1.234567', to.address);
    expect(estimate.balance).toBe(before);
    const pending = await withdraw(trxId, '1.234567', to.address);
    expect(pending).toMatchObject({ type: 'WITHDRAW', status: 'PENDING', amount: '1.234567', senderAddress: wallet.address });

    const done = await settled(pending.id);
    expect(done).toMatchObject({ status: 'SUCCESS', recipientAddress: to.address });
    const rows = await outboundRows(pending.id);
    expect(rows.map((r) => [r.stage, r.purpose])).toEqual([['mined', 'withdraw']]);
    expect(done.hash).toBe(rows[0]!.hash);

    const fee = BigInt((await info(s, done.hash)).fee ?? 0);
    expect(fee).toBeGreaterThan(0n); // activating the new account costs 1 TRX
    expect(estimate.fee).toBeGreaterThanOrEqual(fee);
    expect(sun(done.fee)).toBe(fee);
    expect(BigInt(await balance(s, to.hex))).toBe(1_234_567n);
    expect(BigInt(await balance(s, tronHex(wallet.address)))).toBe(before - 1_234_567n - fee);

    const [event] = await events(pending.id, 'withdraw.success');
    expect(event!.data).toMatchObject({ status: 'SUCCESS', hash: done.hash, amount: '1.234567', type: 'WITHDRAW' });
  });

  it('a USDT (TRC-20) withdrawal: SUCCESS, withdraw.success, exact token balances, the fee burned in TRX', async () => {
    const to = newWallet();
    const trxBefore = BigInt(await balance(s, tronHex(wallet.address)));
    const usdtBefore = await tokenBalance(s, usdt, wallet.address);
    const estimate = await quote(usdtId, '12.5', to.address);
    expect(estimate.balance).toBe(trxBefore);
    const pending = await withdraw(usdtId, '12.5', to.address);
    expect(pending).toMatchObject({ type: 'WITHDRAW', status: 'PENDING', amount: '12.5' });

    const done = await settled(pending.id);
    expect(done).toMatchObject({ status: 'SUCCESS', recipientAddress: to.address });
    const rows = await outboundRows(pending.id);
    expect(rows.map((r) => [r.stage, r.purpose])).toEqual([['mined', 'withdraw']]);

    const fee = BigInt((await info(s, done.hash)).fee ?? 0);
    expect(await tokenBalance(s, usdt, to.address)).toBe(12_500_000n);
    expect(await tokenBalance(s, usdt, wallet.address)).toBe(usdtBefore - 12_500_000n);
    expect(BigInt(await balance(s, tronHex(wallet.address)))).toBe(trxBefore - fee);
    expect(fee).toBeGreaterThan(0n);
    expect(estimate.fee).toBeGreaterThanOrEqual(fee);
    expect(sun(done.fee)).toBe(fee);

    const [event] = await events(pending.id, 'withdraw.success');
    expect(event!.data).toMatchObject({ status: 'SUCCESS', hash: done.hash, amount: '12.5' });
  });

  it('a USDT deposit to a child address from an outside wallet: one DEPOSIT row SUCCESS, exact amount, deposit.success', async () => {
    const res = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const child = res.body.data as { id: string; address: string };
    expect(child.address).toMatch(/^T/);

    const payer = await fundedWallet(s, 200_000_000, { USDT: 50_000_000n });
    const sent = await sendToken(s, payer, usdt, child.address, 7_654_321n);
    expect(sent.result, JSON.stringify(sent)).toBe(true);
    const txid = sent.txid as string;

    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
    const read = async () => {
      await indexer.step();
      const { rows } = await sql<{ id: string; status: string; amount: string; recipient_address: string; block_number: string }>`
        SELECT id, status, amount, recipient_address, block_number FROM transactions WHERE type = 'DEPOSIT' AND hash = ${txid}`.execute(
        h.database.db,
      );
      return rows;
    };
    // Each step now screens the range's senders first (AML: the token's issuer list and the
    // sanctions oracle, read on the stand-in); at load 20 on 2 cores that took the step past
    // 40 s once. The assertion is the same; only the patience grows.
    const rows = await eventually(read, (r) => r[0]?.status === 'SUCCESS', 90_000);
    // Confirmed only once its block is solidified (the stand-in's solidified head, read after).
    const adapter = h.services.catalogue.findChain(SLUG, 'testnet')!.adapter as TronAdapter;
    expect(await adapter.getSolidifiedBlockNumber()).toBeGreaterThanOrEqual(BigInt(rows[0]!.block_number));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amount: '7654321', recipient_address: child.address });

    const [event] = await events(rows[0]!.id, 'deposit.success');
    expect(event!.data).toMatchObject({ status: 'SUCCESS', hash: txid, amount: '7.654321', type: 'DEPOSIT' });
  }, 120_000);

  it('a TRX deposit to a child address: one DEPOSIT row SUCCESS, exact to the sun', async () => {
    const res = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const child = res.body.data as { address: string };
    const payer = await fundedWallet(s, 200_000_000);
    const sent = await sendTrx(s, payer, child.address, 3_000_001);
    expect(sent.result, JSON.stringify(sent)).toBe(true);
    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(SLUG, 'testnet')!);
    const read = async () => {
      await indexer.step();
      const { rows } = await sql<{ status: string; amount: string; recipient_address: string; asset_id: string }>`
        SELECT status, amount, recipient_address, asset_id FROM transactions WHERE type = 'DEPOSIT' AND hash = ${sent.txid}`.execute(
        h.database.db,
      );
      return rows;
    };
    const rows = await eventually(read, (r) => r[0]?.status === 'SUCCESS', 40_000);
    expect(rows).toEqual([{ status: 'SUCCESS', amount: '3000001', recipient_address: child.address, asset_id: trxId }]);
  });
});

describe('a child address withdrawal', () => {
  it('USDT from a child that holds TRX for its fee: SUCCESS, exact balances', async () => {
    const res = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const child = res.body.data as { id: string; address: string };
    await s.control.fund(child.address, { trx: 10_000_000, tokens: { USDT: 5_000_000n } });
    await s.control.produceBlocks(1);
    const to = newWallet();
    const w = await h.api('POST', `/v1/wallets/${wallet.id}/addresses/${child.id}/withdraw`, {
      key: wallet.apiKey,
      body: { assetId: usdtId, address: to.address, amount: '2' },
    });
    expect(w.status, JSON.stringify(w.body)).toBe(200);
    const done = await settled(w.body.data.id);
    expect(done).toMatchObject({ status: 'SUCCESS' });
    expect(await tokenBalance(s, usdt, to.address)).toBe(2_000_000n);
    expect(await tokenBalance(s, usdt, child.address)).toBe(3_000_000n);
    const fee = BigInt((await info(s, done.hash)).fee ?? 0);
    expect(BigInt(await balance(s, tronHex(child.address)))).toBe(10_000_000n - fee);
    expect(sun(done.fee)).toBe(fee);
  });
});

describe('the registry', () => {
  it('builds a TronAdapter for a chain of the tron family, and refuses a token address whose checksum fails', () => {
    const base = resolveChain(
      { blockchain: 'tron-x', family: 'tron', network: 'testnet', rpcUrl: s.url, chainId: 990_202, name: 'Tron', symbol: 'TRX' },
      'test',
    );
    expect(new ChainRegistry([base]).get('tron-x', 'testnet')).toBeInstanceOf(TronAdapter);
    // The last character changed: the form is right, the checksum is not.
    const typo = usdt.slice(0, -1) + (usdt.endsWith('a') ? 'b' : 'a');
    const bad = { ...base, assets: [...base.assets, { ...base.assets[0]!, symbol: 'USDT', address: typo, isNative: false }] };
    expect(() => new ChainRegistry([bad])).toThrow(/USDT of Tron: .* is not a Tron address/);
  });
});
