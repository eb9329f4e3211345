/**
 * The seam's 'expiry' ordering (Tron's expiration, Solana's recent blockhash) through the
 * real pipeline: the ledger test double made with `expiryBlocks` has no nonces; each
 * transaction names the last block that may include it. Through HTTP, the real PostgreSQL
 * and the worker:
 * - a withdrawal takes no nonce and is signed with a deadline (Sender.prepare);
 * - one that expires unmined is rebuilt and signed again (new deadline, new hash), lands
 *   once, pays once, and sends withdraw.success once;
 * - one that lands in the very block where its deadline falls is settled as itself, never
 *   rebuilt (the tracker asks "expired?" before "landed?");
 * - a sent one cannot be cancelled or replaced (409), as there is no slot to take.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { parseEther } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { eventually } from '../support/fixtures.js';
import { LedgerAdapter, LedgerChain, decode, ledgerChainConfig } from '../support/ledger-family.js';
import { randomAddress } from '../withdrawals/world.js';

const AUTO = 990_011; // one block every 100 ms
const MANUAL = 990_012; // blocks only when the test mines them
const EXPIRY_BLOCKS = 10;
const autoConfig = ledgerChainConfig({ chainId: AUTO, slug: 'ledger-expiry', confirmations: 1 });
const manualConfig = ledgerChainConfig({ chainId: MANUAL, slug: 'ledger-expiry-manual', confirmations: 1 });

let h: Harness;
let receiver: Receiver;
const ledgers = new Map<number, LedgerChain>();
const auto = () => ledgers.get(AUTO)!;
const manual = () => ledgers.get(MANUAL)!;

interface World {
  slug: string;
  ledger: LedgerChain;
  wallet: { id: string; apiKey: string; address: string };
  nativeId: string;
}
const worlds: World[] = [];

beforeAll(async () => {
  ledgers.set(AUTO, new LedgerChain({ chainId: AUTO, blockMs: 100, expiryBlocks: EXPIRY_BLOCKS }));
  ledgers.set(MANUAL, new LedgerChain({ chainId: MANUAL, expiryBlocks: EXPIRY_BLOCKS }));
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    extraChains: [autoConfig, manualConfig],
    services: {
      adapterFor: (c) => (ledgers.has(c.chainId) ? new LedgerAdapter(c, ledgers.get(c.chainId)!) : undefined),
      outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200, replaceAfterMs: 500 },
    },
  });
  receiver = await startReceiver();
  for (const config of [autoConfig, manualConfig]) {
    const slug = config.blockchain.slug;
    const created = await h.services.wallets.createForBusiness(h.businessId, { blockchain: slug, network: 'testnet', name: slug });
    const wallet = { id: created.wallet.id, apiKey: created.apiKey, address: created.wallet.address };
    const patched = await h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { webhookUrl: receiver.url } });
    expect(patched.status).toBe(200);
    const nativeId = h.services.catalogue.findChain(slug, 'testnet')!.assets.find((a) => a.is_native)!.id;
    const enabled = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${nativeId}`, { key: wallet.apiKey, body: { isActive: true } });
    expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
    const ledger = ledgers.get(config.chainId)!;
    ledger.credit(wallet.address, parseEther('10'));
    worlds.push({ slug, ledger, wallet, nativeId });
  }
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
  for (const l of ledgers.values()) l.stop();
});

const world = (ledger: LedgerChain) => worlds.find((w) => w.ledger === ledger)!;

async function withdraw(w: World, amount: string, to: string) {
  const res = await h.api('POST', `/v1/wallets/${w.wallet.id}/withdraw`, {
    key: w.wallet.apiKey,
    body: { assetId: w.nativeId, address: to, amount },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any>;
}

const read = async (w: World, id: string) =>
  (await h.api('GET', `/v1/wallets/${w.wallet.id}/transactions/${id}`, { key: w.wallet.apiKey })).body.data as Record<string, any>;

async function outboundRows(ownerId: string) {
  const { rows } = await sql<{
    id: string;
    stage: string;
    nonce: string | null;
    hash: string | null;
    raw: string | null;
    replaced_by: string | null;
    network_data: Record<string, string>;
  }>`
    SELECT id, stage, nonce, hash, raw, replaced_by, network_data FROM outbound_txs WHERE owner_id = ${ownerId} ORDER BY created_at, id`.execute(
    h.database.db,
  );
  return rows;
}

/** withdraw.success events about one transaction, each verified as a client's receiver would. */
async function successEvents(w: World, id: string, atLeast: number) {
  const list = async () =>
    receiver.requests
      .filter((r) => r.body.includes(id))
      .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: w.wallet.apiKey, replay: false }))
      .filter((e) => e.event === 'withdraw.success' && e.data.id === id);
  return eventually(list, (l) => l.length >= atLeast, 20_000);
}

describe("a family with 'expiry' ordering (the ledger double without nonces)", () => {
  it('a withdrawal takes no nonce: signed with a deadline, landed, SUCCESS, exact balances', async () => {
    const w = world(auto());
    const to = randomAddress();
    const before = w.ledger.balanceOf(w.wallet.address);
    const pending = await withdraw(w, '1.25', to);
    const done = await eventually(
      () => read(w, pending.id),
      (t) => t.status !== 'PENDING' && t.confirmed === true,
      30_000,
    );
    expect(done.status).toBe('SUCCESS');

    const rows = await outboundRows(pending.id);
    expect(rows.map((r) => [r.stage, r.nonce])).toEqual([['mined', null]]);
    const tx = decode(rows[0]!.raw!, AUTO);
    expect(tx).toMatchObject({ from: w.wallet.address, to, value: parseEther('1.25'), nonce: null, hash: done.hash });
    expect(tx.validUntil).toBe(BigInt(rows[0]!.network_data.validUntil!));
    // No nonce counter was ever made for the sender.
    const { rows: counters } = await sql`SELECT 1 FROM nonces WHERE address = ${w.wallet.address}`.execute(h.database.db);
    expect(counters).toHaveLength(0);

    const receipt = w.ledger.receipt(done.hash)!;
    expect(receipt.blockNumber).toBeLessThanOrEqual(tx.validUntil!);
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(w.ledger.balanceOf(to)).toBe(parseEther('1.25'));
    expect(w.ledger.balanceOf(w.wallet.address)).toBe(before - parseEther('1.25') - fee);
  });

  it('expired unmined: rebuilt with a new deadline and signed again; lands once, pays once, one withdraw.success', async () => {
    const w = world(auto());
    const to = randomAddress();
    const before = w.ledger.balanceOf(w.wallet.address);
    w.ledger.including = false; // blocks keep coming, empty: the transaction waits, then expires
    const pending = await withdraw(w, '0.5', to);
    // The first version expires and is rebuilt (a second row, signed with a later deadline).
    const early = await eventually(
      () => outboundRows(pending.id),
      (rows) => rows.length >= 2 && rows[1]!.hash !== null,
      30_000,
    );
    expect(early[0]).toMatchObject({ stage: 'replaced', replaced_by: early[1]!.id, nonce: null });
    expect(BigInt(early[1]!.network_data.validUntil!)).toBeGreaterThan(BigInt(early[0]!.network_data.validUntil!));
    expect(early[1]!.hash).not.toBe(early[0]!.hash);
    // A sent transaction cannot be cancelled or replaced on this family: there is no slot to take.
    const base = `/v1/wallets/${w.wallet.id}/transactions`;
    const cancel = await h.api('POST', `${base}/cancel`, { key: w.wallet.apiKey, body: { id: pending.id } });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(409);
    expect(cancel.body.error).toBe('NOT_CANCELLABLE');
    const retry = await h.api('POST', `${base}/retry`, { key: w.wallet.apiKey, body: { id: pending.id } });
    expect(retry.status, JSON.stringify(retry.body)).toBe(409);
    expect(retry.body.error).toBe('NOT_RETRYABLE');

    w.ledger.including = true;
    const done = await eventually(
      () => read(w, pending.id),
      (t) => t.status !== 'PENDING' && t.confirmed === true,
      30_000,
    );
    expect(done.status).toBe('SUCCESS');
    const rows = await outboundRows(pending.id);
    const last = rows[rows.length - 1]!;
    // Every earlier version expired unmined and stepped aside for the next; only the last landed.
    expect(rows.map((r) => r.stage)).toEqual([...rows.slice(0, -1).map(() => 'replaced'), 'mined']);
    rows.slice(0, -1).forEach((r, i) => expect(r.replaced_by).toBe(rows[i + 1]!.id));
    for (const r of rows.slice(0, -1)) expect(w.ledger.receipt(r.hash!)).toBeNull();
    expect(done.hash).toBe(last.hash);

    const receipt = w.ledger.receipt(last.hash!)!;
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(w.ledger.balanceOf(to)).toBe(parseEther('0.5'));
    expect(w.ledger.balanceOf(w.wallet.address)).toBe(before - parseEther('0.5') - fee);

    const events = await successEvents(w, pending.id, 1);
    await new Promise((r) => setTimeout(r, 500));
    expect((await successEvents(w, pending.id, 1)).length).toBe(1);
    expect(events[0]!.data).toMatchObject({ status: 'SUCCESS', hash: last.hash });
  });

  it('landed in the block where its deadline falls: settled as itself, never rebuilt', async () => {
    const w = world(manual());
    const ledger = w.ledger;
    const to = randomAddress();
    ledger.including = false;
    const pending = await withdraw(w, '0.75', to);
    const sent = await eventually(
      async () => (await outboundRows(pending.id))[0],
      (r) => r?.stage === 'broadcast' && ledger.pooled(r.hash!),
      20_000,
    );
    const validUntil = BigInt(sent!.network_data.validUntil!);
    while (ledger.head().number < validUntil - 1n) ledger.mine();
    // The next expiry check first seals block `validUntil`, with the transaction in it: the
    // tracker then sees it expired, and must still find it landed rather than rebuild it.
    ledger.including = true;
    ledger.beforeExpiryCheck = () => {
      ledger.beforeExpiryCheck = null;
      ledger.mine();
    };
    const settledRow = await eventually(
      async () => (await outboundRows(pending.id))[0],
      (r) => r?.stage !== 'broadcast',
      20_000,
    );
    expect(settledRow!.stage).toBe('mined');
    expect(ledger.receipt(sent!.hash!)!.blockNumber).toBe(validUntil);
    expect(await outboundRows(pending.id)).toHaveLength(1);
    ledger.mine();
    const done = await eventually(
      () => read(w, pending.id),
      (t) => t.status !== 'PENDING' && t.confirmed === true,
      20_000,
    );
    expect(done).toMatchObject({ status: 'SUCCESS', hash: sent!.hash });
    expect(ledger.balanceOf(to)).toBe(parseEther('0.75'));
  });
});
