/**
 * A recovery from an address whose key the wallet imported, while the client removes that
 * address (which forgets its key): the removal must wait (409 KEY_IN_USE) until the recovery
 * ends, as it does for a transaction from the address in flight or a sweep under way. The
 * recovery's transfer from the address is signed only once the master's top-up lands, so
 * nothing from the address was in flight yet: the key went, the master's top-up was paid to
 * an address the service could no longer sign for, and the recovery could never be sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import type { Address } from 'viem';
import { startHarness, type Harness } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';

let h: Harness;
let eth: TestChain;
const wallet = () => h.wallets['devnet-eth']!;
const base = () => `/v1/wallets/${wallet().id}`;

beforeAll(async () => {
  h = await startHarness({ services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } } });
  eth = chainOf(h, 'devnet-eth');
}, 90_000);
afterAll(async () => {
  await h?.stop();
});

const keyRows = async (address: string) =>
  (await sql<{ address_id: string }>`SELECT address_id FROM address_keys WHERE lower(address) = lower(${address})`.execute(h.database.db))
    .rows;

describe('removing an imported address while a recovery from it is under way', () => {
  it('is refused with 409 KEY_IN_USE until the recovery ends; the recovery then moves the funds', async () => {
    const privateKey = generatePrivateKey();
    const address = privateKeyToAccount(privateKey).address;
    const imported = await h.api('POST', `${base()}/addresses/whitelist`, { body: { address, privateKey, disableAutoSweep: true } });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const addressId = imported.body.data.id as string;
    await eth.sendNative(address, '0.5');

    // All of its native coin: the master tops the address up for the fee first (no worker runs yet).
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const blockchainId = h.services.catalogue.findChain('devnet-eth', 'testnet')!.row.blockchain_id;
    const salvage = await h.api('POST', `${base()}/salvage`, {
      body: { senderAddress: address, recipientAddress: recipient, amount: '0.5', blockchainId },
    });
    expect(salvage.status, JSON.stringify(salvage.body)).toBe(200);
    const { rows } = await sql<{ stage: string }>`SELECT stage FROM salvages WHERE id = ${salvage.body.data.id}`.execute(h.database.db);
    expect(rows).toEqual([{ stage: 'topup' }]);

    const early = await h.api('DELETE', `${base()}/addresses/whitelist/${addressId}`);
    expect([early.status, early.body.error]).toEqual([409, 'KEY_IN_USE']);
    expect(await keyRows(address)).toHaveLength(1);

    await h.startWorker();
    const done = await eventually(
      async () => (await h.api('GET', `${base()}/transactions/${salvage.body.data.id}`)).body.data as { status: string },
      (t) => t.status !== 'PENDING',
      60_000,
    );
    expect(done.status).toBe('SUCCESS');
    expect(await eth.pub.getBalance({ address: recipient as Address })).toBe(5n * 10n ** 17n);

    // Once it ended, the key may go.
    const removed = await h.api('DELETE', `${base()}/addresses/whitelist/${addressId}`);
    expect(removed.status).toBe(200);
    expect(await keyRows(address)).toHaveLength(0);
  });
});
