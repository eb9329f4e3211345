/**
 * Migration 012 on data the old rule wrote: another business's wallet had registered a
 * child address and the master address of wallet A as external, and the indexer had
 * recorded A's deposits to them for that wallet only. After the migration and the indexer's
 * first step, A has its deposits (history, webhooks, sweep), the other wallet's records are
 * FAILED with a reason and reported `deposit.failed` once, its registrations are gone, and
 * what it legitimately watches is untouched.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { migrate } from '../../src/db/migrate.js';
import { shortReference, uuidv7 } from '../../src/lib/ids.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { verifyWebhook } from '../../packages/sdk/src/webhooks/index.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

interface Tenant {
  id: string;
  apiKey: string;
  address: string;
  receiver: Receiver;
}

let h: Harness;
let eth: TestChain;
let chainId: string;
let A: Tenant;
let D: Tenant;

beforeAll(async () => {
  h = await startHarness({
    specs: [{ ...DEVNET_CHAINS[0]!, confirmations: 1 }],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
  chainId = h.services.catalogue.findChain('devnet-eth', 'testnet')!.id;
  const a = h.wallets['devnet-eth']!;
  A = { ...a, receiver: await startReceiver() };
  const other = await h.services.businesses.create('Other business');
  const d = await h.services.wallets.createForBusiness(other.business.id, { blockchain: 'devnet-eth', network: 'testnet', name: 'D' });
  D = { id: d.wallet.id, apiKey: d.apiKey, address: d.wallet.address, receiver: await startReceiver() };
  for (const t of [A, D])
    expect((await h.api('PATCH', `/v1/wallets/${t.id}`, { key: t.apiKey, body: { webhookUrl: t.receiver.url } })).status).toBe(200);
});
afterAll(async () => {
  for (const t of [A, D]) await t?.receiver.close();
  await h?.stop();
});

const indexer = (): ChainIndexer => h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
async function drain(ix: ChainIndexer) {
  for (let i = 0; i < 1000; i++) if ((await ix.step()) === 'idle') return;
}
const db = () => h.database.db;

/** The schema as migration 011 left it (what 012 changes), and 012 not yet applied. */
async function backTo011() {
  await sql`DROP TABLE deposit_repairs`.execute(db());
  await sql`DROP INDEX transactions_deposit_unique_wallet`.execute(db());
  await sql`CREATE UNIQUE INDEX transactions_deposit_unique ON transactions (chain_id, hash, log_index) WHERE type = 'DEPOSIT'`.execute(
    db(),
  );
  await sql`DELETE FROM schema_migrations WHERE name = '012_address_ownership.sql'`.execute(db());
}

/** What the old whitelist wrote for `t`. */
async function oldRegistration(t: Tenant, address: string): Promise<string> {
  const id = uuidv7();
  await sql`INSERT INTO addresses (id, wallet_id, chain_id, address, type, configurations)
            VALUES (${id}, ${t.id}, ${chainId}, ${address}, 'EXTERNAL', '{"disableAutoSweep": true}'::jsonb)`.execute(db());
  return id;
}

/** What the old indexer wrote for `t`: the transfer's deposit on `t`'s registration. */
async function oldDeposit(t: Tenant, addressId: string, receipt: Awaited<ReturnType<TestChain['sendToken']>>, to: string, status: string) {
  const transfer = receipt.logs[0]!;
  const asset = h.services.catalogue
    .findChain('devnet-eth', 'testnet')!
    .assets.find((a) => a.address.toLowerCase() === transfer.address.toLowerCase())!;
  const id = uuidv7();
  await sql`INSERT INTO transactions (id, wallet_id, address_id, asset_id, chain_id, reference, type, status, stage, confirmed, confirmations,
                                      amount, currency, hash, log_index, block_number, block_hash, sender_address, recipient_address,
                                      token_address, network, created_channel, aml_screening)
            VALUES (${id}, ${t.id}, ${addressId}, ${asset.id}, ${chainId}, ${shortReference()}, 'DEPOSIT', ${status},
                    ${status === 'SUCCESS' ? 'confirmed' : 'mined'}, ${status === 'SUCCESS'}, 1, ${BigInt(transfer.data).toString()},
                    ${asset.symbol}, ${receipt.transactionHash}, ${transfer.logIndex}, ${receipt.blockNumber.toString()}, ${receipt.blockHash},
                    ${eth.faucet}, ${to}, ${asset.address}, 'testnet', 'BLOCKCHAIN', '{}'::jsonb)`.execute(db());
  return id;
}

async function deposits(hash: string) {
  const { rows } = await sql<{
    id: string;
    wallet_id: string;
    address_id: string | null;
    status: string;
    stage: string;
    reason: string | null;
  }>`
    SELECT id, wallet_id, address_id, status, stage, reason FROM transactions WHERE type = 'DEPOSIT' AND lower(hash) = lower(${hash})`.execute(
    db(),
  );
  return rows;
}

function webhooks(t: Tenant, hash: string) {
  return t.receiver.requests
    .filter((r) => r.body.toLowerCase().includes(hash.toLowerCase()))
    .map((r) => verifyWebhook<Record<string, any>>({ body: r.body, headers: r.headers, apiKey: t.apiKey, replay: false }))
    .map((w) => ({ event: w.event, data: w.data }));
}

it('repairs deposits recorded for the wrong wallet, and only those', async () => {
  // D's legitimate watch of an outside address, recorded the ordinary way.
  const outside = privateKeyToAccount(generatePrivateKey()).address;
  expect((await h.api('POST', `/v1/wallets/${D.id}/addresses/whitelist`, { key: D.apiKey, body: { address: outside } })).status).toBe(200);
  const legit = await eth.sendToken('USDC', outside, '1');
  await drain(indexer());
  const [legitRow] = await deposits(legit.transactionHash);
  expect(legitRow).toMatchObject({ wallet_id: D.id, status: 'SUCCESS' });

  // The old world: D registered A's child and master; the old indexer credited D with A's deposits.
  const c = (await h.api('POST', `/v1/wallets/${A.id}/addresses`, { key: A.apiKey, body: {} })).body.data as {
    id: string;
    address: string;
  };
  await backTo011();
  const onChild = await oldRegistration(D, c.address);
  const onMaster = await oldRegistration(D, A.address);
  const toChild = await eth.sendToken('USDC', c.address, '5');
  const toMaster = await eth.sendToken('USDT', A.address, '2');
  const wrongChild = await oldDeposit(D, onChild, toChild, c.address, 'SUCCESS');
  const wrongMaster = await oldDeposit(D, onMaster, toMaster, A.address, 'PENDING');
  // The old indexer had read these blocks (A got nothing from them).
  const head = await eth.pub.getBlock();
  await sql`UPDATE chain_cursors SET block_number = ${head.number}, block_hash = ${head.hash} WHERE chain_id = ${chainId}`.execute(db());

  expect(await migrate(h.databaseUrl)).toEqual(['012_address_ownership.sql']);

  // The migration itself: the wrong records are FAILED at once, the registrations removed.
  for (const id of [wrongChild, wrongMaster]) {
    const { rows } = await sql<{ status: string; stage: string; confirmed: boolean; reason: string }>`
      SELECT status, stage, confirmed, reason FROM transactions WHERE id = ${id}`.execute(db());
    expect(rows[0]).toMatchObject({ status: 'FAILED', stage: 'reassigned', confirmed: false });
    expect(rows[0]!.reason).toMatch(/^Recorded in error/);
  }
  const { rows: regs } = await sql<{ id: string; deleted: boolean }>`
    SELECT id, deleted_at IS NOT NULL AS deleted FROM addresses WHERE wallet_id = ${D.id} ORDER BY id`.execute(db());
  expect(Object.fromEntries(regs.map((r) => [r.id, r.deleted]))).toEqual({
    [onChild]: true,
    [onMaster]: true,
    [(await sql<{ id: string }>`SELECT id FROM addresses WHERE wallet_id = ${D.id} AND lower(address) = lower(${outside})`.execute(db()))
      .rows[0]!.id]: false,
  });
  const { rows: queued } = await sql<{ transaction_id: string; owner_wallet_id: string; done: boolean }>`
    SELECT transaction_id, owner_wallet_id, done_at IS NOT NULL AS done FROM deposit_repairs ORDER BY transaction_id`.execute(db());
  expect(queued).toEqual([wrongChild, wrongMaster].sort().map((id) => ({ transaction_id: id, owner_wallet_id: A.id, done: false })));

  // The indexer's first step: A gets its deposits, D is told its records failed, once.
  await drain(indexer());
  await drain(indexer()); // a second indexer (a restart) repeats nothing
  const childRows = await deposits(toChild.transactionHash);
  expect(childRows.find((r) => r.wallet_id === A.id)).toMatchObject({ address_id: c.id, status: 'SUCCESS' });
  const masterRows = await deposits(toMaster.transactionHash);
  expect(masterRows.find((r) => r.wallet_id === A.id)).toMatchObject({ address_id: null, status: 'SUCCESS' });
  expect((await sql<{ n: string }>`SELECT count(*) AS n FROM deposit_repairs WHERE done_at IS NULL`.execute(db())).rows[0]!.n).toBe('0');

  for (const receipt of [toChild, toMaster]) {
    const ownEvents = await eventually(
      async () => webhooks(A, receipt.transactionHash).map((w) => w.event),
      (e) => e.includes('deposit.success'),
      20_000,
    );
    expect(ownEvents.filter((e) => e === 'deposit.processing')).toHaveLength(1);
    const theirs = await eventually(
      async () => webhooks(D, receipt.transactionHash),
      (list) => list.length > 0,
    );
    expect(theirs.map((w) => [w.event, w.data.status])).toEqual([['deposit.failed', 'FAILED']]);
    expect(theirs[0]!.data.reason).toMatch(/^Recorded in error/);
  }
  const { rows: failedEvents } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM events WHERE name = 'deposit.failed' AND transaction_id IN (${wrongChild}, ${wrongMaster})`.execute(db());
  expect(failedEvents[0]!.n).toBe('2');
  // The child's deposit is swept to A's master as any other.
  await eventually(
    async () => webhooks(A, toChild.transactionHash).map((w) => w.event),
    (e) => e.includes('deposit.swept.success'),
    20_000,
  );
  expect(await eth.balanceOf('USDC', c.address)).toBe(0n);

  // D's legitimate record and watch are as they were; the child cannot be registered again.
  expect(await deposits(legit.transactionHash)).toEqual([legitRow]);
  const again = await h.api('POST', `/v1/wallets/${D.id}/addresses/whitelist`, { key: D.apiKey, body: { address: c.address } });
  expect(again.body.error).toBe('ADDRESS_NOT_EXTERNAL');
});
