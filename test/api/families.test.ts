/**
 * Wallets and addresses of a chain configured with another family (chains file `family`):
 * the wallet's master address, its child addresses and their exported keys come from that
 * family's derivation and address format, through HTTP and the real database. The chains
 * are configured only (their adapter is never dialled): issuing addresses and exporting
 * keys need no node.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519 } from '@noble/curves/ed25519';
import { secp256k1 } from '@noble/curves/secp256k1';
import { base58 } from '@scure/base';
import { TronWeb } from 'tronweb';
import { familyOf } from '../../src/chains/family-lookup.js';
import { resolveChain } from '../../src/configuration.js';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { sql } from 'kysely';
import { seedFromMnemonic } from '../../src/keys/hd.js';
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
  it("creates a wallet whose master is the base58 key at m/44'/501'/0'/0', keeping no account xpub", async () => {
    const wallet = await createWallet('solana-double');
    expect(wallet.derivationPath).toBe("m/44'/501'/0'/0'");
    const { codec, derivation } = familyOf('solana');
    const seed = seedFromMnemonic(await h.services.wallets.openMnemonic(wallet.id));
    expect(wallet.address).toBe(codec.fromPublicKey(derivation.publicKeysFromSeed(seed, [0])[0]!));
    seed.fill(0);
    const row = await h.database.db
      .selectFrom('wallets')
      .select(['account_xpub', 'account_xpub_sealed', 'children_from_seed'])
      .where('id', '=', wallet.id)
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ account_xpub: null, account_xpub_sealed: null, children_from_seed: true });
    await expect(h.services.wallets.deriver({ id: wallet.id })).rejects.toThrow(/no account xpub/);
  });

  it("issues base58 addresses at m/44'/501'/i'/0', derived from the seed in each issuance batch", async () => {
    const wallet = await createWallet('solana-double');
    const { codec, derivation } = familyOf('solana');
    const seed = seedFromMnemonic(await h.services.wallets.openMnemonic(wallet.id));
    const expected = (index: number) => codec.fromPublicKey(derivation.publicKeysFromSeed(seed, [index])[0]!);
    const children = await issue(wallet, 5);
    for (const child of children) {
      const index = Number(/^m\/44'\/501'\/(\d+)'\/0'$/.exec(child.derivationPath)?.[1]);
      expect(index).toBeGreaterThan(0);
      expect(child.address).toBe(expected(index));
    }
    expect(new Set([wallet.address, ...children.map((c) => c.address)]).size).toBe(6);
    seed.fill(0);
  });

  it('derives addresses ahead: a run of issuances opens the seed about once per 64 addresses, each address its own derivation', async () => {
    const wallet = await createWallet('solana-double');
    const { codec, derivation } = familyOf('solana');
    const seed = seedFromMnemonic(await h.services.wallets.openMnemonic(wallet.id));
    const expected = (index: number) => codec.fromPublicKey(derivation.publicKeysFromSeed(seed, [index])[0]!);
    // Counts the vault openings issuance makes (the keyring calls the service's method).
    const wallets = h.services.wallets;
    const original = wallets.openMnemonicBytes.bind(wallets);
    let openings = 0;
    wallets.openMnemonicBytes = (id: string) => {
      if (id === wallet.id) openings++;
      return original(id);
    };
    try {
      const children: { address: string; derivationPath: string }[] = [];
      for (let round = 0; round < 15; round++) children.push(...(await issue(wallet, 10)));
      const indexes = children.map((c) => Number(/^m\/44'\/501'\/(\d+)'\/0'$/.exec(c.derivationPath)?.[1]));
      expect([...indexes].sort((a, b) => a - b)).toEqual(Array.from({ length: 150 }, (_, i) => i + 1));
      for (const [k, child] of children.entries()) expect(child.address).toBe(expected(indexes[k]!));
      // 150 addresses: at most one opening per 64 derived ahead (plus the first), not one per batch.
      expect(openings).toBeGreaterThanOrEqual(1);
      expect(openings).toBeLessThanOrEqual(3);
    } finally {
      wallets.openMnemonicBytes = original;
      seed.fill(0);
    }
  });

  it('exports a child key as Solana wallets take it: base58 of the 64-byte secret key (seed || public key)', async () => {
    const wallet = await createWallet('solana-double');
    const [child] = await issue(wallet, 1);
    const got = await h.api('GET', `/v1/wallets/${wallet.id}/addresses/${child!.id}?showPrivateKey=true`, { key: wallet.apiKey });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    const secret = base58.decode(got.body.data.privateKey as string);
    expect(secret.length).toBe(64);
    expect(base58.encode(ed25519.getPublicKey(secret.subarray(0, 32)))).toBe(child!.address);
    expect(base58.encode(secret.subarray(32))).toBe(child!.address);
  });

  it('a bip32 wallet row cannot lose its xpub, nor a seed wallet keep one (wallets_account_xpub_kept)', async () => {
    const tronWallet = await createWallet('tron-double');
    await expect(
      sql`UPDATE wallets SET account_xpub = NULL, account_xpub_sealed = NULL WHERE id = ${tronWallet.id}`.execute(h.database.db),
    ).rejects.toThrow(/wallets_account_xpub_kept/);
    const solanaWallet = await createWallet('solana-double');
    await expect(sql`UPDATE wallets SET account_xpub = 'xpub' WHERE id = ${solanaWallet.id}`.execute(h.database.db)).rejects.toThrow(
      /wallets_account_xpub_kept/,
    );
  });
});
