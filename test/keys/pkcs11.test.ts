/**
 * Item 8 of issue 17: the master key inside an HSM (KEY_VAULT=pkcs11), against SoftHSM2.
 * The key is created in the token as sensitive and non-extractable; secrets are sealed and
 * opened by the token; and a file-key installation moves into the HSM by rotation.
 */
import { rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { recoverTransactionAddress, type TransactionSerializedEIP1559 } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/harness.js';
import { createLogger } from '../../src/lib/logger.js';
import { createServices } from '../../src/services.js';
import { openCustody } from '../../src/modules/custody/service.js';
import { rotateMasterKey } from '../../src/modules/custody/rotation.js';
import { Pkcs11Token } from '../../src/keys/pkcs11.js';
import { KeyRing, LocalMasterKey, MasterKeyError, sealedKeyId } from '../../src/keys/vault.js';
import type { KeySettings } from '../../src/config/keys.js';
import { cleanEnv, localKeys, runCli, sealedCells, unreadable } from './support.js';
import { createTestToken, softhsmPresent, SOFTHSM_MODULE, type TestToken } from './softhsm.js';

const logger = createLogger('silent');
if (!softhsmPresent) {
  // Plain words in the run's output, not only a skipped count.
  console.warn(`SoftHSM2 not found (${SOFTHSM_MODULE}, softhsm2-util); PKCS#11 tests skipped — run scripts/install-softhsm.sh`);
}

describe.skipIf(!softhsmPresent)('KEY_VAULT=pkcs11 (SoftHSM2)', () => {
  let token: TestToken;
  let h: Harness;
  const hsmKeys = (previous: Buffer[] = [], previousKeyLabels: string[] = []): KeySettings => ({
    vault: 'pkcs11',
    masterKey: null,
    previous,
    pkcs11: { ...token.settings, previousKeyLabels },
    rotateBatchSize: 100,
    rotatePauseMs: 0,
  });

  beforeAll(async () => {
    token = createTestToken();
    h = await startHarness();
  });
  afterAll(async () => {
    await h?.stop();
    if (token) rmSync(token.dir, { recursive: true, force: true });
  });

  it('create-hsm-key (the CLI) makes a sensitive, non-extractable AES key and refuses a taken label', async () => {
    const env = cleanEnv(token.env);
    const first = await runCli(['create-hsm-key'], env);
    expect(first.code, first.stderr).toBe(0);
    const id = /master key id ([0-9a-f]{16})/.exec(first.stdout)?.[1];
    expect(id).toBeTruthy();
    expect(first.stdout).toContain('sensitive, not extractable');

    const again = await runCli(['create-hsm-key'], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('a key labelled "wallet-master-key" already exists');

    // Opening it checks CKA_SENSITIVE and CKA_EXTRACTABLE; its id is the same in every session.
    const t = Pkcs11Token.open(token.settings);
    try {
      expect((await t.key('wallet-master-key')).id).toBe(id);
      await expect(t.key('no-such-key')).rejects.toThrow(/no AES key labelled "no-such-key"/);
    } finally {
      await t.close();
    }
    // Two runs of the real CLI, each loading the service under tsx first (15-30 s here).
  }, 180_000);

  it('seals and opens inside the token; another owner, a changed byte or another key is refused', async () => {
    const t = Pkcs11Token.open(token.settings);
    try {
      await t.createKey('second-key');
      const key = await t.key('wallet-master-key');
      const other = await t.key('second-key');
      expect(other.id).not.toBe(key.id);
      const ring = new KeyRing([key], () => key.id);
      const secret = Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about');
      const sealed = await ring.seal(secret, 'wallet-1');
      expect(sealedKeyId(sealed)).toBe(key.id);
      expect(sealed.includes(secret)).toBe(false);
      const opened = await ring.open(sealed, 'wallet-1');
      expect(opened).toEqual(secret);
      expect(opened.buffer.byteLength).toBe(opened.length);
      await expect(ring.open(sealed, 'wallet-2')).rejects.toThrow();
      const tampered = Buffer.from(sealed);
      tampered[tampered.length - 1]! ^= 1;
      await expect(ring.open(tampered, 'wallet-1')).rejects.toThrow();
      // The token still works after a refused operation.
      expect(await ring.open(sealed, 'wallet-1')).toEqual(secret);
      const forged = Buffer.from(sealed);
      Buffer.from(other.id, 'hex').copy(forged, 1);
      await expect(new KeyRing([other], () => other.id).open(forged, 'wallet-1')).rejects.toThrow();
    } finally {
      await t.close();
    }
  });

  it('a wrong PIN or token is refused with a clear message', async () => {
    expect(() => Pkcs11Token.open({ ...token.settings, pin: '000000' })).toThrow(MasterKeyError);
    expect(() => Pkcs11Token.open({ ...token.settings, tokenLabel: 'missing' })).toThrow(/PKCS11_TOKEN_LABEL "missing": no such token/);
  });

  it('a file-key installation moves into the HSM by rotation; then the HSM key alone opens, signs and exports', async () => {
    const db = h.database.db;
    await (await openCustody({ db, keys: localKeys(h.kek), keyFileDir: null, logger })).close();
    const fileId = new LocalMasterKey(h.kek).id;
    expect((await sealedCells(db)).every((c) => c.keyId === fileId)).toBe(true);

    // Step 2 of the procedure: the HSM key configured, the file key as previous.
    const moving = await openCustody({ db, keys: hsmKeys([h.kek]), keyFileDir: null, logger });
    try {
      expect(moving.primary.kind).toBe('pkcs11');
      const report = await rotateMasterKey(db, moving.vault, moving.primary, { batchSize: 2, pauseMs: 0, logger });
      expect(report.retired).toEqual([fileId]);
      expect(Object.values(report.resealed).reduce((a, b) => a + b, 0)).toBe((await sealedCells(db)).length);
    } finally {
      await moving.close();
    }
    const cells = await sealedCells(db);
    expect(cells.every((c) => c.keyId === moving.primary.id)).toBe(true);

    const hsm = await openCustody({ db, keys: hsmKeys(), keyFileDir: null, logger });
    const services = await createServices(db, hsm.vault, {
      chains: h.devnet.chains.map((c) => c.config),
      addressLimit: 1000,
      keyExport: { testnet: true, mainnet: false },
    });
    try {
      expect(await unreadable(db, hsm.vault)).toEqual([]);
      const wallet = Object.values(h.wallets)[0]!;
      const chainId = h.devnet.chains.find((c) => c.config.blockchain.slug === wallet.slug)!.config.chainId;
      const tx = { to: wallet.address, value: 1n, nonce: 0, gas: 21_000n, maxFeePerGas: 2n, maxPriorityFeePerGas: 1n };
      const { raw } = await services.signer.signTransaction(wallet.id, 0, chainId, tx);
      expect(await recoverTransactionAddress({ serializedTransaction: raw as TransactionSerializedEIP1559 })).toBe(wallet.address);
      const auth = { keyId: 'test', businessId: h.businessId, walletId: null };
      const address = await services.addresses.create(auth, wallet.id, {});
      expect((await services.addresses.get(auth, wallet.id, address.id, { showPrivateKey: true })).privateKey).toMatch(/^0x[0-9a-f]{64}$/);
      // New wallets are sealed in the token.
      const created = await services.wallets.createForBusiness(h.businessId, {
        blockchain: wallet.slug,
        network: 'testnet',
        name: 'in the HSM',
      });
      const row = await db.selectFrom('wallets').select('seed_ciphertext').where('id', '=', created.wallet.id).executeTakeFirstOrThrow();
      expect(sealedKeyId(row.seed_ciphertext)).toBe(hsm.primary.id);
    } finally {
      services.close();
      await hsm.close();
    }
    // The file key alone no longer matches.
    await expect(openCustody({ db, keys: localKeys(h.kek), keyFileDir: null, logger })).rejects.toThrow(/does not match this database/);
    await expect(openCustody({ db, keys: localKeys(randomBytes(32), [h.kek]), keyFileDir: null, logger })).rejects.toThrow(MasterKeyError);
  });
});
