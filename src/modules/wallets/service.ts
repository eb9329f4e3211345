/**
 * Master wallets: creation (seed, account node, master address, API key), access control
 * by API key scope, presentation and updates.
 */
import type { Static } from '@sinclair/typebox';
import type { Db, DbConn } from '../../db/pool.js';
import type { Changes } from '../../db/changes.js';
import type { TtlCache } from '../../lib/ttl-cache.js';
import type { KeyVault } from '../../keys/vault.js';
import type { ChildAddressDeriver } from '../../chains/types.js';
import { WALLET_SEED } from '../../keys/sealed-columns.js';
import { uuidv7 } from '../../lib/ids.js';
import type { WebhookTargetPolicy } from '../../lib/ssrf.js';
import { BusinessRuleError, NotFoundError } from '../../lib/errors.js';
import { pageMeta, type PageMeta } from '../../lib/schema.js';
import { OPERATOR, type AuthContext, type ApiKeyScope, type ApiKeyService, type Scoped } from '../apikeys/service.js';
import type { CatalogueService, ChainHandle } from '../catalogue/service.js';
import {
  defaultWalletConfigurations,
  mergeConfigurations,
  normaliseConfigurations,
  type WalletConfigurations,
  type WalletConfigurationsPatch,
} from './configurations.js';
import { checkAml, checkContractWrites, requireBusinessKey } from './checks.js';
import { keysOfChain, newWalletKeys, WalletKeyring, type ChildAddresses, type WalletKeys } from './keys.js';
import type { WalletSchema } from './schemas.js';
import * as store from './store.js';

export type WalletView = Static<typeof WalletSchema>;
export type WalletRow = store.WalletRow;
// Other modules read a wallet's stored configurations through this (the house rules).
export { normaliseConfigurations };
// Wallet keys by the chain family (keys.ts), for the address module.
export { keysOfChain, type ChildAddresses, type WalletKeys };
/** The transaction statuses the wallet's analytics count (details.ts; the types are src/transaction-types.ts). */
export { ANALYTICS_STATUSES } from './details.js';

/**
 * What never changes once a wallet exists: enough to check access and read balances.
 * Cached (see `requireRef`), so it deliberately holds no field a PATCH or an address
 * issuance could change.
 */
export type WalletRef = Readonly<Pick<WalletRow, 'id' | 'business_id' | 'chain_id' | 'address'>>;
/** Published when a wallet row changes; every process drops its cached copy. */
export const WALLET_CHANGED = 'wallet';

export interface CreateWalletInput {
  blockchain: string;
  network: 'mainnet' | 'testnet';
  name: string;
  description?: string;
  /** Symbols to enable; default: every token of the chain (not the native coin). */
  assets?: string[];
}

/** A new wallet with its key in clear (shown once) and the key's restrictions. */
export interface CreatedWallet {
  wallet: WalletView;
  apiKey: string;
  apiKeyScopes: ApiKeyScope[];
}

export class WalletService {
  readonly #keys: WalletKeyring;
  readonly #refs: TtlCache<string, WalletRef>;
  #settlementRules: ((walletIds: string[]) => Promise<Map<string, unknown[]>>) | undefined;
  #amlProviders: ((chain: ChainHandle) => string[]) | undefined;
  #details: ((auth: AuthContext, walletId: string, opts?: { created?: boolean }) => Promise<Record<string, unknown>>) | undefined;

  constructor(
    private readonly db: Db,
    private readonly vault: KeyVault,
    private readonly catalogue: CatalogueService,
    private readonly apiKeys: ApiKeyService,
    /** webhookTargets: where webhook URLs may point (lib/ssrf.ts). */
    private readonly defaults: { addressLimit: number; webhookTargets: WebhookTargetPolicy },
    private readonly changes: Changes,
  ) {
    this.#refs = changes.cache('wallets');
    this.#keys = new WalletKeyring(db, vault, catalogue, (id, within) => this.openMnemonicBytes(id, within));
    changes.on(WALLET_CHANGED, (id) => this.#refs.delete(id));
  }

  /**
   * POST /v1/wallets (and the dashboard's form): business-level keys only. The wallet's key
   * inherits the caller's restrictions (apikeys scopesOfNewKey).
   */
  async create(auth: AuthContext, input: CreateWalletInput): Promise<CreatedWallet> {
    requireBusinessKey(auth, 'create wallets');
    return this.#create(auth.businessId, input, auth);
  }

  /**
   * A wallet created by the installation itself (the embedded default's seeding, tools), not
   * by a caller's key: its key is unrestricted, as the business's first key is. Anything
   * acting for a key or a session goes through `create`.
   */
  createForBusiness(businessId: string, input: CreateWalletInput): Promise<CreatedWallet> {
    return this.#create(businessId, input, OPERATOR);
  }

  async #create(businessId: string, input: CreateWalletInput, creator: Scoped): Promise<CreatedWallet> {
    const chain = this.catalogue.findChain(input.blockchain, input.network);
    if (!chain) {
      throw new BusinessRuleError(
        'CHAIN_NOT_AVAILABLE',
        `${input.blockchain} (${input.network}) is not configured on this installation; GET /v1/blockchains lists what is`,
      );
    }
    const assets = pickAssets(chain, input.assets);
    const id = uuidv7();
    const keys = newWalletKeys(this.vault, chain.config, id);

    const key = await this.db
      .transaction()
      .execute(async (tx) => {
        await store.insertWallet(tx, {
          id,
          businessId,
          chainId: chain.id,
          name: input.name,
          description: input.description ?? '',
          // Sealed in the transaction that stores them: a key rotation waits for it (modules/custody).
          ...(await keys.seal(tx)),
          addressLimit: this.defaults.addressLimit,
          configurations: defaultWalletConfigurations(),
        });
        await store.insertWalletAssets(
          tx,
          assets.map((a) => ({ id: uuidv7(), walletId: id, assetId: a.id })),
        );
        return this.apiKeys.issueWalletKey(tx, creator, businessId, id, input.network);
      })
      .finally(() => keys.wipe());
    return {
      wallet: await this.get({ keyId: '', businessId, walletId: id }, id, { created: true }),
      apiKey: key.apiKey,
      apiKeyScopes: key.scopes,
    };
  }

  /** The wallet if the caller's key reaches it; a foreign wallet looks exactly like a missing one. */
  async require(auth: AuthContext, walletId: string, db: DbConn = this.db): Promise<WalletRow> {
    if (auth.walletId !== null && auth.walletId !== walletId) throw new NotFoundError('Wallet');
    const row = await store.findWallet(db, walletId);
    if (!row || row.business_id !== auth.businessId) throw new NotFoundError('Wallet');
    return row;
  }

  /**
   * `require` for hot read paths (balances): the wallet's immutable identity, from memory
   * when recently read. Same access rule, same 404 for a foreign or missing wallet.
   */
  async requireRef(auth: AuthContext, walletId: string): Promise<WalletRef> {
    if (auth.walletId !== null && auth.walletId !== walletId) throw new NotFoundError('Wallet');
    const ref = await this.#ref(walletId);
    if (!ref || ref.business_id !== auth.businessId) throw new NotFoundError('Wallet');
    return ref;
  }

  #ref(walletId: string): Promise<WalletRef | undefined> {
    return this.#refs.getOrLoad(walletId, async () => {
      const row = await store.findWallet(this.db, walletId);
      return row && Object.freeze({ id: row.id, business_id: row.business_id, chain_id: row.chain_id, address: row.address });
    });
  }

  /**
   * For a write that changes whether the wallet may pay out (an asset enabled or disabled):
   * the standing's lock, exclusive, until `tx` commits (store.lockStanding).
   */
  lockStanding(tx: DbConn, walletId: string): Promise<void> {
    return store.lockStanding(tx, walletId, false);
  }

  /**
   * Whether the wallet may pay out, read in the transaction that accepts a payout, under the
   * standing's lock (shared) held until that transaction ends: a deactivation committed
   * before is seen, and one asked meanwhile waits for the payout's COMMIT (store.lockStanding).
   * `row` is the wallet as read then: its `configurations.contractWrites` is bound the same
   * way (update takes the lock exclusive when it changes them), for contract writes.
   */
  async standing(tx: DbConn, walletId: string): Promise<{ isActive: boolean; row: WalletRow | undefined }> {
    await store.lockStanding(tx, walletId, true);
    const row = await store.findWallet(tx, walletId);
    return { isActive: row?.is_active ?? false, row };
  }

  /** The keys of a wallet's chain family (the signer's source; no access check: internal). */
  async keysOf(walletId: string): Promise<WalletKeys> {
    const ref = await this.#ref(walletId);
    if (!ref) throw new NotFoundError('Wallet');
    return keysOfChain(this.catalogue.chain(ref.chain_id).config);
  }

  /** How the wallet's child addresses are derived (address issuance; keys.ts). */
  childAddresses(wallet: Pick<WalletRow, 'id' | 'chain_id'>): Promise<ChildAddresses> {
    return this.#keys.childAddresses(wallet);
  }

  /** The business's first wallet on a chain (the embedded default's demo wallets). */
  async findForBusiness(businessId: string, slug: string, network: string): Promise<WalletView | null> {
    const chain = this.catalogue.findChain(slug, network);
    if (!chain) return null;
    const row = await store.findBusinessWalletOnChain(this.db, businessId, chain.id);
    return row ? this.present(row) : null;
  }

  /** A wallet row by id, without access checks (for presenting its own records). */
  async requireRow(walletId: string, db: DbConn = this.db): Promise<WalletRow> {
    const row = await store.findWallet(db, walletId);
    if (!row) throw new NotFoundError('Wallet');
    return row;
  }

  rowsByIds(ids: string[], db: DbConn = this.db): Promise<WalletRow[]> {
    return ids.length ? store.findWallets(db, ids) : Promise.resolve([]);
  }

  chainOf(wallet: Pick<WalletRow, 'chain_id'>): ChainHandle {
    return this.catalogue.chain(wallet.chain_id);
  }

  /**
   * The wallet's address deriver: its account xpub, opened once per process and kept
   * (bip32 families; keys.ts). A seed family's wallet has none.
   */
  deriver(wallet: Pick<WalletRow, 'id'>, db: DbConn = this.db): Promise<ChildAddressDeriver> {
    return this.#keys.deriver(wallet, db);
  }

  /**
   * The address of the wallet's child `index` (0: the master): derived from the account xpub
   * on bip32 families; on a seed family the stored address (issuance derived it from
   * the seed; signing derives the key again and checks it against this address).
   */
  async addressOf(wallet: Pick<WalletRow, 'id' | 'chain_id' | 'address'>, index: number, db: DbConn = this.db): Promise<string> {
    if (this.#keys.childrenFromSeed(wallet)) {
      const address = index === 0 ? wallet.address : await store.childAddress(db, wallet.id, index);
      if (!address) throw new NotFoundError('Address');
      return address;
    }
    return (await this.#keys.deriver(wallet, db)).address(index);
  }

  /**
   * The wallet's mnemonic as UTF-8 bytes in a buffer of its own: the caller derives from it
   * and zeroes it at once (the signer does).
   */
  async openMnemonicBytes(walletId: string, db: DbConn = this.db): Promise<Buffer> {
    const sealed = await store.readSeedCiphertext(db, walletId);
    if (!sealed) throw new NotFoundError('Wallet');
    return this.vault.open(sealed, WALLET_SEED.associatedData(walletId));
  }

  /** The wallet's mnemonic as a string (tests, tools): prefer openMnemonicBytes, which can be wiped. */
  async openMnemonic(walletId: string): Promise<string> {
    const plain = await this.openMnemonicBytes(walletId);
    try {
      return plain.toString('utf8');
    } finally {
      plain.fill(0);
    }
  }

  present(row: WalletRow): WalletView {
    const chain = this.chainOf(row);
    return {
      id: row.id,
      name: row.name,
      description: row.description,
      address: row.address,
      derivationPath: row.derivation_path,
      network: chain.row.network,
      isActive: row.is_active,
      status: row.status,
      business: {
        id: row.business_id,
        name: row.business_name,
        createdAt: row.business_created_at.toISOString(),
        updatedAt: row.business_updated_at.toISOString(),
      },
      configurations: this.#withAml(normaliseConfigurations(row.configurations), chain),
      blockchain: this.catalogue.blockchainView(chain),
      addressLimit: row.address_limit,
      webhookUrl: row.webhook_url,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    };
  }

  /** Where `configurations.aml.providers` comes from: the AML module registers itself here at wiring. */
  useAmlProviders(source: (chain: ChainHandle) => string[]): void {
    this.#amlProviders = source;
  }

  #withAml(c: WalletConfigurations, chain: ChainHandle): WalletConfigurations {
    const providers = this.#amlProviders?.(chain) ?? [];
    return { ...c, aml: { ...c.aml, providers, provider: providers.join(', ') } };
  }

  /**
   * Where `configurations.autoSettlement.rules` comes from: the auto-settlement module
   * registers itself here at wiring (it depends on wallets, so wallets cannot import it).
   */
  useSettlementRules(source: (walletIds: string[]) => Promise<Map<string, unknown[]>>): void {
    this.#settlementRules = source;
  }

  /** The views with their auto-settlement rules filled in (one query for the whole list). */
  async #withRules(views: WalletView[]): Promise<WalletView[]> {
    if (!this.#settlementRules || views.length === 0) return views;
    const rules = await this.#settlementRules(views.map((v) => v.id));
    for (const view of views)
      view.configurations.autoSettlement.rules = (rules.get(view.id) ?? []) as typeof view.configurations.autoSettlement.rules;
    return views;
  }

  /** What GET and PATCH of one wallet add (details.ts: its assets and analytics); set by services.ts. */
  useDetails(source: (auth: AuthContext, walletId: string, opts?: { created?: boolean }) => Promise<Record<string, unknown>>): void {
    this.#details = source;
  }

  /** `created`: the wallet was made just now from new keys (nothing to read on chain). */
  async get(auth: AuthContext, walletId: string, opts: { created?: boolean } = {}): Promise<WalletView> {
    const [view] = await this.#withRules([this.present(await this.require(auth, walletId))]);
    return this.#details ? { ...view!, ...(await this.#details(auth, walletId, opts)) } : view!;
  }

  async list(auth: AuthContext, page: number, limit: number): Promise<{ items: WalletView[]; meta: PageMeta }> {
    requireBusinessKey(auth, 'list wallets');
    const [rows, total] = await Promise.all([
      store.listWallets(this.db, auth.businessId, (page - 1) * limit, limit),
      store.countWallets(this.db, auth.businessId),
    ]);
    const items = await this.#withRules(rows.map((r) => this.present(r)));
    return { items, meta: pageMeta(page, limit, items.length, total) };
  }

  async update(
    auth: AuthContext,
    walletId: string,
    patch: {
      name?: string;
      description?: string;
      isActive?: boolean;
      configurations?: WalletConfigurationsPatch;
      webhookUrl?: string | null;
    },
  ): Promise<WalletView> {
    const wallet = await this.require(auth, walletId);
    // Checked again at every connection (DNS may change); refusing here gives a clear error early.
    const webhookUrl =
      typeof patch.webhookUrl === 'string'
        ? (await this.defaults.webhookTargets.check(patch.webhookUrl, this.chainOf(wallet).row.network)).toString()
        : patch.webhookUrl;
    await this.changes.transaction(async (tx) => {
      // (De)activating waits for the payouts being accepted (they hold the standing shared)
      // and makes those that follow see it: none is accepted once this is answered. So does
      // a change of the contract-write setting, which contract writes read there too, and of
      // the AML settings, whose fail-closed switch withdrawals read there too.
      if (patch.isActive !== undefined || patch.configurations?.contractWrites !== undefined || patch.configurations?.aml !== undefined) {
        await store.lockStanding(tx, walletId, false);
      }
      // Row lock: two concurrent partial updates of configurations must both land.
      const locked = await store.lockWallet(tx, walletId);
      if (!locked) throw new NotFoundError('Wallet');
      // Deactivating restricts and any key may do it; lifting a deactivation is the business
      // key's, as relaxing contract writes or AML is (checks.ts): otherwise the holder of the
      // wallet's key (a leaked one) reactivates what the business stopped and pays out again.
      // Read under the row lock, so a deactivation committed meanwhile is the one judged.
      if (patch.isActive === true && !locked.is_active) requireBusinessKey(auth, 'reactivate a deactivated wallet');
      const current = normaliseConfigurations(locked.configurations);
      const configurations =
        patch.configurations === undefined
          ? undefined
          : mergeConfigurations(
              current,
              checkAml(auth, current, checkContractWrites(auth, this.chainOf(wallet), current, patch.configurations)),
            );
      await store.updateWallet(tx, walletId, { ...patch, configurations, webhookUrl });
      // Cached refs hold no updatable field; announced anyway, so a field added to WalletRef
      // later cannot go stale silently.
      await this.changes.publish(tx, WALLET_CHANGED, walletId);
    });
    return this.get(auth, walletId);
  }

  /** A new key for the wallet (the old one revoked at once); it inherits the caller's restrictions. */
  async regenerateKey(
    auth: AuthContext,
    walletId: string,
  ): Promise<{ walletId: string; apiKey: string; prefix: string; scopes: ApiKeyScope[] }> {
    requireBusinessKey(auth, "regenerate a wallet's API key");
    const wallet = await this.require(auth, walletId);
    const network = this.chainOf(wallet).row.network;
    // changes.transaction: the new key's creation (every process's unknown-key cache) and the
    // old key's revocation (every process's good-key cache) apply here before we answer.
    const issued = await this.changes.transaction(async (tx) => {
      // Concurrent regenerations queue on the wallet row: otherwise the second cannot see the
      // first's new key to revoke it and fails on the one-live-key index (a 500).
      await store.lockWallet(tx, walletId);
      return this.apiKeys.issueWalletKey(tx, auth, wallet.business_id, walletId, network);
    });
    return { walletId, apiKey: issued.apiKey, prefix: issued.prefix, scopes: issued.scopes };
  }
}

function pickAssets(chain: ChainHandle, symbols: string[] | undefined) {
  const tokens = chain.assets.filter((a) => !a.is_native);
  if (!symbols) return tokens;
  return symbols.map((symbol) => {
    const asset = chain.assets.find((a) => a.symbol.toUpperCase() === symbol.toUpperCase());
    if (!asset) throw new BusinessRuleError('ASSET_NOT_AVAILABLE', `${symbol} is not available on ${chain.key}`);
    return asset;
  });
}
