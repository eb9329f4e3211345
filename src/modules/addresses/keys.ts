/**
 * Private keys of addresses: what is needed to export one (a child's, derived from the
 * wallet's seed; an imported one, opened from the vault) and to import one for an outside
 * address (`POST .../addresses/whitelist` with `privateKey`).
 *
 * An imported key is sealed by the key vault like the seeds: table `address_keys`, column
 * `key_ciphertext`, registered in keys/sealed-columns.ts (ADDRESS_KEY) so that
 * rotate-master-key re-seals it; its associated data names the address row, so a
 * ciphertext copied onto another row does not open. It is opened only to sign or to
 * export, and wiped after use.
 */
import type { DbConn } from '../../db/pool.js';
import { seedFromMnemonic } from '../../keys/hd.js';
import { keyTextOf } from '../../keys/imported.js';
import { wipe } from '../../keys/secret-bytes.js';
import { ADDRESS_KEY } from '../../keys/sealed-columns.js';
import type { KeyVault } from '../../keys/vault.js';
import { BusinessRuleError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { ChainHandle } from '../catalogue/service.js';
import { keysOfChain, type WalletRow, type WalletService } from '../wallets/service.js';
import * as store from './store.js';

export interface KeyImportPolicy {
  /** Where imported keys are sealed; without it nothing can be imported. */
  vault?: KeyVault;
  /** Whether keys may be imported on mainnet (ALLOW_KEY_IMPORT_MAINNET); testnet always may. */
  importMainnet?: boolean;
}

/** Whether the service holds this address's key: a derived child, or an imported key. */
export function holdsKey(row: store.AddressRow): boolean {
  return (row.type === 'INTERNAL' && row.derivation_index !== null) || row.key_imported;
}

export class AddressKeys {
  constructor(
    private readonly db: DbConn,
    private readonly wallets: WalletService,
    private readonly exportSwitch: { testnet: boolean; mainnet: boolean },
    private readonly policy: KeyImportPolicy,
  ) {}

  /** Whether keys of this chain may leave: the network's switch. */
  exportAllowed(chain: ChainHandle): boolean {
    const network = chain.row.network;
    return network === 'mainnet' ? this.exportSwitch.mainnet : this.exportSwitch.testnet;
  }

  assertExportAllowed(chain: ChainHandle): void {
    const network = chain.row.network;
    if (!this.exportAllowed(chain)) throw new ForbiddenError(`Private key export is switched off for ${network} on this installation`);
  }

  /** Throws unless this address's key may leave now: export switched on, and a key held. */
  assertExportable(chain: ChainHandle, row: store.AddressRow): void {
    this.assertExportAllowed(chain);
    if (!holdsKey(row)) throw new BusinessRuleError('NO_PRIVATE_KEY', 'The service holds no key for an external address');
  }

  /**
   * The key as the family's wallets take it: secp256k1 in hex; ed25519 as the 64-byte
   * secret key (seed || public key) in base58, as ed25519 wallets and key tools
   * export it. The caller has checked and audited the export.
   */
  async reveal(chain: ChainHandle, wallet: WalletRow, row: store.AddressRow): Promise<string> {
    if (row.key_imported) {
      const key = await this.openImported(wallet.id, row.address);
      try {
        return keyTextOf(keysOfChain(chain.config).derivation.curve).write(key);
      } finally {
        key.fill(0);
      }
    }
    // The child's key by the chain family's derivation (the path its row records).
    const { derivation, codec } = keysOfChain(chain.config);
    const mnemonic = await this.wallets.openMnemonicBytes(wallet.id);
    let seed: Buffer | undefined;
    let key: Uint8Array | undefined;
    try {
      seed = seedFromMnemonic(mnemonic);
      key = derivation.privateKeyFromSeed(seed, row.derivation_index!);
      const text = keyTextOf(derivation.curve);
      // Only the address's own key leaves, as the signer only signs for it: a derivation that
      // ever named another key at this index must never hand that key out as this address's.
      if (!codec.equals(codec.fromPublicKey(text.publicKey(key)), row.address)) {
        throw new Error(`the key derived at index ${row.derivation_index} is not the key of address ${row.id}; not exported`);
      }
      return text.write(key);
    } finally {
      wipe(mnemonic, seed, key);
    }
  }

  /**
   * Checks an imported key before anything is written: importing allowed on the wallet's
   * network (403), and the key is the address's (400, naming the field, never the key).
   * Returns its bytes: the caller seals them with `store` and wipes them.
   */
  prepareImport(chain: ChainHandle, address: string, privateKey: string): Uint8Array {
    if (!this.policy.vault) throw new ForbiddenError('Importing private keys is not available on this installation');
    if (chain.row.network === 'mainnet' && !this.policy.importMainnet) {
      throw new ForbiddenError('Importing private keys is switched off for mainnet on this installation');
    }
    const { codec, derivation } = keysOfChain(chain.config);
    // secp256k1: hex; ed25519: as ed25519 wallets export it (keys/imported.ts).
    const text = keyTextOf(derivation.curve);
    const key = text.read(privateKey);
    if (!key) throw new ValidationError(`privateKey is not ${text.accepts}`, [{ field: 'privateKey', message: 'not a valid key' }]);
    const publicKey = text.publicKey(key);
    if (!codec.equals(codec.fromPublicKey(publicKey), address)) {
      key.fill(0);
      throw new ValidationError('privateKey is not the key of address', [
        { field: 'privateKey', message: 'does not derive the given address' },
      ]);
    }
    return key;
  }

  /** Seals the key for the address row and stores it, in the caller's transaction. */
  async store(tx: DbConn, row: { id: string; wallet_id: string; chain_id: string; address: string }, key: Uint8Array): Promise<void> {
    const ciphertext = await this.policy.vault!.seal(key, ADDRESS_KEY.associatedData(row.id), tx);
    await store.insertAddressKey(tx, {
      addressId: row.id,
      walletId: row.wallet_id,
      chainId: row.chain_id,
      address: row.address,
      ciphertext,
    });
  }

  /** The decrypted key the wallet imported for `address` (the signer's source); wipe it after use. */
  async openImported(walletId: string, address: string): Promise<Uint8Array> {
    const row = await store.readAddressKey(this.db, walletId, address);
    if (!row || !this.policy.vault) throw new NotFoundError('Imported key');
    return this.policy.vault.open(row.key_ciphertext, ADDRESS_KEY.associatedData(row.address_id));
  }
}
