/**
 * Wallets and addresses of a chain configured with another family (chains file `family`):
 * the wallet's master address, its child addresses and their exported keys come from that
 * family's derivation and address format, through HTTP and the real database. The chains
 * are configured only (their adapter is never dialled): issuing addresses and exporting
 * keys need no node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secp256k1 } from '@noble/curves/secp256k1';
import { TronWeb } from 'tronweb';
import { familyOf } from '../../src/chains/families.js';
import { resolveChain } from '../../src/config/chains.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { sql } from 'kysely';
import { generateMnemonic, seedFromMnemonic } from '../../src/keys/hd.js';
import { WALLET_SEED } from '../../src/keys/sealed-columns.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { defaultWalletConfigurations } from '../../src/modules/wallets/configurations.js';
import { insertWallet } from '../../src/modules/wallets/store.js';
import { startHarness, type Harness } from '../support/harness.js';

const offline = { network: 'testnet' as const, rpcUrl: 'http://127.0.0.1:9/never-dialled', assets: [] };
const tron = resolveChain({ blockchain: 'tron-double', family: 'tron', chainId: 990_101, name: 'Tron', symbol: 'TRX', ...offline }, 'test');
const solana = resolveChain(
  { blockchain: 'solana-double', family: 'solana', chainId: 990_102, name: 'Solana', symbol: 'SOL', ...offline },
  'test',
);

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ specs: [DEVNET_CHAINS[0]!], extraChains: [tron, solana] });
});
afterAll(async () => {
  await h?.stop();
});

async function createWallet(slug: string) {
  const res = await h.api('POST', '/v1/wallets', { key: h.businessKey, body: { blockchain: slug, network: 'testnet', name: slug } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { id: string; address: string; derivationPath: string; apiKey: string };
}

async function issue(wallet: { id: string; apiKey: string }, count: number) {
  const made = await Promise.all(
    Array.from({ length: count }, () => h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: {} })),
  );
  for (const res of made) expect(res.status, JSON.stringify(res.body)).toBe(200);
  return made.map((r) => r.body.data as { id: string; address: string; derivationPath: string });
}

describe('a chain of the tron family', () => {
  it("issues T… addresses at m/44'/195'/0'/0/i, as tronweb derives them, and exports their keys", async () => {
    const wallet = await createWallet('tron-double');
    const mnemonic = await h.services.wallets.openMnemonic(wallet.id);
    expect(wallet.derivationPath).toBe("m/44'/195'/0'/0/0");
    expect(wallet.address).toBe(TronWeb.fromMnemonic(mnemonic, wallet.derivationPath).address);

    const children = await issue(wallet, 3);
    for (const child of children) {
      expect(child.derivationPath).toMatch(/^m\/44'\/195'\/0'\/0\/[1-9]\d*$/);
      const reference = TronWeb.fromMnemonic(mnemonic, child.derivationPath);
      expect(child.address).toBe(reference.address);
      const exported = await h.api('GET', `/v1/wallets/${wallet.id}/addresses/${child.id}?showPrivateKey=true`, { key: wallet.apiKey });
      expect(exported.status, JSON.stringify(exported.body)).toBe(200);
      expect(exported.body.data.privateKey).toBe(reference.privateKey.toLowerCase());
    }
  });

  it("the service's signer lends the child's key for its T… address, and refuses another", async () => {
    const wallet = await createWallet('tron-double');
    const [child, other] = await issue(wallet, 2);
    const index = Number(child!.derivationPath.split('/').pop());
    const digest = new Uint8Array(32).fill(7);
    const sig = await h.services.signer.withKey(wallet.id, index, child!.address, (key) => key.signDigest(digest));
    const recovered = new secp256k1.Signature(sig.r, sig.s).addRecoveryBit(sig.recovery).recoverPublicKey(digest).toRawBytes(false);
    expect(familyOf('tron').codec.fromPublicKey(recovered)).toBe(child!.address);
    await expect(h.services.signer.withKey(wallet.id, index, other!.address, () => 'signed')).rejects.toThrow(/is not the sender/);
  });
});

describe('a chain of the solana family (keys from the seed)', () => {
  it('refuses to create a wallet (422 NOT_SUPPORTED until issue 16) and writes nothing', async () => {
    const count = async () => Number((await sql<{ n: string }>`SELECT count(*) AS n FROM wallets`.execute(h.database.db)).rows[0]!.n);
    const before = await count();
    const res = await h.api('POST', '/v1/wallets', {
      key: h.businessKey,
      body: { blockchain: 'solana-double', network: 'testnet', name: 's' },
    });
    expect(res.status).toBe(422);
    expect(res.body.error).toBe('NOT_SUPPORTED');
    expect(await count()).toBe(before);
  });

  /**
   * A Solana wallet as issue 16 will create it: no account xpub. The wallets table still
   * requires one (wallets_account_xpub_kept, relaxed by issue 16's migration), so this
   * file's own database drops that check and the row is written as the service would.
   */
  async function seedFamilyWallet(): Promise<{ id: string; apiKey: string; address: string; seed: Buffer }> {
    await sql`ALTER TABLE wallets DROP CONSTRAINT IF EXISTS wallets_account_xpub_kept`.execute(h.database.db);
    const { codec, derivation } = familyOf('solana');
    const mnemonic = generateMnemonic();
    const seed = seedFromMnemonic(mnemonic);
    const id = uuidv7();
    const address = codec.fromPublicKey(derivation.publicKeysFromSeed(seed, [0])[0]!);
    await insertWallet(h.database.db, {
      id,
      businessId: h.businessId,
      chainId: h.services.catalogue.findChain('solana-double', 'testnet')!.id,
      name: 'solana',
      description: '',
      address,
      derivationPath: derivation.childPath(0),
      accountXpubSealed: null as unknown as Buffer,
      seedCiphertext: await new LocalKeyVault(h.kek).seal(Buffer.from(mnemonic), WALLET_SEED.associatedData(id)),
      addressLimit: 1000,
      configurations: defaultWalletConfigurations(),
    });
    const { apiKey } = await h.services.apiKeys.issueWalletKey(h.database.db, h.businessId, id, 'testnet');
    return { id, apiKey, address, seed };
  }

  it("issues base58 addresses at m/44'/501'/i'/0', derived from the seed in each issuance batch", async () => {
    const wallet = await seedFamilyWallet();
    const { codec, derivation } = familyOf('solana');
    const expected = (index: number) => codec.fromPublicKey(derivation.publicKeysFromSeed(wallet.seed, [index])[0]!);
    const children = await issue(wallet, 5);
    for (const child of children) {
      const index = Number(/^m\/44'\/501'\/(\d+)'\/0'$/.exec(child.derivationPath)?.[1]);
      expect(index).toBeGreaterThan(0);
      expect(child.address).toBe(expected(index));
    }
    expect(new Set([wallet.address, ...children.map((c) => c.address)]).size).toBe(6);
    wallet.seed.fill(0);
  });

  it('refuses key export (422 NOT_SUPPORTED, issue 16) before anything is written, and has no account xpub', async () => {
    const wallet = await seedFamilyWallet();
    wallet.seed.fill(0);
    const refused = await h.api('POST', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey, body: { showPrivateKey: true } });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe('NOT_SUPPORTED');
    const listed = await h.api('GET', `/v1/wallets/${wallet.id}/addresses`, { key: wallet.apiKey });
    expect(listed.body.analytics.addressesCount).toBe(0);
    const [child] = await issue(wallet, 1);
    const get = await h.api('GET', `/v1/wallets/${wallet.id}/addresses/${child!.id}?showPrivateKey=true`, { key: wallet.apiKey });
    expect(get.status).toBe(422);
    expect(get.body.error).toBe('NOT_SUPPORTED');
    await expect(h.services.wallets.deriver({ id: wallet.id })).rejects.toThrow(/no account xpub/);
  });
});
