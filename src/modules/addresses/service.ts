/** Child deposit addresses: issuance, listing with analytics, updates, key export. */
import type { Static } from '@sinclair/typebox';
import { addressFormOf, isZeroAddress } from '../../chains/registry.js';
import { isUniqueViolation, type Db, type DbConn } from '../../db/pool.js';
import { BusinessRuleError, ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import { assertMayExportKeys, type AuthContext } from '../apikeys/service.js';
import type { AuditService } from '../audit/service.js';
import type { CatalogueService, ChainHandle } from '../catalogue/service.js';
import type { WalletRow, WalletService } from '../wallets/service.js';
import { normaliseConfigurations } from '../wallets/service.js';
import { AddressAllocator } from './allocator.js';
import { AddressKeys, holdsKey, type KeyImportPolicy } from './keys.js';
import { mergeTopLevelSettings } from './settings.js';
import type { AddressSchema, AnalyticsSchema, CreateAddressBody, UpdateAddressBody, WhitelistBody } from './schemas.js';
import * as store from './store.js';
import { addressKey } from '../../chains/address-key.js';

export type AddressView = Static<typeof AddressSchema>;
export type AddressAnalytics = Static<typeof AnalyticsSchema>;
export type AddressRow = store.AddressRow;

const NO_AML = { message: 'No AML provider configured', provider: 'none', status: 'NOT_SCREENED' };

export class AddressService {
  readonly #allocator: AddressAllocator;
  #amlProviders: ((chain: ChainHandle) => string[]) | undefined;
  #amlCheck: ((auth: AuthContext, wallet: WalletRow, chain: ChainHandle, address: string) => Promise<void>) | undefined;
  readonly keys: AddressKeys;

  constructor(
    private readonly db: Db,
    private readonly wallets: WalletService,
    private readonly catalogue: CatalogueService,
    private readonly audit: AuditService,
    keyExport: { testnet: boolean; mainnet: boolean },
    keyImport: KeyImportPolicy = {},
  ) {
    this.#allocator = new AddressAllocator(db);
    this.keys = new AddressKeys(db, wallets, keyExport, keyImport);
  }

  async create(auth: AuthContext, walletId: string, input: Static<typeof CreateAddressBody>): Promise<AddressView> {
    const wallet = await this.wallets.require(auth, walletId);
    admitIssuance(wallet);
    const chain = this.wallets.chainOf(wallet);
    // showPrivateKey: refused before anything is written when the key could not leave.
    if (input.showPrivateKey) {
      assertMayExportKeys(auth);
      this.keys.assertExportAllowed(chain);
    }
    const children = await this.wallets.childAddresses(wallet);
    const row = await this.#allocator.allocate(
      {
        walletId,
        chainId: chain.id,
        path: (index) => children.path(index),
        derive: (indexes, tx) => children.addresses(indexes, tx),
        // Again in the issuing transaction, on the row as it stands then.
        admit: admitIssuance,
      },
      {
        name: input.name ?? null,
        metadata: input.metadata ?? null,
        configurations: {
          aml: NO_AML,
          disableAutoSweep: input.disableAutoSweep ?? false,
          enableGaslessWithdraw: input.enableGaslessWithdraw ?? false,
        },
      },
    );
    return this.withKey(auth, wallet, row, input.showPrivateKey);
  }

  /**
   * Registers an external address: watched for deposits and counted in the analytics. With
   * `privateKey` (the address's key) the service holds its key from then on: sealed like
   * the seeds, audited, swept like a child address unless told otherwise, credited to this
   * wallet alone. Re-adding a removed one brings it back.
   */
  async whitelist(auth: AuthContext, walletId: string, input: Static<typeof WhitelistBody>): Promise<AddressView> {
    const wallet = await this.wallets.require(auth, walletId);
    // A deactivated wallet takes no new address, issued or registered (nor a key with one).
    if (!wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
    const chain = this.wallets.chainOf(wallet);
    const address = chain.adapter.normalizeAddress(input.address);
    if (!address) {
      throw new ValidationError(`address is not a valid ${chain.config.blockchain.name} address (${addressFormOf(chain.config)})`, [
        { field: 'address', message: 'invalid address or EIP-55 checksum' },
      ]);
    }
    // Watching the zero (burn, system) address would count every burn as a deposit, and a
    // whitelisted address is a destination: refused like a withdrawal to it.
    if (isZeroAddress(chain.config, address)) {
      throw new ValidationError('address is the zero address; funds sent there are lost', [
        { field: 'address', message: 'is the zero address' },
      ]);
    }
    if (input.showPrivateKey) {
      assertMayExportKeys(auth);
      this.keys.assertExportAllowed(chain);
      if (input.privateKey === undefined) throw new BusinessRuleError('NO_PRIVATE_KEY', 'The service holds no key for an external address');
    }
    // A whitelist entry is screened when saved, as beneficiaries are (422 AML_BLOCKED on a hit).
    await this.#amlCheck?.(auth, wallet, chain, address);
    // Checked (403, 400) before anything is written; wiped once sealed.
    const key = input.privateKey === undefined ? null : this.keys.prepareImport(chain, address, input.privateKey);
    try {
      if (addressKey(address) === addressKey(wallet.address)) {
        throw new ConflictError('ADDRESS_EXISTS', "This is the wallet's own master address");
      }
      const configurations = {
        aml: NO_AML,
        // An address whose key the service holds is swept like a child address by default.
        disableAutoSweep: input.disableAutoSweep ?? key === null,
        enableGaslessWithdraw: input.enableGaslessWithdraw ?? false,
      };
      const id = await this.db.transaction().execute(async (tx) => {
        await store.lockRegistration(tx, walletId, address);
        // Still active, read under the standing's lock (shared, held to the COMMIT), which a
        // deactivation takes exclusive: one answered while this request screened the address
        // or waited for the lock above refuses it, and one asked now waits for this COMMIT.
        if (!(await this.wallets.standing(tx, walletId)).isActive) {
          throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
        }
        const existing = await store.findAnyByAddress(tx, walletId, address);
        if (existing && existing.deleted_at === null)
          throw new ConflictError('ADDRESS_EXISTS', 'This address is already registered on the wallet');
        // One of the service's own addresses (a master or child address, or one whose key a
        // wallet imported; this business's or another's): its deposits belong to the wallet
        // holding its key, so it is never registered again. One answer for all of them,
        // naming no wallet.
        if (await store.isServiceAddress(tx, chain.id, address)) throw notExternal();
        let rowId: string;
        if (existing) {
          await store.setDeleted(tx, existing.id, false, { name: input.name ?? null, metadata: input.metadata ?? null });
          await store.updateAddress(tx, existing.id, { configurations: { ...existing.configurations, ...configurations } });
          rowId = existing.id;
        } else {
          rowId = uuidv7();
          await store.insertAddresses(tx, [
            {
              id: rowId,
              walletId,
              chainId: chain.id,
              index: null,
              address,
              name: input.name ?? null,
              metadata: input.metadata ?? null,
              type: 'EXTERNAL',
              derivationPath: null,
              configurations,
            },
          ]);
        }
        if (key) {
          // Two wallets importing one key at once: the unique index keeps one holder.
          await this.keys.store(tx, { id: rowId, wallet_id: walletId, chain_id: chain.id, address }, key).catch((err: unknown) => {
            throw isUniqueViolation(err, 'address_keys_one_holder') ? notExternal() : err;
          });
          await this.audit.record(
            {
              businessId: wallet.business_id,
              walletId,
              actor: `api-key:${auth.keyId}`,
              action: 'address.private_key_imported',
              targetType: 'address',
              targetId: rowId,
              details: { address },
            },
            tx,
          );
        }
        return rowId;
      });
      return this.withKey(auth, wallet, await this.requireRow(walletId, id), input.showPrivateKey);
    } finally {
      key?.fill(0);
    }
  }

  /**
   * Removes an external address (softly: its deposits keep pointing at it). An imported key
   * is forgotten with it (audited), unless a transaction from the address is still in
   * flight (409 KEY_IN_USE: it may need to be signed again).
   */
  async removeWhitelisted(auth: AuthContext, walletId: string, addressId: string): Promise<AddressView> {
    const wallet = await this.wallets.require(auth, walletId);
    const row = await this.requireRow(walletId, addressId);
    if (row.type !== 'EXTERNAL') throw new BusinessRuleError('NOT_EXTERNAL', 'Only external (whitelisted) addresses can be removed');
    await this.db.transaction().execute(async (tx) => {
      if (!(await store.lockAddress(tx, addressId))) throw new NotFoundError('Address');
      // Read again under the lock: a removal committed meanwhile leaves nothing to remove (404).
      if ((await store.findAddressById(tx, addressId))?.deleted_at !== null) throw new NotFoundError('Address');
      if (row.key_imported) {
        if ((await store.pendingOutboundFrom(tx, walletId, addressId, row.address)) > 0) {
          throw new ConflictError('KEY_IN_USE', 'A transaction from this address is still in flight; remove it once it is final');
        }
        if (await store.deleteAddressKey(tx, addressId)) {
          await this.audit.record(
            {
              businessId: wallet.business_id,
              walletId,
              actor: `api-key:${auth.keyId}`,
              action: 'address.private_key_deleted',
              targetType: 'address',
              targetId: addressId,
              details: { address: row.address },
            },
            tx,
          );
        }
      }
      await store.setDeleted(tx, addressId, true);
    });
    const removed = await store.findAddressById(this.db, addressId);
    return this.present(removed!);
  }

  async list(
    auth: AuthContext,
    walletId: string,
    q: { page: number; limit: number; type?: 'INTERNAL' | 'EXTERNAL'; isActive?: boolean },
  ): Promise<{ items: AddressView[]; meta: PageMeta; analytics: AddressAnalytics }> {
    const wallet = await this.wallets.require(auth, walletId);
    const filter = { type: q.type, isActive: q.isActive };
    const [rows, total, counts] = await Promise.all([
      store.listAddresses(this.db, walletId, filter, (q.page - 1) * q.limit, q.limit),
      store.countAddresses(this.db, walletId, filter),
      store.analytics(this.db, walletId),
    ]);
    const items = rows.map((r) => this.present(r));
    return { items, meta: pageMeta(q.page, q.limit, items.length, total), analytics: presentAnalytics(wallet, counts) };
  }

  /** The address analytics of the list, alone (the wallet's `analytics`). */
  async analytics(auth: AuthContext, walletId: string): Promise<AddressAnalytics> {
    const wallet = await this.wallets.require(auth, walletId);
    return presentAnalytics(wallet, await store.analytics(this.db, walletId));
  }

  async get(
    auth: AuthContext,
    walletId: string,
    addressId: string,
    opts: { showPrivateKey: boolean; requestId?: string },
  ): Promise<AddressView> {
    const wallet = await this.wallets.require(auth, walletId);
    const row = await this.requireRow(walletId, addressId);
    return this.withKey(auth, wallet, row, opts.showPrivateKey, opts.requestId);
  }

  /** The address row of a wallet the caller reaches (for other modules). */
  async require(auth: AuthContext, walletId: string, addressId: string): Promise<{ wallet: WalletRow; address: AddressRow }> {
    const wallet = await this.wallets.require(auth, walletId);
    return { wallet, address: await this.requireRow(walletId, addressId) };
  }

  /**
   * Partial update. The settings may come at the top level (as the described service's
   * clients send them) or in `configurations`; `showPrivateKey: true` answers the key too,
   * checked before anything is written.
   */
  async update(auth: AuthContext, walletId: string, addressId: string, body: Static<typeof UpdateAddressBody>): Promise<AddressView> {
    const { showPrivateKey, ...patch } = mergeTopLevelSettings(body);
    const wallet = await this.wallets.require(auth, walletId);
    const current = await this.requireRow(walletId, addressId);
    if (showPrivateKey) {
      assertMayExportKeys(auth);
      this.keys.assertExportable(this.catalogue.chain(current.chain_id), current);
    }
    if (Object.keys(patch).length > 0) {
      await this.db.transaction().execute(async (tx) => {
        const locked = await store.lockAddress(tx, addressId);
        if (!locked) throw new NotFoundError('Address');
        const configurations = patch.configurations ? { ...locked.configurations, ...patch.configurations } : undefined;
        await store.updateAddress(tx, addressId, { ...patch, configurations });
      });
    }
    return this.withKey(auth, wallet, await this.requireRow(walletId, addressId), showPrivateKey);
  }

  rowsByIds(ids: string[], db: DbConn = this.db): Promise<AddressRow[]> {
    return ids.length ? store.findAddressesByIds(db, ids) : Promise.resolve([]);
  }

  /** An address row by id, without access checks (for presenting a wallet's own records). */
  async findRow(id: string, db: DbConn = this.db): Promise<AddressRow | undefined> {
    return store.findAddressById(db, id);
  }

  /**
   * In the caller's transaction: locks the address row and tells whether the service still
   * holds its key (a removal of an imported one forgets it). A flow that signs from the
   * address later checks this before it is written, so a removal committed first refuses it
   * and one coming after finds it in flight (409 KEY_IN_USE).
   */
  lockKeyHolder(tx: DbConn, addressId: string): Promise<boolean> {
    return store.lockKeyHolder(tx, addressId);
  }

  /** One of the wallet's addresses by its on-chain form (any letter case). */
  findByAddress(walletId: string, address: string): Promise<AddressRow | undefined> {
    return store.findByAddress(this.db, walletId, address);
  }

  /**
   * Whether `address` is one of the wallet's own: a row of it whose key the service holds (a
   * derived child, or an imported key). An outside address registered on the wallet
   * (EXTERNAL, no key) is watched for deposits but is not the wallet's: a payout to it pays
   * someone else.
   */
  async holdsKeyOf(walletId: string, address: string): Promise<boolean> {
    const row = await store.findByAddress(this.db, walletId, address);
    return row !== undefined && holdsKey(row);
  }

  /** Where the AML providers in force on a chain come from: the AML module registers itself here at wiring. */
  useAmlProviders(source: (chain: ChainHandle) => string[]): void {
    this.#amlProviders = source;
  }

  /** The AML screening of a whitelisted address (modules/aml checkPayout), set at wiring: throws AML_BLOCKED / AML_UNAVAILABLE. */
  useAmlCheck(check: (auth: AuthContext, wallet: WalletRow, chain: ChainHandle, address: string) => Promise<void>): void {
    this.#amlCheck = check;
  }

  /** configurations.aml of an address: the providers screening its chain's deposits and payouts (modules/aml). */
  #aml(chain: ChainHandle): AddressView['configurations']['aml'] {
    const providers = this.#amlProviders?.(chain) ?? [];
    if (providers.length === 0) return NO_AML;
    const provider = providers.join(', ');
    return { message: `Deposits and payouts are screened against ${provider}`, provider, status: 'ACTIVE' };
  }

  present(row: AddressRow): AddressView {
    const chain = this.catalogue.chain(row.chain_id);
    const conf = (row.configurations ?? {}) as Partial<AddressView['configurations']>;
    return {
      id: row.id,
      address: row.address,
      name: row.name,
      metadata: (row.metadata as Record<string, unknown> | null) ?? null,
      type: row.type,
      network: chain.row.network,
      derivationPath: row.derivation_path,
      isActive: row.is_active,
      blockchain: this.catalogue.blockchainView(chain),
      configurations: {
        aml: this.#aml(chain),
        disableAutoSweep: conf.disableAutoSweep ?? false,
        enableGaslessWithdraw: conf.enableGaslessWithdraw ?? false,
        showPrivateKey: holdsKey(row) && this.keys.exportAllowed(chain),
        isActive: row.is_active,
      },
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  /** The view, with the key when asked: checked, and on the audit trail before the key leaves. */
  private async withKey(auth: AuthContext, wallet: WalletRow, row: AddressRow, show?: boolean, requestId?: string): Promise<AddressView> {
    const view = this.present(row);
    if (!show) return view;
    assertMayExportKeys(auth);
    const chain = this.catalogue.chain(row.chain_id);
    this.keys.assertExportable(chain, row);
    await this.audit.record({
      businessId: wallet.business_id,
      walletId: wallet.id,
      actor: `api-key:${auth.keyId}`,
      action: 'address.private_key_exported',
      targetType: 'address',
      targetId: row.id,
      details: { address: row.address, derivationPath: row.derivation_path, imported: row.key_imported },
      ...(requestId ? { requestId } : {}),
    });
    return { ...view, privateKey: await this.keys.reveal(chain, wallet, row) };
  }

  private async requireRow(walletId: string, addressId: string): Promise<AddressRow> {
    const row = await store.findAddress(this.db, walletId, addressId);
    if (!row) throw new NotFoundError('Address');
    return row;
  }
}

/** 422 unless the wallet issues child addresses: active, and `configurations.addresses.isActive`. */
function admitIssuance(wallet: { is_active: boolean; configurations: unknown }): void {
  if (!wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
  if (!normaliseConfigurations(wallet.configurations).addresses.isActive) {
    throw new BusinessRuleError('ADDRESSES_DISABLED', "Address creation is switched off in this wallet's configurations");
  }
}

function presentAnalytics(wallet: WalletRow, counts: Awaited<ReturnType<typeof store.analytics>>): AddressAnalytics {
  return {
    activeAddressesCount: counts.active,
    addressLimit: wallet.address_limit,
    addressesCount: counts.total,
    externalAddressesCount: counts.external,
    inactiveAddressesCount: counts.inactive,
    internalAddressesCount: counts.internal,
  };
}

const notExternal = () => new BusinessRuleError('ADDRESS_NOT_EXTERNAL', 'This address cannot be registered as an external address');
