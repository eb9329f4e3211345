/** Child deposit addresses: issuance, listing with analytics, updates, key export. */
import type { Static } from '@sinclair/typebox';
import type { Db, DbConn } from '../../db/pool.js';
import { derivePrivateKey } from '../../keys/hd.js';
import { BusinessRuleError, ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.js';
import { uuidv7 } from '../../lib/ids.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import { assertMayExportKeys, type AuthContext } from '../apikeys/service.js';
import type { AuditService } from '../audit/service.js';
import type { CatalogueService } from '../catalogue/service.js';
import type { WalletRow, WalletService } from '../wallets/service.js';
import { normaliseConfigurations } from '../wallets/service.js';
import { AddressAllocator } from './allocator.js';
import type { AddressSchema, AnalyticsSchema, CreateAddressBody, UpdateAddressBody, WhitelistBody } from './schemas.js';
import * as store from './store.js';

export type AddressView = Static<typeof AddressSchema>;
export type AddressAnalytics = Static<typeof AnalyticsSchema>;
export type AddressRow = store.AddressRow;

const NO_AML = { message: 'No AML provider configured', provider: 'none', status: 'NOT_SCREENED' };

export class AddressService {
  readonly #allocator: AddressAllocator;

  constructor(
    private readonly db: Db,
    private readonly wallets: WalletService,
    private readonly catalogue: CatalogueService,
    private readonly audit: AuditService,
    private readonly keyExport: { testnet: boolean; mainnet: boolean },
  ) {
    this.#allocator = new AddressAllocator(db);
  }

  async create(auth: AuthContext, walletId: string, input: Static<typeof CreateAddressBody>): Promise<AddressView> {
    const wallet = await this.wallets.require(auth, walletId);
    if (!wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
    if (!normaliseConfigurations(wallet.configurations).addresses.isActive) {
      throw new BusinessRuleError('ADDRESSES_DISABLED', "Address creation is switched off in this wallet's configurations");
    }
    const chain = this.wallets.chainOf(wallet);
    const deriver = await this.wallets.deriver(wallet);
    const row = await this.#allocator.allocate(
      {
        walletId,
        chainId: chain.id,
        accountPath: chain.config.blockchain.derivationPath,
        derive: (index) => deriver.address(index),
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
    return this.present(row);
  }

  /**
   * Registers an external address: watched for deposits, counted in the analytics, never
   * swept or exported (no key). Re-adding a removed one brings it back.
   */
  async whitelist(auth: AuthContext, walletId: string, input: Static<typeof WhitelistBody>): Promise<AddressView> {
    const wallet = await this.wallets.require(auth, walletId);
    const chain = this.wallets.chainOf(wallet);
    const address = chain.adapter.normalizeAddress(input.address);
    if (!address) {
      throw new ValidationError(`address is not a valid ${chain.config.blockchain.name} address`, [
        { field: 'address', message: 'invalid address or EIP-55 checksum' },
      ]);
    }
    if (address.toLowerCase() === wallet.address.toLowerCase()) {
      throw new ConflictError('ADDRESS_EXISTS', "This is the wallet's own master address");
    }
    const id = await this.db.transaction().execute(async (tx) => {
      const existing = await store.findAnyByAddress(tx, walletId, address);
      if (existing && existing.deleted_at === null)
        throw new ConflictError('ADDRESS_EXISTS', 'This address is already registered on the wallet');
      // One of the service's own addresses (another wallet's master or child address, this
      // business's or another's): its deposits belong to the wallet holding its key, so it
      // is never watched as external. One answer for all of them, naming no wallet.
      if (await store.isServiceAddress(tx, chain.id, address))
        throw new BusinessRuleError('ADDRESS_NOT_EXTERNAL', 'This address cannot be registered as an external address');
      if (existing) {
        await store.setDeleted(tx, existing.id, false, { name: input.name ?? null, metadata: input.metadata ?? null });
        return existing.id;
      }
      const newId = uuidv7();
      await store.insertAddresses(tx, [
        {
          id: newId,
          walletId,
          chainId: chain.id,
          index: null,
          address,
          name: input.name ?? null,
          metadata: input.metadata ?? null,
          type: 'EXTERNAL',
          derivationPath: null,
          configurations: { aml: NO_AML, disableAutoSweep: true, enableGaslessWithdraw: false },
        },
      ]);
      return newId;
    });
    return this.present(await this.requireRow(walletId, id));
  }

  /** Removes an external address (softly: its deposits keep pointing at it). */
  async removeWhitelisted(auth: AuthContext, walletId: string, addressId: string): Promise<AddressView> {
    await this.wallets.require(auth, walletId);
    const row = await this.requireRow(walletId, addressId);
    if (row.type !== 'EXTERNAL') throw new BusinessRuleError('NOT_EXTERNAL', 'Only external (whitelisted) addresses can be removed');
    await store.setDeleted(this.db, addressId, true);
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
    return {
      items,
      meta: pageMeta(q.page, q.limit, items.length, total),
      analytics: {
        activeAddressesCount: counts.active,
        addressLimit: wallet.address_limit,
        addressesCount: counts.total,
        externalAddressesCount: counts.external,
        inactiveAddressesCount: counts.inactive,
        internalAddressesCount: counts.internal,
      },
    };
  }

  async get(
    auth: AuthContext,
    walletId: string,
    addressId: string,
    opts: { showPrivateKey: boolean; requestId?: string },
  ): Promise<AddressView> {
    const wallet = await this.wallets.require(auth, walletId);
    const row = await this.requireRow(walletId, addressId);
    const view = this.present(row);
    if (!opts.showPrivateKey) return view;
    return { ...view, privateKey: await this.exportKey(auth, wallet, row, opts.requestId) };
  }

  /** The address row of a wallet the caller reaches (for other modules). */
  async require(auth: AuthContext, walletId: string, addressId: string): Promise<{ wallet: WalletRow; address: AddressRow }> {
    const wallet = await this.wallets.require(auth, walletId);
    return { wallet, address: await this.requireRow(walletId, addressId) };
  }

  async update(auth: AuthContext, walletId: string, addressId: string, patch: Static<typeof UpdateAddressBody>): Promise<AddressView> {
    const wallet = await this.wallets.require(auth, walletId);
    await this.requireRow(walletId, addressId);
    await this.db.transaction().execute(async (tx) => {
      const locked = await store.lockAddress(tx, addressId);
      if (!locked) throw new NotFoundError('Address');
      const configurations = patch.configurations ? { ...locked.configurations, ...patch.configurations } : undefined;
      await store.updateAddress(tx, addressId, { ...patch, configurations });
    });
    return this.present(await this.requireRow(walletId, addressId));
  }

  rowsByIds(ids: string[], db: DbConn = this.db): Promise<AddressRow[]> {
    return ids.length ? store.findAddressesByIds(db, ids) : Promise.resolve([]);
  }

  /** An address row by id, without access checks (for presenting a wallet's own records). */
  async findRow(id: string, db: DbConn = this.db): Promise<AddressRow | undefined> {
    return store.findAddressById(db, id);
  }

  /** One of the wallet's addresses by its on-chain form (any letter case). */
  findByAddress(walletId: string, address: string): Promise<AddressRow | undefined> {
    return store.findByAddress(this.db, walletId, address);
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
        aml: conf.aml ?? NO_AML,
        disableAutoSweep: conf.disableAutoSweep ?? false,
        enableGaslessWithdraw: conf.enableGaslessWithdraw ?? false,
        showPrivateKey: row.type === 'INTERNAL' && this.exportAllowed(chain.row.network),
        isActive: row.is_active,
      },
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  private exportAllowed(network: string): boolean {
    return network === 'mainnet' ? this.keyExport.mainnet : this.keyExport.testnet;
  }

  /** Derives the key only now; the export is on the audit trail before the key leaves. */
  private async exportKey(auth: AuthContext, wallet: WalletRow, row: AddressRow, requestId?: string): Promise<string> {
    assertMayExportKeys(auth);
    const chain = this.catalogue.chain(row.chain_id);
    if (!this.exportAllowed(chain.row.network)) {
      throw new ForbiddenError(`Private key export is switched off for ${chain.row.network} on this installation`);
    }
    if (row.type !== 'INTERNAL' || row.derivation_index === null) {
      throw new BusinessRuleError('NO_PRIVATE_KEY', 'The service holds no key for an external address');
    }
    await this.audit.record({
      businessId: wallet.business_id,
      walletId: wallet.id,
      actor: `api-key:${auth.keyId}`,
      action: 'address.private_key_exported',
      targetType: 'address',
      targetId: row.id,
      details: { address: row.address, derivationPath: row.derivation_path },
      ...(requestId ? { requestId } : {}),
    });
    const mnemonic = await this.wallets.openMnemonicBytes(wallet.id);
    try {
      return derivePrivateKey(mnemonic, chain.config.blockchain.derivationPath, row.derivation_index);
    } finally {
      mnemonic.fill(0);
    }
  }

  private async requireRow(walletId: string, addressId: string): Promise<AddressRow> {
    const row = await store.findAddress(this.db, walletId, addressId);
    if (!row) throw new NotFoundError('Address');
    return row;
  }
}
