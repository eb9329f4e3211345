/**
 * "Funds an earlier sweep took along" (docs/deposits.md): a deposit whose sweep finds the
 * address empty is marked swept by an earlier sweep that moved more than its deposits. Only a
 * deposit mined before that sweep's transfer can have gone with it: one mined after it whose
 * funds left another way (withdrawn from the address) was not swept, whatever the surplus.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;
const USDC = 10n ** 6n;

const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
  await drain();
}, 60_000);
afterAll(async () => {
  await h?.stop();
});

async function drain() {
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') return;
}
async function newAddress(body: Record<string, unknown> = {}) {
  const res = await h.api('POST', `${base()}/addresses`, { body });
  expect(res.status).toBe(200);
  return res.body.data as { id: string; address: string };
}
async function deposit(hash: string) {
  const { rows } = await sql<{ id: string }>`SELECT id FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(
    h.database.db,
  );
  return (await h.api('GET', `${base()}/transactions/${rows[0]!.id}`)).body.data as Record<string, any>;
}
const usdc = () => h.services.catalogue.findChain('devnet-eth', 'testnet')!.assets.find((a) => a.symbol === 'USDC')!.id;

/** A withdrawal of USDC from a child through the API, mined and settled. */
async function withdraw(fromId: string, to: string, amount: string) {
  const res = await h.api('POST', `${base()}/addresses/${fromId}/withdraw`, { body: { assetId: usdc(), address: to, amount } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await eventually(
    async () => (await h.api('GET', `${base()}/transactions/${res.body.data.id}`)).body.data.status,
    (s) => s === 'SUCCESS',
    30_000,
  );
}

it('a deposit mined after the earlier sweep, its funds withdrawn before its own sweep, is not marked swept by it', async () => {
  const child = await newAddress();
  // 50 USDC reach the child from another address of the wallet (an internal movement, not a deposit).
  const other = await newAddress({ disableAutoSweep: true });
  await eth.sendToken('USDC', other.address, '50');
  await eth.sendNative(other.address, '0.1');
  await eth.sendNative(child.address, '0.1'); // the child's own fees (the native coin is not enabled: no deposit)
  await drain();
  await withdraw(other.id, child.address, '50');

  // The first deposit's sweep moves the child's whole balance: 3 + 50.
  const first = await eth.sendToken('USDC', child.address, '3');
  await drain();
  const a = await eventually(
    () => deposit(first.transactionHash),
    (d) => d.assetSwept === true,
    30_000,
  );
  expect(await eth.balanceOf('USDC', child.address)).toBe(0n);

  // Then a second deposit, withdrawn from the child before it is confirmed: its sweep finds nothing.
  const second = await eth.sendToken('USDC', child.address, '4');
  const payee = privateKeyToAccount(generatePrivateKey()).address;
  await withdraw(child.id, payee, '4');
  expect(await eth.balanceOf('USDC', payee)).toBe(4n * USDC);
  await drain();
  const b = await eventually(
    () => deposit(second.transactionHash),
    (d) => d.assetSwept === true || d.assetSweptResponse !== null,
    30_000,
  );
  // Its funds went to the payee, not to the master by the first deposit's sweep (mined before it).
  expect(b.assetSweptHash === a.assetSweptHash && a.assetSweptHash !== null).toBe(false);
  expect(b).toMatchObject({ assetSwept: false, assetSweptHash: null });
  expect(b.assetSweptResponse.error).toMatch(/no longer holds this asset/);
});
