/**
 * Drop-in compatibility, addresses (issue 12, item 2): the address settings as the described
 * service's clients send them. `PATCH .../addresses/{a}` with `disableAutoSweep`,
 * `enableGaslessWithdraw`, `showPrivateKey` and `isActive` at the top level; `POST
 * .../addresses` with `showPrivateKey`; `POST .../addresses/whitelist` with
 * `disableAutoSweep`, `enableGaslessWithdraw` and `privateKey` (an imported key: sealed,
 * audited, refused on mainnet, and the address's deposits swept to the master on chain).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import pg from 'pg';
import { generatePrivateKey, mnemonicToAccount, privateKeyToAccount } from 'viem/accounts';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { ADDRESS_KEY } from '../../src/keys/sealed-columns.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { AddressService } from '../../src/modules/addresses/service.js';
import type { ChainIndexer } from '../../src/modules/deposits/indexer.js';
import { startHarness, type Harness, type TestWallet } from '../support/harness.js';
import { chainOf, type TestChain } from '../support/chain.js';
import { blockedBy, eventually } from '../support/fixtures.js';

let h: Harness;
let eth: TestChain;
let indexer: ChainIndexer;
const USDC = 10n ** 6n;
/** Every key this file handles: the last test proves none reached the logs. */
const keys = new Set<string>();

beforeAll(async () => {
  h = await startHarness({
    specs: [
      { ...DEVNET_CHAINS[0]!, confirmations: 1 },
      { ...DEVNET_CHAINS[1]!, slug: 'devnet-main', name: 'Mainnet-like devnet', chainId: 31339, network: 'mainnet' },
    ],
    worker: true,
    services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 } },
  });
  eth = chainOf(h, 'devnet-eth');
  indexer = h.services.deposits.indexer(h.services.catalogue.findChain('devnet-eth', 'testnet')!);
});
afterAll(async () => {
  await h?.stop();
});

const w = () => h.wallets['devnet-eth']!;
const main = () => h.wallets['devnet-main']!;
const path = (wallet: { id: string }) => `/v1/wallets/${wallet.id}/addresses`;

async function newWallet(name: string): Promise<TestWallet> {
  const res = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: 'devnet-eth', network: 'testnet', name } });
  expect(res.status).toBe(200);
  return { id: res.body.data.id, apiKey: res.body.data.apiKey, address: res.body.data.address, slug: 'devnet-eth' };
}
async function child(wallet: TestWallet = w(), body: Record<string, unknown> = {}) {
  const res = await h.api('POST', path(wallet), { key: wallet.apiKey, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: string; address: string; derivationPath: string; privateKey?: string };
}
function newKey() {
  const privateKey = generatePrivateKey();
  keys.add(privateKey.slice(2));
  return { privateKey, address: privateKeyToAccount(privateKey).address };
}
async function audits(action: string, targetId: string) {
  return h.database.db.selectFrom('audit_log').selectAll().where('action', '=', action).where('target_id', '=', targetId).execute();
}
async function addressRow(id: string) {
  return h.database.db.selectFrom('addresses').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
async function keyRows(address: string) {
  const { rows } = await sql<{ address_id: string; wallet_id: string; key_ciphertext: Buffer }>`
    SELECT address_id, wallet_id, key_ciphertext FROM address_keys WHERE lower(address) = lower(${address})`.execute(h.database.db);
  return rows;
}
async function snapshot() {
  const { rows } = await sql<{ n: string }>`
    SELECT (SELECT count(*) FROM addresses) || '/' || (SELECT count(*) FROM address_keys) || '/' || (SELECT count(*) FROM audit_log) AS n`.execute(
    h.database.db,
  );
  return rows[0]!.n;
}
/** The HD key of a child, derived by viem from the wallet's mnemonic (independent of the service). */
async function childKey(walletId: string, derivationPath: string): Promise<string> {
  const index = Number(derivationPath.split('/').at(-1));
  const account = mnemonicToAccount(await h.services.wallets.openMnemonic(walletId), { addressIndex: index });
  return `0x${Buffer.from(account.getHdKey().privateKey!).toString('hex')}`;
}
async function drain() {
  for (let i = 0; i < 1000; i++) if ((await indexer.step()) === 'idle') return;
}

describe('PATCH /v1/wallets/{walletId}/addresses/{addressId} with top-level settings', () => {
  it('takes disableAutoSweep, enableGaslessWithdraw and isActive at the top level, as the described service documents', async () => {
    const a = await child();
    const res = await h.api('PATCH', `${path(w())}/${a.id}`, {
      body: { disableAutoSweep: true, enableGaslessWithdraw: true, isActive: false },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ statusCode: 200, message: expect.any(String) });
    expect(res.body.data).toMatchObject({
      id: a.id,
      isActive: false,
      configurations: { disableAutoSweep: true, enableGaslessWithdraw: true, isActive: false, showPrivateKey: true },
    });
    expect(res.body.data.privateKey).toBeUndefined();
    expect((await addressRow(a.id)).configurations).toMatchObject({ disableAutoSweep: true, enableGaslessWithdraw: true });
    // The nested form still works, and the same value in both places is no conflict.
    const both = await h.api('PATCH', `${path(w())}/${a.id}`, {
      body: { disableAutoSweep: false, configurations: { disableAutoSweep: false, enableGaslessWithdraw: false } },
    });
    expect(both.status).toBe(200);
    expect(both.body.data.configurations).toMatchObject({ disableAutoSweep: false, enableGaslessWithdraw: false });
  });

  it('the same setting at the top level and in configurations with different values is a 400 naming both, and writes nothing', async () => {
    const a = await child(w(), { name: 'keep' });
    const before = await addressRow(a.id);
    for (const field of ['disableAutoSweep', 'enableGaslessWithdraw']) {
      const res = await h.api('PATCH', `${path(w())}/${a.id}`, {
        body: { name: 'changed', [field]: true, configurations: { [field]: false } },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'VALIDATION_ERROR', requestId: expect.any(String) });
      expect(res.body.details.map((d: { field: string }) => d.field).sort()).toEqual([`configurations.${field}`, field]);
    }
    expect(await addressRow(a.id)).toEqual(before);
  });

  it('showPrivateKey: true answers the key (no-store, audited), as GET ?showPrivateKey=true does', async () => {
    const a = await child();
    const res = await h.api('PATCH', `${path(w())}/${a.id}`, { body: { name: 'with key', showPrivateKey: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.data).toMatchObject({ id: a.id, name: 'with key', privateKey: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    keys.add(res.body.data.privateKey.slice(2));
    expect(res.body.data.privateKey).toBe(await childKey(w().id, a.derivationPath));
    expect(privateKeyToAccount(res.body.data.privateKey).address).toBe(a.address);
    expect(await audits('address.private_key_exported', a.id)).toHaveLength(1);
    // showPrivateKey alone: nothing to change, the key all the same.
    const only = await h.api('PATCH', `${path(w())}/${a.id}`, { body: { showPrivateKey: true } });
    expect(only.status).toBe(200);
    expect(only.body.data.privateKey).toBe(res.body.data.privateKey);
    const plain = await h.api('PATCH', `${path(w())}/${a.id}`, { body: { showPrivateKey: false, name: 'plain' } });
    expect(plain.body.data.privateKey).toBeUndefined();
    expect(await audits('address.private_key_exported', a.id)).toHaveLength(2);
  });

  it('showPrivateKey where no key can leave is refused before anything is written; unknown fields stay a 400', async () => {
    const outside = newKey().address;
    const ext = await h.api('POST', `${path(w())}/whitelist`, { body: { address: outside } });
    expect(ext.status).toBe(200);
    const before = await snapshot();
    const res = await h.api('PATCH', `${path(w())}/${ext.body.data.id}`, { body: { name: 'renamed', showPrivateKey: true } });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('NO_PRIVATE_KEY');
    expect((await addressRow(ext.body.data.id)).name).toBeNull();
    for (const body of [{ privateKey: generatePrivateKey() }, { showPrivateKey: 'true' }, { configurations: { showPrivateKey: true } }]) {
      const bad = await h.api('PATCH', `${path(w())}/${ext.body.data.id}`, { body });
      expect(bad.status, JSON.stringify(body)).toBe(400);
      expect(bad.body.error).toBe('VALIDATION_ERROR');
    }
    expect(await snapshot()).toBe(before);
  });
});

describe('POST /v1/wallets/{walletId}/addresses with showPrivateKey', () => {
  it('the new address comes with its key, no-store and audited', async () => {
    const res = await h.api('POST', path(w()), { body: { name: 'exported at birth', showPrivateKey: true, disableAutoSweep: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const a = res.body.data;
    keys.add(a.privateKey.slice(2));
    expect(a).toMatchObject({
      type: 'INTERNAL',
      name: 'exported at birth',
      configurations: { disableAutoSweep: true, showPrivateKey: true },
    });
    expect(a.privateKey).toBe(await childKey(w().id, a.derivationPath));
    const [audit] = await audits('address.private_key_exported', a.id);
    expect(audit).toMatchObject({ wallet_id: w().id, target_type: 'address' });
    expect(JSON.stringify(audit!.details)).not.toContain(a.privateKey.slice(2));
    const without = await h.api('POST', path(w()), { body: { showPrivateKey: false } });
    expect(without.status).toBe(200);
    expect(without.body.data.privateKey).toBeUndefined();
  });

  it('where export is off (mainnet by default) it is a 403 and no address is created', async () => {
    const before = await snapshot();
    const res = await h.api('POST', path(main()), { key: main().apiKey, body: { showPrivateKey: true } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('FORBIDDEN');
    expect(await snapshot()).toBe(before);
    expect((await h.api('POST', path(main()), { key: main().apiKey, body: { showPrivateKey: false } })).status).toBe(200);
  });
});

describe('POST /v1/wallets/{walletId}/addresses/whitelist with settings and privateKey', () => {
  it('takes disableAutoSweep and enableGaslessWithdraw', async () => {
    const res = await h.api('POST', `${path(w())}/whitelist`, {
      body: { address: newKey().address, name: 'watched', enableGaslessWithdraw: true, disableAutoSweep: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      type: 'EXTERNAL',
      derivationPath: null,
      configurations: { disableAutoSweep: true, enableGaslessWithdraw: true, showPrivateKey: false },
    });
  });

  it('imports a key: sealed like the seeds (bound to its row), audited, never answered unless asked', async () => {
    const { privateKey, address } = newKey();
    const res = await h.api('POST', `${path(w())}/whitelist`, {
      body: { address: address.toLowerCase(), privateKey, name: 'imported', metadata: { customer: 'c-1' } },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const a = res.body.data;
    expect(a).toMatchObject({
      address,
      type: 'EXTERNAL',
      derivationPath: null,
      name: 'imported',
      metadata: { customer: 'c-1' },
      // Swept like a child address unless told otherwise; its key can be exported (testnet).
      configurations: { disableAutoSweep: false, enableGaslessWithdraw: false, showPrivateKey: true, isActive: true },
    });
    expect(a.privateKey).toBeUndefined();
    expect(JSON.stringify(res.body)).not.toContain(privateKey.slice(2));

    const [stored] = await keyRows(address);
    expect(stored).toMatchObject({ address_id: a.id, wallet_id: w().id });
    expect(stored!.key_ciphertext.toString('hex')).not.toContain(privateKey.slice(2));
    const vault = new LocalKeyVault(h.kek);
    expect(`0x${(await vault.open(stored!.key_ciphertext, ADDRESS_KEY.associatedData(a.id))).toString('hex')}`).toBe(privateKey);
    await expect(vault.open(stored!.key_ciphertext, a.id)).rejects.toThrow();
    await expect(vault.open(stored!.key_ciphertext, ADDRESS_KEY.associatedData(w().id))).rejects.toThrow();
    const [audit] = await audits('address.private_key_imported', a.id);
    expect(audit).toMatchObject({ wallet_id: w().id, actor: expect.stringMatching(/^api-key:/), details: { address } });
    expect(JSON.stringify(audit)).not.toContain(privateKey.slice(2));

    // The key comes back only on request, audited as an export.
    const shown = await h.api('GET', `${path(w())}/${a.id}?showPrivateKey=true`);
    expect(shown.status).toBe(200);
    expect(shown.headers.get('cache-control')).toBe('no-store');
    expect(shown.body.data.privateKey).toBe(privateKey);
    expect(await audits('address.private_key_exported', a.id)).toHaveLength(1);
  });

  it('showPrivateKey on the whitelist answers the imported key; without a key it is a 422 and writes nothing', async () => {
    const { privateKey, address } = newKey();
    const res = await h.api('POST', `${path(w())}/whitelist`, { body: { address, privateKey, showPrivateKey: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body.data.privateKey).toBe(privateKey);
    const before = await snapshot();
    const none = await h.api('POST', `${path(w())}/whitelist`, { body: { address: newKey().address, showPrivateKey: true } });
    expect(none.status).toBe(422);
    expect(none.body.error).toBe('NO_PRIVATE_KEY');
    expect(await snapshot()).toBe(before);
  });

  it("a key that is not the address's is a 400 naming privateKey (never echoing it), and writes nothing", async () => {
    const before = await snapshot();
    const other = newKey();
    const cases: [Record<string, unknown>, string][] = [
      [{ address: newKey().address, privateKey: other.privateKey }, 'privateKey'],
      [{ address: other.address, privateKey: '0x1234' }, 'privateKey'],
      [{ address: other.address, privateKey: `0x${'0'.repeat(64)}` }, 'privateKey'],
      [{ address: other.address, privateKey: 12 }, 'privateKey'],
      [{ address: other.address, privateKey: other.privateKey, mnemonic: 'x' }, 'mnemonic'],
    ];
    for (const [body, field] of cases) {
      const res = await h.api('POST', `${path(w())}/whitelist`, { body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toBe('VALIDATION_ERROR');
      expect(res.body.details.map((d: { field: string }) => d.field)).toContain(field);
      expect(JSON.stringify(res.body)).not.toContain(other.privateKey.slice(2));
    }
    expect(await snapshot()).toBe(before);
  });

  it('is refused on mainnet unless the operator allows it (403), and writes nothing', async () => {
    const { privateKey, address } = newKey();
    const before = await snapshot();
    const res = await h.api('POST', `${path(main())}/whitelist`, { key: main().apiKey, body: { address, privateKey } });
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'FORBIDDEN', message: expect.stringMatching(/mainnet/) });
    expect(await snapshot()).toBe(before);
    // Without a key the outside address is watched as before.
    expect((await h.api('POST', `${path(main())}/whitelist`, { key: main().apiKey, body: { address } })).status).toBe(200);

    // ALLOW_KEY_IMPORT_MAINNET=true (createServices: keyImportMainnet) lets it through.
    const allowed = new AddressService(
      h.database.db,
      h.services.wallets,
      h.services.catalogue,
      h.services.audit,
      {
        testnet: true,
        mainnet: false,
      },
      { vault: new LocalKeyVault(h.kek), importMainnet: true },
    );
    const second = newKey();
    const auth = { keyId: 'test', businessId: h.businessId, walletId: null };
    const view = await allowed.whitelist(auth, main().id, { address: second.address, privateKey: second.privateKey });
    expect(view).toMatchObject({ address: second.address, type: 'EXTERNAL', configurations: { disableAutoSweep: false } });
    expect(await keyRows(second.address)).toHaveLength(1);
  });

  it('an address the service already holds a key for is refused with the same answer as a plain registration', async () => {
    const other = await newWallet('Other wallet');
    const theirs = await child(other, { showPrivateKey: true });
    keys.add(theirs.privateKey!.slice(2));
    const imported = newKey();
    expect((await h.api('POST', `${path(other)}/whitelist`, { key: other.apiKey, body: imported })).status).toBe(200);
    const own = await child(w(), { showPrivateKey: true });
    keys.add(own.privateKey!.slice(2));
    const before = await snapshot();
    for (const body of [
      // Another wallet's child address, with its own (exported) key, or without.
      { address: theirs.address, privateKey: theirs.privateKey },
      { address: theirs.address },
      // An address whose key another wallet imported, with the key again, or without.
      imported,
      { address: imported.address },
    ]) {
      const res = await h.api('POST', `${path(w())}/whitelist`, { body });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body).toMatchObject({
        error: 'ADDRESS_NOT_EXTERNAL',
        message: 'This address cannot be registered as an external address',
      });
    }
    // The wallet's own child, with its key: its own address (409), as before.
    expect((await h.api('POST', `${path(w())}/whitelist`, { body: { address: own.address, privateKey: own.privateKey } })).status).toBe(
      409,
    );
    expect(await snapshot()).toBe(before);
  });

  it('two wallets importing one key at the same moment: one holds it, the other gets the same 422', async () => {
    const other = await newWallet('Racing wallet');
    const k = newKey();
    const results = await Promise.all([
      h.api('POST', `${path(w())}/whitelist`, { body: k }),
      h.api('POST', `${path(other)}/whitelist`, { key: other.apiKey, body: k }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
    expect(results.find((r) => r.status === 422)!.body.error).toBe('ADDRESS_NOT_EXTERNAL');
    expect(await keyRows(k.address)).toHaveLength(1);
  });

  it('removing an imported address forgets its key (audited); another wallet may then register it', async () => {
    const k = newKey();
    const added = await h.api('POST', `${path(w())}/whitelist`, { body: k });
    const removed = await h.api('DELETE', `${path(w())}/whitelist/${added.body.data.id}`);
    expect(removed.status).toBe(200);
    expect(removed.body.data).toMatchObject({ isActive: false, configurations: { showPrivateKey: false } });
    expect(await keyRows(k.address)).toHaveLength(0);
    expect(await audits('address.private_key_deleted', added.body.data.id)).toHaveLength(1);
    const other = await newWallet('Takes it over');
    expect((await h.api('POST', `${path(other)}/whitelist`, { key: other.apiKey, body: { address: k.address } })).status).toBe(200);
  });
});

describe('API-key scopes', () => {
  async function scopedKey(scopes: string[]) {
    const res = await h.api('POST', '/v1/api-keys', { key: h.businessKey, body: { name: scopes.join('+'), scopes } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data.apiKey as string;
  }

  it('NO_KEY_EXPORT: showPrivateKey on create, PATCH and whitelist is 403 KEY_EXPORT_NOT_ALLOWED and writes nothing; importing without it works', async () => {
    const key = await scopedKey(['NO_KEY_EXPORT']);
    const a = await child();
    const k = newKey();
    const before = await snapshot();
    for (const [method, p, body] of [
      ['POST', path(w()), { showPrivateKey: true }],
      ['PATCH', `${path(w())}/${a.id}`, { name: 'x', showPrivateKey: true }],
      ['POST', `${path(w())}/whitelist`, { ...k, showPrivateKey: true }],
    ] as const) {
      const res = await h.api(method, p, { key, body });
      expect(res.status, `${method} ${p}`).toBe(403);
      expect(res.body.error).toBe('KEY_EXPORT_NOT_ALLOWED');
      expect(JSON.stringify(res.body)).not.toContain(k.privateKey.slice(2));
    }
    expect(await snapshot()).toBe(before);
    expect((await addressRow(a.id)).name).toBeNull();
    // Putting a key in is no export.
    const imported = await h.api('POST', `${path(w())}/whitelist`, { key, body: k });
    expect(imported.status).toBe(200);
    expect(imported.body.data.privateKey).toBeUndefined();
  });

  it('READ_ONLY: importing a key is 403 KEY_READ_ONLY and writes nothing', async () => {
    const key = await scopedKey(['READ_ONLY']);
    const before = await snapshot();
    const res = await h.api('POST', `${path(w())}/whitelist`, { key, body: newKey() });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('KEY_READ_ONLY');
    expect(await snapshot()).toBe(before);
  });
});

describe('deposits to an imported address', () => {
  it('are credited to the importing wallet alone and swept to the master on chain with the imported key', async () => {
    const { privateKey, address } = newKey();
    // Another wallet watched the address before the key was imported: from the import on,
    // the key holder is credited, as for every address the service holds a key for.
    const watcher = await newWallet('Earlier watcher');
    expect((await h.api('POST', `${path(watcher)}/whitelist`, { key: watcher.apiKey, body: { address } })).status).toBe(200);
    const res = await h.api('POST', `${path(w())}/whitelist`, { body: { address, privateKey, name: 'swept like a child' } });
    expect(res.status).toBe(200);

    const masterBefore = await eth.balanceOf('USDC', w().address);
    const receipt = await eth.sendToken('USDC', address, '12.5');
    await drain();
    const deposits = await h.database.db
      .selectFrom('transactions')
      .select(['id', 'wallet_id'])
      .where('type', '=', 'DEPOSIT')
      .where('hash', '=', receipt.transactionHash)
      .execute();
    expect(deposits).toEqual([{ id: expect.any(String), wallet_id: w().id }]);
    const swept = await eventually(
      () => h.api('GET', `/v1/wallets/${w().id}/transactions/${deposits[0]!.id}`),
      (r) => r.body.data.assetSwept === true,
      30_000,
    );
    expect(swept.body.data).toMatchObject({
      type: 'DEPOSIT',
      status: 'SUCCESS',
      amount: '12.5',
      assetSwept: true,
      assetSweptAmount: '12.5',
      assetSweptSenderAddress: address,
      assetSweptRecipientAddress: w().address,
    });
    // On chain: the token left the imported address for the master, signed by its key.
    expect(await eth.balanceOf('USDC', w().address)).toBe(masterBefore + 125n * (USDC / 10n));
    expect(await eth.balanceOf('USDC', address)).toBe(0n);
    const sweepTx = await eth.pub.getTransaction({ hash: swept.body.data.assetSweptHash });
    expect(sweepTx.from.toLowerCase()).toBe(address.toLowerCase());
    expect((await eth.pub.getTransactionReceipt({ hash: swept.body.data.assetSweptHash })).status).toBe('success');
    const { rows } = await sql<{ from_index: number | null; purpose: string }>`
      SELECT from_index, purpose FROM outbound_txs WHERE lower(from_address) = lower(${address})`.execute(h.database.db);
    expect(rows).toEqual([{ from_index: null, purpose: 'sweep' }]);

    // While nothing is in flight the key may go; the deposit stays swept.
    const removed = await h.api('DELETE', `${path(w())}/whitelist/${res.body.data.id}`);
    expect(removed.status).toBe(200);
  });

  it('a manual sweep of a deposit to an imported address with auto-sweep off moves it too', async () => {
    const { privateKey, address } = newKey();
    const res = await h.api('POST', `${path(w())}/whitelist`, { body: { address, privateKey, disableAutoSweep: true } });
    expect(res.body.data.configurations.disableAutoSweep).toBe(true);
    const receipt = await eth.sendToken('USDC', address, '3');
    await drain();
    const deposit = await h.database.db
      .selectFrom('transactions')
      .select(['id', 'status', 'asset_swept'])
      .where('hash', '=', receipt.transactionHash)
      .executeTakeFirstOrThrow();
    expect(deposit).toMatchObject({ status: 'SUCCESS', asset_swept: false });
    // The worker is held, so the sweep stays in flight while the key's removal is tried.
    await h.stopWorker();
    try {
      const sweep = await h.api('POST', `/v1/wallets/${w().id}/transactions/sweep/assets`, { body: { transactionId: deposit.id } });
      expect(sweep.status, JSON.stringify(sweep.body)).toBe(200);
      const early = await h.api('DELETE', `${path(w())}/whitelist/${res.body.data.id}`);
      expect(early.status).toBe(409);
      expect(early.body.error).toBe('KEY_IN_USE');
      expect(await keyRows(address)).toHaveLength(1);
    } finally {
      await h.startWorker();
    }
    await eventually(
      () => h.api('GET', `/v1/wallets/${w().id}/transactions/${deposit.id}`),
      (r) => r.body.data.assetSwept === true,
      30_000,
    );
    expect(await eth.balanceOf('USDC', address)).toBe(0n);
  });

  it('a sweep that read the address before its removal committed starts nothing once it gets the row: no sweep, no top-up', async () => {
    const { privateKey, address } = newKey();
    const res = await h.api('POST', `${path(w())}/whitelist`, { body: { address, privateKey, disableAutoSweep: true } });
    const receipt = await eth.sendToken('USDC', address, '2');
    await drain();
    const deposit = await h.database.db
      .selectFrom('transactions')
      .select('id')
      .where('hash', '=', receipt.transactionHash)
      .executeTakeFirstOrThrow();
    // Our session holds the address row, so the removal queues for it first; the sweep then
    // reads the address (key still there), makes its chain reads and queues behind both.
    const holder = new pg.Client({ connectionString: h.databaseUrl });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM addresses WHERE id = $1 FOR UPDATE', [res.body.data.id]);
      const removal = h.api('DELETE', `${path(w())}/whitelist/${res.body.data.id}`);
      await eventually(
        () => blockedBy(holder),
        (n) => n >= 1,
      );
      const sweep = h.api('POST', `/v1/wallets/${w().id}/transactions/sweep/assets`, { body: { transactionId: deposit.id } });
      // The second waiter queues on the first's tuple lock, not on ours: count lock waits.
      const waiting = async () =>
        (
          await holder.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()",
          )
        ).rows[0]!.n;
      await eventually(waiting, (n) => n >= 2);
      await holder.query('ROLLBACK');
      expect((await removal).status).toBe(200);
      const swept = await sweep;
      expect(swept.status, JSON.stringify(swept.body)).toBe(422);
      expect(swept.body.error).toBe('NOTHING_TO_SWEEP');
    } finally {
      await holder.end();
    }
    expect(await keyRows(address)).toHaveLength(0);
    const sweeps = await h.database.db.selectFrom('sweeps').select('id').where('address_id', '=', res.body.data.id).execute();
    expect(sweeps).toHaveLength(0);
    const topups = await h.database.db
      .selectFrom('outbound_txs')
      .select('id')
      .where(sql`lower(to_address)`, '=', address.toLowerCase())
      .execute();
    expect(topups).toHaveLength(0);
    expect(await eth.balanceOf('USDC', address)).toBe(2n * USDC);
  });
});

describe('secrets', () => {
  it('no imported or exported key reached the logs', () => {
    const logs = h.logs();
    expect(logs.length).toBeGreaterThan(0);
    expect(keys.size).toBeGreaterThan(5);
    for (const key of keys) expect(logs).not.toContain(key);
  });
});
