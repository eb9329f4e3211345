import { createCipheriv, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  KeyRing,
  LocalKeyVault,
  LocalMasterKey,
  MasterKeyError,
  loadOrCreateKeyFile,
  parseMasterKey,
  sealedHeader,
  sealedKeyId,
} from './vault.ts';

const tmp = mkdtempSync(path.join(os.tmpdir(), 'wallet-vault-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const WALLET = '01a1fb4f-44b2-7a38-bf5d-4615c1a23e9e';
const OTHER_WALLET = '01a1fb4f-4611-769b-b4f4-6d495d5d4bf7';
const SECRET = Buffer.from('abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about', 'utf8');

describe('LocalKeyVault', () => {
  const vault = new LocalKeyVault(randomBytes(32));

  it('opens what it sealed', async () => {
    const sealed = await vault.seal(SECRET, WALLET);
    expect(sealed.includes(SECRET)).toBe(false);
    expect(await vault.open(sealed, WALLET)).toEqual(SECRET);
    expect(await vault.open(await vault.seal(new Uint8Array(0), WALLET), WALLET)).toEqual(Buffer.alloc(0));
  });

  it('uses a fresh nonce: the same secret seals differently each time', async () => {
    const a = await vault.seal(SECRET, WALLET);
    const b = await vault.seal(SECRET, WALLET);
    expect(a.equals(b)).toBe(false);
    expect(a.subarray(1, 13).equals(b.subarray(1, 13))).toBe(false);
  });

  it('refuses another owner id (a ciphertext copied onto another row)', async () => {
    const sealed = await vault.seal(SECRET, WALLET);
    await expect(vault.open(sealed, OTHER_WALLET)).rejects.toThrow();
    await expect(vault.open(sealed, '')).rejects.toThrow();
  });

  it('refuses a ciphertext with any single byte changed', async () => {
    const sealed = await vault.seal(SECRET, WALLET);
    // version, nonce, tag and body: every byte is covered.
    for (let i = 0; i < sealed.length; i++) {
      const tampered = Buffer.from(sealed);
      tampered[i] = tampered[i]! ^ 0x01;
      await expect(vault.open(tampered, WALLET), `byte ${i}`).rejects.toThrow();
    }
  });

  it('refuses a truncated or extended ciphertext', async () => {
    const sealed = await vault.seal(SECRET, WALLET);
    await expect(vault.open(sealed.subarray(0, sealed.length - 1), WALLET)).rejects.toThrow();
    await expect(vault.open(Buffer.concat([sealed, Buffer.from([0])]), WALLET)).rejects.toThrow();
    await expect(vault.open(sealed.subarray(0, 20), WALLET)).rejects.toThrow(/format/);
  });

  it('refuses a ciphertext sealed under another key', async () => {
    const sealed = await new LocalKeyVault(randomBytes(32)).seal(SECRET, WALLET);
    await expect(vault.open(sealed, WALLET)).rejects.toThrow();
  });

  it('needs a 32-byte key', () => {
    expect(() => new LocalKeyVault(randomBytes(31))).toThrow(/32 bytes/);
    expect(() => new LocalKeyVault(randomBytes(33))).toThrow(/32 bytes/);
  });
});

describe('parseMasterKey', () => {
  it('accepts 32 bytes of standard base64, surrounding whitespace ignored', () => {
    const key = randomBytes(32);
    expect(parseMasterKey(key.toString('base64'))).toEqual(key);
    expect(parseMasterKey(`  ${key.toString('base64')}\n`)).toEqual(key);
  });

  const bad: [string, string][] = [
    ['', 'empty'],
    ['abc', 'too short'],
    [randomBytes(16).toString('base64'), '16 bytes'],
    [randomBytes(31).toString('base64'), '31 bytes'],
    [randomBytes(33).toString('base64'), '33 bytes'],
    [randomBytes(32).toString('hex'), 'hex'],
    [randomBytes(32).toString('base64').replace(/=+$/, ''), 'padding missing'],
    [`${randomBytes(32).toString('base64')}A`, 'trailing garbage'],
    [randomBytes(32).toString('base64').replace(/.$/, '!'), 'not base64'],
  ];
  for (const [value, why] of bad) {
    it(`rejects ${why}`, () => {
      expect(() => parseMasterKey(value)).toThrow(/MASTER_KEY must be exactly 32 bytes/);
    });
  }
});

describe('loadOrCreateKeyFile', () => {
  it('creates a 0600 key file once, then reuses it', async () => {
    const dir = path.join(tmp, 'data', 'nested'); // not there yet
    const first = await loadOrCreateKeyFile(dir);
    expect(first.created).toBe(true);
    expect(first.file).toBe(path.join(dir, 'master.key'));
    expect(first.key).toHaveLength(32);
    expect(statSync(first.file).mode & 0o777).toBe(0o600);
    expect(parseMasterKey(readFileSync(first.file, 'utf8'))).toEqual(first.key);

    const second = await loadOrCreateKeyFile(dir);
    expect(second.created).toBe(false);
    expect(second.key).toEqual(first.key);

    // A vault from the reloaded key opens what the first one sealed.
    const sealed = await new LocalKeyVault(first.key).seal(SECRET, WALLET);
    expect(await new LocalKeyVault(second.key).open(sealed, WALLET)).toEqual(SECRET);
  });

  it('never replaces a damaged key file (that would orphan every wallet seed)', async () => {
    const dir = mkdtempSync(path.join(tmp, 'damaged-'));
    const file = path.join(dir, 'master.key');
    writeFileSync(file, 'not a key\n', { mode: 0o600 });
    await expect(loadOrCreateKeyFile(dir)).rejects.toThrow(/MASTER_KEY/);
    expect(readFileSync(file, 'utf8')).toBe('not a key\n');
  });
});

describe('key ids and the key ring', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const oldId = new LocalMasterKey(oldKey).id;
  const newId = new LocalMasterKey(newKey).id;

  it('a sealed value names the key that sealed it; the id is derived from the key (a key check value)', async () => {
    expect(oldId).toMatch(/^[0-9a-f]{16}$/);
    expect(new LocalMasterKey(Buffer.from(oldKey)).id).toBe(oldId);
    expect(newId).not.toBe(oldId);
    const sealed = await new LocalKeyVault(oldKey).seal(SECRET, WALLET);
    expect(sealed[0]).toBe(2);
    expect(sealedKeyId(sealed)).toBe(oldId);
    expect(sealed.subarray(0, 9)).toEqual(sealedHeader(oldId));
  });

  it('a ring opens values of its old and new keys, and seals with the key it is told is active', async () => {
    let active = oldId;
    const ring = new KeyRing([new LocalMasterKey(newKey), new LocalMasterKey(oldKey)], () => active);
    const underOld = await ring.seal(SECRET, WALLET);
    active = newId;
    const underNew = await ring.seal(SECRET, WALLET);
    expect([sealedKeyId(underOld), sealedKeyId(underNew)]).toEqual([oldId, newId]);
    expect(await ring.open(underOld, WALLET)).toEqual(SECRET);
    expect(await ring.open(underNew, WALLET)).toEqual(SECRET);
    // A process without the old key cannot, and says which key it lacks.
    await expect(new LocalKeyVault(newKey).open(underOld, WALLET)).rejects.toThrow(new RegExp(`master key ${oldId}`));
    active = new LocalMasterKey(randomBytes(32)).id;
    await expect(ring.seal(SECRET, WALLET)).rejects.toBeInstanceOf(MasterKeyError);
  });

  it('opens values sealed before key ids (v1) with whichever local key sealed them', async () => {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', oldKey, nonce);
    cipher.setAAD(Buffer.from(WALLET, 'utf8'));
    const body = Buffer.concat([cipher.update(SECRET), cipher.final()]);
    const v1 = Buffer.concat([Buffer.from([1]), nonce, cipher.getAuthTag(), body]);
    expect(sealedKeyId(v1)).toBe('legacy');
    const ring = new KeyRing([new LocalMasterKey(newKey), new LocalMasterKey(oldKey)], () => newId);
    expect(await ring.open(v1, WALLET)).toEqual(SECRET);
    await expect(ring.open(v1, OTHER_WALLET)).rejects.toThrow(/no configured master key/);
    await expect(new LocalKeyVault(newKey).open(v1, WALLET)).rejects.toThrow(/no configured master key/);
  });

  it('hands plaintext back in a buffer of its own, never a slice of the shared pool', async () => {
    const vault = new LocalKeyVault(oldKey);
    const plain = await vault.open(await vault.seal(SECRET, WALLET), WALLET);
    expect(plain).toEqual(SECRET);
    expect(plain.buffer.byteLength).toBe(plain.length);
    const key = parseMasterKey(oldKey.toString('base64'));
    expect(key.buffer.byteLength).toBe(32);
  });
});
