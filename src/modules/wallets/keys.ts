/**
 * A wallet's keys by its chain's family (chains/families.ts through chains/registry.ts): the
 * opened account xpubs that issue bip32 children without the seed, and the seed path of a
 * family whose children need it (childKeysFrom 'seed'). WalletService creates one and delegates to it;
 * a new wallet's keys are made and sealed here (`newWalletKeys`).
 */
import type { Db, DbConn } from '../../db/pool.js';
import { derivationOfChain, familyOfChain } from '../../chains/registry.js';
import type { AddressCodec, ChildAddressDeriver, KeyDerivation } from '../../chains/types.js';
import type { ChainConfig } from '../../config/index.js';
import { generateMnemonic, seedFromMnemonic, WipedDeriverError } from '../../keys/hd.js';
import { WALLET_SEED, WALLET_XPUB } from '../../keys/sealed-columns.js';
import { secretFromString, wipe } from '../../keys/secret-bytes.js';
import type { KeyVault } from '../../keys/vault.js';
import { BusinessRuleError, NotFoundError } from '../../lib/errors.js';
import type { CatalogueService } from '../catalogue/service.js';
import * as store from './store.js';

/** A wallet's keys: its chain family's derivation (at the chain's account path) and address codec. */
export interface WalletKeys {
  derivation: KeyDerivation;
  codec: AddressCodec;
}

/** How a wallet's child addresses are issued (modules/addresses allocates the indexes). */
export interface ChildAddresses {
  /** The derivation path of child `index` (stored on the address row). */
  path(index: number): string;
  /**
   * The addresses of `indexes`, in order: from the opened account xpub on bip32 families;
   * on a seed family from the seed, opened once for the whole call and zeroed (read on
   * `within`, the caller's open transaction: the issuing one holds the wallet row).
   */
  addresses(indexes: readonly number[], within?: DbConn): Promise<string[]>;
}

/** The keys of a configured chain's family. */
export function keysOfChain(chain: ChainConfig): WalletKeys {
  return { derivation: derivationOfChain(chain), codec: familyOfChain(chain).codec };
}

/** A new wallet's key material as stored: the sealed mnemonic, the sealed account xpub (bip32 families), its master address. */
export type NewWalletKeys = Pick<
  store.NewWallet,
  'address' | 'derivationPath' | 'accountXpubSealed' | 'childrenFromSeed' | 'seedCiphertext'
>;

/**
 * A new wallet's keys, made and not yet sealed: its master address and derivation, and
 * `seal(tx)`, which seals the mnemonic (and the account xpub) inside the transaction that
 * inserts the wallet row, so a rotation of the master key cannot retire the key they are
 * sealed under before the row is committed (modules/custody). `wipe()` zeroes the secrets;
 * the caller calls it once the row is written or abandoned.
 */
export interface PreparedWalletKeys {
  address: string;
  derivationPath: string;
  childrenFromSeed: boolean;
  seal(tx: DbConn): Promise<NewWalletKeys>;
  wipe(): void;
}

/** A new mnemonic for wallet `id` on `chain`, with its master address: see PreparedWalletKeys. */
export function newWalletKeys(vault: KeyVault, chain: ChainConfig, id: string): PreparedWalletKeys {
  const { derivation, codec } = keysOfChain(chain);
  const fromSeed = derivation.childKeysFrom === 'seed';
  // The mnemonic as bytes of their own, zeroed once sealed (the generator's string cannot be).
  const mnemonic = secretFromString(generateMnemonic());
  let xpub: Buffer | undefined;
  let seed: Buffer | undefined;
  let address: string;
  try {
    seed = seedFromMnemonic(mnemonic);
    if (fromSeed) {
      // A seed family (children from the seed: derivation.childKeysFrom) keeps no xpub: its addresses come from the seed (issuance).
      address = codec.fromPublicKey(derivation.publicKeysFromSeed(seed, [0])[0]!);
    } else {
      // bip32: the account node's xpub is stored (sealed); children come from it, never the seed.
      const xpubText = derivation.accountXpub!(seed);
      xpub = secretFromString(xpubText);
      const account = derivation.openAccount!(xpubText);
      try {
        address = account.address(0);
      } finally {
        account.wipe();
      }
    }
  } catch (err) {
    wipe(mnemonic, xpub, seed);
    throw err;
  }
  seed.fill(0);
  const derivationPath = derivation.childPath(0);
  return {
    address,
    derivationPath,
    childrenFromSeed: fromSeed,
    async seal(tx) {
      const seedCiphertext = await vault.seal(mnemonic, WALLET_SEED.associatedData(id), tx);
      const accountXpubSealed = xpub ? await vault.seal(xpub, WALLET_XPUB.associatedData(id), tx) : null;
      return { address, derivationPath, accountXpubSealed, childrenFromSeed: fromSeed, seedCiphertext };
    },
    wipe: () => wipe(mnemonic, xpub),
  };
}

/** Wallets whose opened account xpub a process keeps (the least recently used goes first). */
const MAX_DERIVERS = 10_000;
/**
 * A seed family's issuance derives this many addresses past the highest it was asked for,
 * from the same vault opening, and keeps them for the next requests: one opening (AES-GCM,
 * BIP-39's PBKDF2, the SLIP-0010 prefix) then serves a run of issuances instead of each.
 */
const SEED_LOOKAHEAD = 64;
/** Child indexes of a seed family are hardened: below 2^31. */
const HARDENED_LIMIT = 0x80000000;
/** Wallets whose derived-ahead addresses a process keeps (the least recently used goes first). */
const MAX_LOOKAHEAD_WALLETS = 1_000;

export class WalletKeyring {
  /**
   * Opened account xpubs, parsed: deriving a child address costs one point operation and
   * no decryption. The xpub is sealed in the database (a clear xpub plus one exported
   * child key gives the account's private key), so it exists in clear only here.
   */
  readonly #derivers = new Map<string, Promise<ChildAddressDeriver>>();
  /** The kept openings that have finished (deriver: what a caller inside a transaction may wait on). */
  readonly #opened = new WeakSet<Promise<ChildAddressDeriver>>();
  /**
   * A seed family's addresses derived ahead, by wallet then index. Only public keys, as an
   * xpub's children are: unlike the xpub, no set of them and one child key gives away
   * another key, so nothing here needs sealing. An index is dropped once handed out (the
   * allocator issues each once; a retry derives it again).
   */
  readonly #ahead = new Map<string, Map<number, string>>();

  constructor(
    private readonly db: Db,
    private readonly vault: KeyVault,
    private readonly catalogue: CatalogueService,
    /** The wallet's mnemonic as bytes of their own (WalletService.openMnemonicBytes). */
    private readonly openMnemonicBytes: (walletId: string, db?: DbConn) => Promise<Buffer>,
  ) {}

  /** Whether the wallet's children come from the seed (a seed family), not an account xpub. */
  childrenFromSeed(wallet: { chain_id: string }): boolean {
    return keysOfChain(this.catalogue.chain(wallet.chain_id).config).derivation.childKeysFrom === 'seed';
  }

  /** How the wallet's child addresses are derived (address issuance). */
  async childAddresses(wallet: { id: string; chain_id: string }, db: DbConn = this.db): Promise<ChildAddresses> {
    const { derivation, codec } = keysOfChain(this.catalogue.chain(wallet.chain_id).config);
    const path = (index: number) => derivation.childPath(index);
    if (derivation.childKeysFrom === 'account-xpub') {
      // Opened (or found kept) now, so a missing or unreadable xpub fails before issuance.
      await this.deriver(wallet, db);
      return {
        path,
        // Taken again when the batch derives: a deriver held since (issuance waits for its
        // batch and the wallet's row) may have left the cache and been wiped meanwhile.
        addresses: async (indexes, within) => {
          for (let attempt = 0; ; attempt++) {
            const deriver = await this.deriver(wallet, within ?? db);
            try {
              return indexes.map((i) => deriver.address(i));
            } catch (err) {
              if (err instanceof WipedDeriverError && attempt < 3) continue;
              throw err;
            }
          }
        },
      };
    }
    // A seed family (chains/types.ts, KeyDerivation): one vault opening per call that asks
    // for an address not derived ahead, i.e. about once per SEED_LOOKAHEAD issuances;
    // nothing secret outlives the call.
    return {
      path,
      addresses: async (indexes, within) => {
        const ahead = this.#aheadOf(wallet.id);
        const missing = indexes.filter((i) => !ahead.has(i));
        if (missing.length > 0) {
          const top = Math.max(...indexes);
          const extra = Array.from({ length: SEED_LOOKAHEAD }, (_, k) => top + 1 + k).filter(
            (i) => i < HARDENED_LIMIT && !ahead.has(i) && !missing.includes(i),
          );
          const wanted = [...missing, ...extra];
          const mnemonic = await this.openMnemonicBytes(wallet.id, within);
          let seed: Buffer | undefined;
          try {
            seed = seedFromMnemonic(mnemonic);
            const keys = derivation.publicKeysFromSeed(seed, wanted);
            wanted.forEach((i, k) => ahead.set(i, codec.fromPublicKey(keys[k]!)));
          } finally {
            wipe(mnemonic, seed);
          }
        }
        return indexes.map((i) => {
          const address = ahead.get(i)!;
          ahead.delete(i);
          return address;
        });
      },
    };
  }

  /** The wallet's derived-ahead addresses, made most recently used; the oldest wallet's dropped past the cap. */
  #aheadOf(walletId: string): Map<number, string> {
    const hit = this.#ahead.get(walletId) ?? new Map<number, string>();
    this.#ahead.delete(walletId);
    this.#ahead.set(walletId, hit);
    while (this.#ahead.size > MAX_LOOKAHEAD_WALLETS) this.#ahead.delete(this.#ahead.keys().next().value!);
    return hit;
  }

  /**
   * The wallet's address deriver: its account xpub, opened once per process and kept
   * (bip32 families). A seed family's wallet has none: its addresses are the
   * stored rows (issuance derives them from the seed, `childAddresses`). Its first opening
   * reads on `db`: the caller's transaction when it has one open (a second connection asked
   * of the pool from inside a transaction can wait for ever, db/pool.ts).
   */
  deriver(wallet: { id: string }, db: DbConn = this.db): Promise<ChildAddressDeriver> {
    const hit = this.#derivers.get(wallet.id);
    // A caller inside a transaction takes only a finished opening: waiting on another caller's
    // read (on the pool, or on that caller's transaction) would keep its own transaction's
    // connection waiting on a connection it does not hold, or hand it another's error.
    if (hit && (!db.isTransaction || this.#opened.has(hit))) {
      this.#derivers.delete(wallet.id);
      this.#derivers.set(wallet.id, hit); // re-inserted: Map order is the LRU order
      return hit;
    }
    const opening = this.#openDeriver(wallet.id, db);
    if (db.isTransaction) {
      // Its own, on its transaction; kept for everyone once finished, unless one is by then.
      void opening.then(
        () => {
          if (!this.#derivers.has(wallet.id)) this.#keep(wallet.id, opening);
        },
        () => undefined,
      );
      return opening;
    }
    this.#keep(wallet.id, opening);
    // A failure (vault unavailable) is not remembered.
    opening.catch(() => {
      if (this.#derivers.get(wallet.id) === opening) this.#derivers.delete(wallet.id);
    });
    return opening;
  }

  #keep(walletId: string, opening: Promise<ChildAddressDeriver>): void {
    this.#derivers.set(walletId, opening);
    void opening.then(
      () => this.#opened.add(opening),
      () => undefined,
    );
    while (this.#derivers.size > MAX_DERIVERS) {
      const oldest = this.#derivers.keys().next().value!;
      void this.#derivers.get(oldest)!.then(
        (d) => d.wipe(),
        () => undefined,
      );
      this.#derivers.delete(oldest);
    }
  }

  async #openDeriver(walletId: string, db: DbConn): Promise<ChildAddressDeriver> {
    const row = await store.readAccountXpub(db, walletId);
    if (!row) throw new NotFoundError('Wallet');
    const { derivation } = keysOfChain(this.catalogue.chain(row.chain_id).config);
    if (derivation.childKeysFrom !== 'account-xpub') {
      throw new BusinessRuleError(
        'NOT_SUPPORTED',
        `${derivation.family} wallets have no account xpub: their addresses are read from the stored rows (issue 16)`,
      );
    }
    if (!row.account_xpub_sealed) return derivation.openAccount!(row.account_xpub!); // not upgraded yet (custody seals it at start)
    const plain = await this.vault.open(row.account_xpub_sealed, WALLET_XPUB.associatedData(walletId));
    try {
      return derivation.openAccount!(plain.toString('utf8'));
    } finally {
      plain.fill(0);
    }
  }
}
