/**
 * A chain family other than EVM runs the outbound lifecycle unchanged: the ledger test
 * double (test/support/ledger-family.ts, its own transaction format and signatures) is
 * configured as one chain of the world, and a withdrawal of its native coin goes through
 * HTTP, the real PostgreSQL and the real pipeline: created, prepared and signed through
 * Sender.prepare / Sender.sign with the key the signer lends, broadcast, found landed
 * (Sender.findLanded), settled once, SUCCESS through the API, withdraw.success delivered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { TxIntent } from '../../src/chains/types.js';
import { parseEther } from 'viem';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { eventually } from '../support/fixtures.js';
import { secp256k1 } from '@noble/curves/secp256k1';
import { privateKeyToAddress } from 'viem/accounts';
import { LedgerAdapter, LedgerChain, TRANSFER_UNITS, decode, ledgerChainConfig } from '../support/ledger-family.js';
import { randomAddress } from '../withdrawals/world.js';

const CHAIN_ID = 990_001;
const config = ledgerChainConfig({ chainId: CHAIN_ID, confirmations: 2 });
const slug = config.blockchain.slug;

let h: Harness;
let receiver: Receiver;
let ledger: LedgerChain;
let wallet: { id: string; apiKey: string; address: string };
let nativeId: string;

beforeAll(async () => {
  ledger = new LedgerChain({ chainId: CHAIN_ID, blockMs: 100 });
  h = await startHarness({
    specs: [DEVNET_CHAINS[0]!],
    worker: true,
    extraChains: [config],
    services: {
      adapterFor: (c) => (c.chainId === CHAIN_ID ? new LedgerAdapter(c, ledger) : undefined),
      outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200, replaceAfterMs: 1_500 },
    },
  });
  receiver = await startReceiver();
  const created = await h.services.wallets.createForBusiness(h.businessId, { blockchain: slug, network: 'testnet', name: 'Ledger' });
  wallet = { id: created.wallet.id, apiKey: created.apiKey, address: created.wallet.address };
  const patched = await h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { webhookUrl: receiver.url } });
  expect(patched.status).toBe(200);
  nativeId = h.services.catalogue.findChain(slug, 'testnet')!.assets.find((a) => a.is_native)!.id;
  const enabled = await h.api('PATCH', `/v1/wallets/${wallet.id}/assets/${nativeId}`, { key: wallet.apiKey, body: { isActive: true } });
  expect(enabled.status, JSON.stringify(enabled.body)).toBe(200);
  ledger.credit(wallet.address, parseEther('10'));
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
  ledger?.stop();
});

async function withdraw(amount: string, to: string) {
  const res = await h.api('POST', `/v1/wallets/${wallet.id}/withdraw`, {
    key: wallet.apiKey,
    body: { assetId: nativeId, address: to, amount },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as Record<string, any>;
}

async function settled(id: string): Promise<Record<string, any>> {
  return eventually(
    async () => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${id}`, { key: wallet.apiKey })).body.data,
    (t) => t.status !== 'PENDING' && t.confirmed === true,
    30_000,
  );
}

async function outboundRows(ownerId: string) {
  const { rows } = await sql<{
    stage: string;
    purpose: string;
    nonce: string;
    hash: string | null;
    raw: string | null;
    network_data: Record<string, string>;
  }>`
    SELECT stage, purpose, nonce, hash, raw, network_data FROM outbound_txs WHERE owner_id = ${ownerId} ORDER BY created_at, id`.execute(
    h.database.db,
  );
  return rows;
}

/** withdraw.success events about one transaction, each verified as a client's receiver would. */
async function successEvents(id: string, atLeast: number) {
  const read = async () =>
    receiver.requests
      .filter((r) => r.body.includes(id))
      .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: wallet.apiKey, replay: false }))
      .filter((e) => e.event === 'withdraw.success' && e.data.id === id);
  return eventually(read, (list) => list.length >= atLeast, 20_000);
}

describe('a withdrawal on a test double family (ledger)', () => {
  it('native coin from the master: signed by the family, broadcast, landed, settled once, SUCCESS, exact balances, withdraw.success', async () => {
    const to = randomAddress();
    const before = ledger.balanceOf(wallet.address);
    const pending = await withdraw('1.5', to);
    expect(pending).toMatchObject({ type: 'WITHDRAW', status: 'PENDING', currency: 'LDG', amount: '1.5', senderAddress: wallet.address });

    const done = await settled(pending.id);
    expect(done).toMatchObject({ status: 'SUCCESS', confirmed: true, recipientAddress: to });

    // One outbound row, signed in the ledger's own format by the master's lent key.
    const rows = await outboundRows(pending.id);
    expect(rows.map((r) => [r.stage, r.purpose, r.nonce])).toEqual([['mined', 'withdraw', '0']]);
    const tx = decode(rows[0]!.raw!, CHAIN_ID);
    expect(tx).toMatchObject({ from: wallet.address, to, value: parseEther('1.5'), nonce: 0n, hash: rows[0]!.hash });
    expect(Object.keys(rows[0]!.network_data).sort()).toEqual(['feeCap', 'tip', 'units']);
    expect(done.hash).toBe(rows[0]!.hash);

    // Landed on the ledger as the API reports it; balances exact to the base unit.
    const receipt = ledger.receipt(done.hash)!;
    expect(receipt.status).toBe('success');
    expect(done).toMatchObject({
      blockNumber: Number(receipt.blockNumber),
      blockHash: receipt.blockHash,
      gasUsed: TRANSFER_UNITS.toString(),
      gasPrice: receipt.effectiveGasPrice.toString(),
    });
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(parseEther(done.fee)).toBe(fee);
    expect(ledger.balanceOf(to)).toBe(parseEther('1.5'));
    expect(ledger.balanceOf(wallet.address)).toBe(before - parseEther('1.5') - fee);
    expect(ledger.nonceOf(wallet.address, 'latest')).toBe(1n);

    const events = await successEvents(pending.id, 1);
    expect(events).toHaveLength(1);
    expect(events[0]!.data).toMatchObject({ status: 'SUCCESS', hash: done.hash, amount: '1.5', type: 'WITHDRAW' });
  });

  it('left unmined under a risen base fee: replaced through Sender.replacementNetwork, settles once as the replacement', async () => {
    const to = randomAddress();
    const before = ledger.balanceOf(wallet.address);
    ledger.including = false; // blocks keep coming, empty: the transaction waits in the pool
    const pending = await withdraw('0.25', to);
    const original = await eventually(
      async () => (await outboundRows(pending.id))[0],
      (r) => r?.stage === 'broadcast' && ledger.pooled(r.hash!),
      20_000,
    );
    // The base fee rises above the original's fee cap: it can no longer be included.
    const cap = BigInt(original!.network_data.feeCap!);
    ledger.baseFee = cap * 2n;
    ledger.including = true;

    const done = await settled(pending.id);
    expect(done.status).toBe('SUCCESS');
    const rows = await outboundRows(pending.id);
    expect(rows.map((r) => [r.stage, r.purpose, r.nonce])).toEqual([
      ['replaced', 'withdraw', '1'],
      ['mined', 'withdraw', '1'],
    ]);
    const replacement = rows[1]!;
    expect(BigInt(replacement.network_data.feeCap!)).toBeGreaterThanOrEqual(ledger.baseFee);
    expect(done.hash).toBe(replacement.hash);
    expect(ledger.receipt(original!.hash!)).toBeNull();

    const receipt = ledger.receipt(replacement.hash!)!;
    const fee = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(ledger.balanceOf(to)).toBe(parseEther('0.25'));
    expect(ledger.balanceOf(wallet.address)).toBe(before - parseEther('0.25') - fee);
    expect(ledger.nonceOf(wallet.address, 'latest')).toBe(2n);

    const events = await successEvents(pending.id, 1);
    // Settled once: a short wait shows no second withdraw.success.
    await new Promise((r) => setTimeout(r, 500));
    expect((await successEvents(pending.id, 1)).length).toBe(1);
    expect(events[0]!.data).toMatchObject({ status: 'SUCCESS', hash: replacement.hash });
  });
});

describe('a deposit on the test double family', () => {
  it('the indexer reads the ledger (getBlock, scan) and records a native deposit to a child address once, SUCCESS', async () => {
    const res = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { disableAutoSweep: true } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const child = res.body.data as { id: string; address: string };
    // Someone outside pays the child: a ledger transaction signed with their own key.
    const privateKey = secp256k1.utils.randomPrivateKey();
    const payer = privateKeyToAddress(`0x${Buffer.from(privateKey).toString('hex')}`);
    ledger.credit(payer, parseEther('1'));
    const adapter = h.services.catalogue.findChain(slug, 'testnet')!.adapter;
    const intent: TxIntent = { kind: 'native', from: payer, to: child.address, amount: parseEther('0.3') };
    const network = await adapter.sender.prepare(intent, {});
    const signed = adapter.sender.sign(intent, 0n, network, {
      signDigest: (digest) => {
        const sig = secp256k1.sign(digest, privateKey, { lowS: true });
        return { r: sig.r, s: sig.s, recovery: sig.recovery };
      },
    });
    expect(await adapter.broadcast(signed.raw)).toBe(signed.hash);

    const indexer = h.services.deposits.indexer(h.services.catalogue.findChain(slug, 'testnet')!);
    const read = async () => {
      await indexer.step();
      const { rows } = await sql<{ status: string; amount: string; recipient_address: string }>`
        SELECT status, amount, recipient_address FROM transactions WHERE type = 'DEPOSIT' AND hash = ${signed.hash}`.execute(h.database.db);
      return rows;
    };
    const rows = await eventually(read, (r) => r[0]?.status === 'SUCCESS', 30_000);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ amount: parseEther('0.3').toString(), recipient_address: child.address });
  });
});
