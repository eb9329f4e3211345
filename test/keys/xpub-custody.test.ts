/**
 * Item 3 of issue 17: a copy of the database plus exported child keys must never give the
 * account's private key. With a clear account xpub (chain code + public key), one exported
 * non-hardened child key k_i gives the parent: k = k_i - HMAC-SHA512(c, K || i)[0..32] mod n,
 * and with it the master address and every child. The xpub is now sealed; rows written
 * before are sealed at the next start and keep their addresses.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1';
import { mnemonicToAccount } from 'viem/accounts';
import { startHarness, type Harness } from '../support/harness.js';
import { createLogger } from '../../src/lib/logger.js';
import { openCustody } from '../../src/modules/custody/service.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { WALLET_XPUB } from '../../src/keys/sealed-columns.js';
import { AddressDeriver } from '../support/signer.js';
import { localKeys } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.stop();
});

const XPUB = /xpub[1-9A-HJ-NP-Za-km-z]{100,112}/g;

/** Every xpub-looking string anywhere in the database's text and JSON columns. */
async function xpubsInDatabase(): Promise<string[]> {
  const db = h.database.db;
  const { rows: columns } = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'jsonb', 'json')`.execute(db);
  const found = new Set<string>();
  for (const { table_name, column_name } of columns) {
    const { rows } = await sql<{ v: string }>`
      SELECT ${sql.ref(column_name)}::text AS v FROM ${sql.table(table_name)} WHERE ${sql.ref(column_name)}::text LIKE '%xpub%'`.execute(
      db,
    );
    for (const r of rows) for (const m of r.v.match(XPUB) ?? []) found.add(m);
  }
  return [...found];
}

/** The attack: the account's private key from its xpub and one child's private key, or null. */
function parentKey(xpub: string, childKeyHex: string, index: number): bigint | null {
  const node = HDKey.fromExtendedKey(xpub);
  const data = Buffer.alloc(37);
  data.set(node.publicKey!, 0);
  data.writeUInt32BE(index, 33);
  const il = BigInt(`0x${createHmac('sha512', node.chainCode!).update(data).digest().subarray(0, 32).toString('hex')}`);
  const n = secp256k1.CURVE.n;
  const k = (((BigInt(childKeyHex) - il) % n) + n) % n;
  if (k === 0n) return null;
  const pub = secp256k1.getPublicKey(k.toString(16).padStart(64, '0'), true);
  return Buffer.from(pub).equals(Buffer.from(node.publicKey!)) ? k : null;
}

describe.sequential('the account xpub is sealed', () => {
  it('a database copy plus exported child keys does not give the account private key', async () => {
    const wallet = Object.values(h.wallets)[0]!;
    const exported: { key: string; index: number }[] = [];
    for (let i = 0; i < 3; i++) {
      const created = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { body: {} });
      expect(created.status).toBe(200);
      const got = await h.api('GET', `/v1/wallets/${wallet.id}/addresses/${created.body.data.id}?showPrivateKey=true`);
      expect(got.status).toBe(200);
      exported.push({ key: got.body.data.privateKey, index: Number(created.body.data.derivationPath.split('/').at(-1)) });
    }

    // What a thief holding a copy of the database finds: no xpub anywhere.
    const candidates = await xpubsInDatabase();
    const broken = candidates.filter((x) => exported.some((e) => parentKey(x, e.key, e.index) !== null));
    expect(broken).toEqual([]);
    expect(candidates).toEqual([]);
    const row = await h.database.db.selectFrom('wallets').selectAll().where('id', '=', wallet.id).executeTakeFirstOrThrow();
    expect(row.account_xpub).toBeNull();

    // The attack itself is sound: with the xpub (opened with the master key) it succeeds.
    const xpub = (await new LocalKeyVault(h.kek).open(row.account_xpub_sealed!, WALLET_XPUB.associatedData(wallet.id))).toString('utf8');
    expect(parentKey(xpub, exported[0]!.key, exported[0]!.index)).not.toBeNull();
    expect(row.account_xpub_sealed!.includes(Buffer.from(HDKey.fromExtendedKey(xpub).chainCode!))).toBe(false);
  });

  it('a wallet stored before 016 (clear xpub) is sealed at the next start and keeps its addresses', async () => {
    const db = h.database.db;
    const wallet = Object.values(h.wallets)[1]!;
    const vault = new LocalKeyVault(h.kek);
    const row = await db.selectFrom('wallets').selectAll().where('id', '=', wallet.id).executeTakeFirstOrThrow();
    const xpub = (await vault.open(row.account_xpub_sealed!, WALLET_XPUB.associatedData(wallet.id))).toString('utf8');
    // As 001_initial.sql stored it.
    await db.updateTable('wallets').set({ account_xpub: xpub, account_xpub_sealed: null }).where('id', '=', wallet.id).execute();

    const custody = await openCustody({ db, keys: localKeys(h.kek), keyFileDir: null, logger: createLogger('silent') });
    await custody.close();
    const after = await db.selectFrom('wallets').selectAll().where('id', '=', wallet.id).executeTakeFirstOrThrow();
    expect(after.account_xpub).toBeNull();
    const opened = (await vault.open(after.account_xpub_sealed!, WALLET_XPUB.associatedData(wallet.id))).toString('utf8');
    expect(opened).toBe(xpub);
    expect(new AddressDeriver(opened).address(0)).toBe(wallet.address);

    // Issuance goes on at the same paths: each address is the mnemonic's child at its index.
    const mnemonic = await h.services.wallets.openMnemonic(wallet.id);
    const created = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { body: {}, key: wallet.apiKey });
    expect(created.status).toBe(200);
    const index = Number(created.body.data.derivationPath.split('/').at(-1));
    expect(created.body.data.address).toBe(mnemonicToAccount(mnemonic, { addressIndex: index }).address);
  });
});
