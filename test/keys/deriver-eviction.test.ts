/**
 * The opened account xpubs a process keeps (modules/wallets/keys.ts, WalletKeyring) are
 * wiped when they leave the cache (past MAX_DERIVERS wallets). Issuance takes a wallet's
 * deriver before it waits for its batch and its transaction: if the deriver is wiped in the
 * meantime, the addresses it derives must still be the wallet's, never addresses from a
 * zeroed chain code that no key of the wallet signs for.
 */
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mnemonicToAccount } from 'viem/accounts';
import { evmDerivation } from '../../src/chains/evm/derivation.js';
import { generateMnemonic, seedFromMnemonic, PublicKeyDeriver } from '../../src/keys/hd.js';
import { LocalKeyVault } from '../../src/keys/vault.js';
import { WalletKeyring } from '../../src/modules/wallets/keys.js';
import type { CatalogueService } from '../../src/modules/catalogue/service.js';
import type { Db } from '../../src/db/pool.js';

const derivation = evmDerivation();
const mnemonic = generateMnemonic();
const xpub = derivation.accountXpub!(seedFromMnemonic(mnemonic));
const other = derivation.accountXpub!(seedFromMnemonic(generateMnemonic()));

/** Just enough of the database for WalletKeyring: readAccountXpub of any wallet (in clear, as before 016). */
const db = {
  isTransaction: false,
  selectFrom: () => ({
    select: () => ({
      where: (_c: string, _o: string, id: string) => ({
        executeTakeFirst: async () => ({ chain_id: 'evm', account_xpub: id === 'target' ? xpub : other, account_xpub_sealed: null }),
      }),
    }),
  }),
} as unknown as Db;
const catalogue = {
  chain: () => ({ config: { blockchain: { family: 'evm', derivationPath: derivation.accountPath } } }),
} as unknown as CatalogueService;

describe('a kept deriver wiped while issuance holds it', () => {
  it("still derives the wallet's own addresses (or refuses), never another's", async () => {
    const keyring = new WalletKeyring(db, new LocalKeyVault(randomBytes(32)), catalogue, async () => {
      throw new Error('no seed is opened on a bip32 family');
    });
    const children = await keyring.childAddresses({ id: 'target', chain_id: 'evm' });
    // Ten thousand other wallets issue meanwhile: the target's deriver leaves the cache (wiped).
    for (let i = 0; i < 10_001; i++) await keyring.deriver({ id: `w${i}` });
    await new Promise((r) => setTimeout(r, 0));

    const expected = [1, 2, 3].map((i) => mnemonicToAccount(mnemonic, { addressIndex: i }).address);
    const got = await children.addresses([1, 2, 3]).catch((err: Error) => err);
    if (got instanceof Error) expect(got.message).toMatch(/wiped/);
    else expect(got).toEqual(expected);
    // And once asked again, the wallet's addresses.
    expect(await (await keyring.childAddresses({ id: 'target', chain_id: 'evm' })).addresses([1, 2, 3])).toEqual(expected);
  }, 120_000);

  it('a wiped PublicKeyDeriver refuses instead of deriving from a zeroed chain code', () => {
    const deriver = new PublicKeyDeriver(xpub);
    const before = Buffer.from(deriver.publicKey(5)).toString('hex');
    deriver.wipe();
    let after: string | Error;
    try {
      after = Buffer.from(deriver.publicKey(5)).toString('hex');
    } catch (err) {
      after = err as Error;
    }
    expect(after).toBeInstanceOf(Error);
    expect(after).not.toBe(before);
  });
});
