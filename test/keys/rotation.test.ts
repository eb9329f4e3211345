/**
 * rotate-master-key (item 1 of issue 17), through the real CLI: made slow with the throttle
 * settings (one value per batch, a pause after each), killed with SIGKILL in the middle,
 * every sealed value readable with the old and new keys at every moment, a second run
 * finishes, the old key is retired, and a process holding only the new key then signs and
 * exports as before.
 */
import { randomBytes } from 'node:crypto';
import { recoverTransactionAddress, type TransactionSerializedEIP1559 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { createLogger } from '../../src/lib/logger.js';
import { createServices } from '../../src/services.js';
import { openCustody } from '../../src/modules/custody/service.js';
import { KeyRing, LocalMasterKey, sealedKeyId } from '../../src/keys/vault.js';
import { derivePrivateKey } from '../../src/keys/hd.js';
import { EVM_ACCOUNT_PATH } from '../../src/chains/evm/derivation.js';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { cleanEnv, localKeys, runCli, sealedCells, sleep, spawnCli, unreadable } from './support.js';

const logger = createLogger('silent');
let h: Harness;
const oldKey = () => h.kek;
const newKey = randomBytes(32);
const oldId = () => new LocalMasterKey(h.kek).id;
const newId = new LocalMasterKey(newKey).id;
/** A key imported for an outside address (address_keys.key_ciphertext, issue 12). */
const imported = generatePrivateKey();
let importedAddressId = '';

beforeAll(async () => {
  h = await startHarness();
  // The installation's first start recorded its key.
  await (await openCustody({ db: h.database.db, keys: localKeys(h.kek), keyFileDir: null, logger })).close();
  const slug = Object.keys(h.wallets)[0]!;
  const chain = h.devnet.chains.find((c) => c.config.blockchain.slug === slug)!;
  for (let i = 0; i < 8; i++) {
    await h.services.wallets.createForBusiness(h.businessId, { blockchain: slug, network: chain.config.network, name: `extra ${i}` });
  }
  // Webhook signing secrets are sealed too (one entry of the registry among the others).
  const auth = { keyId: 'test', businessId: h.businessId, walletId: null };
  for (const w of Object.values(h.wallets)) await h.services.webhooks.secrets.rotate(auth, w.id);
  // An imported address key is sealed too.
  const wallet = Object.values(h.wallets)[0]!;
  const view = await h.services.addresses.whitelist(auth, wallet.id, {
    address: privateKeyToAccount(imported).address,
    privateKey: imported,
  });
  importedAddressId = view.id;
});
afterAll(async () => {
  await h?.stop();
});

const env = (extra: Record<string, string> = {}) =>
  cleanEnv({
    DATABASE_URL: h.databaseUrl,
    MASTER_KEY: newKey.toString('base64'),
    MASTER_KEY_PREVIOUS: oldKey().toString('base64'),
    LOG_LEVEL: 'info',
    ...extra,
  });

describe.sequential('rotate-master-key', () => {
  it('killed with SIGKILL in the middle: every value stays readable, nothing is lost, and a second run finishes', async () => {
    const db = h.database.db;
    const cells = await sealedCells(db);
    expect(cells.length).toBeGreaterThan(25);
    expect(cells.filter((c) => c.column === 'webhook_secrets.secret_ciphertext')).toHaveLength(Object.keys(h.wallets).length);
    expect(cells.filter((c) => c.column === 'address_keys.key_ciphertext')).toHaveLength(1);
    expect(cells.every((c) => c.keyId === oldId())).toBe(true);
    const plainBefore = new Map<string, string>();
    const both = new KeyRing([new LocalMasterKey(newKey), new LocalMasterKey(oldKey())], () => newId);
    for (const c of cells) plainBefore.set(`${c.column}:${c.id}`, (await both.open(c.sealed, c.aad)).toString('hex'));

    // A process restarted with both keys (step 2 of the procedure) while the rotation runs.
    const running = await openCustody({ db, keys: localKeys(newKey, [oldKey()]), keyFileDir: null, logger });
    const cli = spawnCli(['rotate-master-key'], env({ ROTATE_BATCH_SIZE: '1', ROTATE_PAUSE_MS: '300' }));
    let killedAt = -1;
    let sealedMidway: Buffer | null = null;
    try {
      for (const deadline = Date.now() + 90_000; ; await sleep(100)) {
        if (Date.now() > deadline) throw new Error(`the rotation never got half way\n${cli.stdout()}\n${cli.stderr()}`);
        // Every value opens at every moment, with the keys every process holds.
        expect(await unreadable(db, both)).toEqual([]);
        const now = await sealedCells(db);
        const moved = now.filter((c) => c.keyId === newId).length;
        if (moved >= 1 && !sealedMidway) {
          // New secrets are sealed under the new key as soon as it is active.
          sealedMidway = await running.vault.seal(Buffer.from('written during the rotation'), 'owner-x');
        }
        if (moved >= 8) {
          expect(now.some((c) => c.keyId === oldId())).toBe(true);
          cli.kill9();
          killedAt = moved;
          break;
        }
      }
      expect((await cli.exited).signal).toBe('SIGKILL');
    } finally {
      cli.kill9();
    }
    expect(sealedKeyId(sealedMidway!)).toBe(newId);
    expect((await running.vault.open(sealedMidway!, 'owner-x')).toString()).toBe('written during the rotation');
    await running.close();

    // Half way: both keys still needed; a process without the old one is refused.
    const half = await sealedCells(db);
    expect(half.filter((c) => c.keyId === newId).length).toBeGreaterThanOrEqual(killedAt);
    expect(half.filter((c) => c.keyId === oldId()).length).toBeGreaterThan(0);
    expect(await unreadable(db, both)).toEqual([]);
    await expect(openCustody({ db, keys: localKeys(newKey), keyFileDir: null, logger })).rejects.toThrow(
      new RegExp(`has not finished moving secrets off master key ${oldId()}`),
    );

    const second = await runCli(['rotate-master-key'], env());
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`master key ${newId} (MASTER_KEY) is active`);
    expect(second.stdout).toContain(`retired: ${oldId()}`);

    const after = await sealedCells(db);
    expect(after.length).toBe(cells.length);
    expect(after.every((c) => c.keyId === newId)).toBe(true);
    const onlyNew = new KeyRing([new LocalMasterKey(newKey)], () => newId);
    for (const c of after) expect((await onlyNew.open(c.sealed, c.aad)).toString('hex')).toBe(plainBefore.get(`${c.column}:${c.id}`));
    expect(await db.selectFrom('master_keys').select(['id', 'state']).orderBy('state').execute()).toEqual([
      { id: newId, state: 'active' },
      { id: oldId(), state: 'retired' },
    ]);

    // A third run has nothing to do.
    const third = await runCli(['rotate-master-key'], env());
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain(
      're-sealed now: wallets.seed_ciphertext: 0, wallets.account_xpub_sealed: 0, api_keys.key_ciphertext: 0, webhook_secrets.secret_ciphertext: 0, address_keys.key_ciphertext: 0',
    );
    // Three runs of the real CLI: each compiles and loads the whole service under tsx first
    // (15-30 s apiece on this shared machine).
  }, 240_000);

  it('a process holding only the new key signs and exports keys of the rotated wallets', async () => {
    const custody = await openCustody({ db: h.database.db, keys: localKeys(newKey), keyFileDir: null, logger });
    const services = await createServices(h.database.db, custody.vault, {
      chains: h.devnet.chains.map((c) => c.config),
      addressLimit: 1000,
      keyExport: { testnet: true, mainnet: false },
    });
    try {
      const wallet = Object.values(h.wallets)[0]!;
      const auth = { keyId: 'test', businessId: h.businessId, walletId: null };
      const address = await services.addresses.create(auth, wallet.id, {});
      const exported = await services.addresses.get(auth, wallet.id, address.id, { showPrivateKey: true });
      const mnemonic = await services.wallets.openMnemonic(wallet.id);
      const index = Number(address.derivationPath!.split('/').at(-1));
      expect(exported.privateKey).toBe(derivePrivateKey(mnemonic, EVM_ACCOUNT_PATH, index));
      const importedView = await services.addresses.get(auth, wallet.id, importedAddressId, { showPrivateKey: true });
      expect(importedView.privateKey).toBe(imported);
      expect((await services.wallets.deriver({ id: wallet.id })).address(0)).toBe(wallet.address);
      const chainId = h.devnet.chains.find((c) => c.config.blockchain.slug === wallet.slug)!.config.chainId;
      const tx = { to: wallet.address, value: 1n, nonce: 0, gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n };
      const { raw } = await services.signer.signTransaction(wallet.id, 0, chainId, tx);
      expect(await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerializedEIP1559 })).toBe(wallet.address);
    } finally {
      services.close();
      await custody.close();
    }
  });
});
