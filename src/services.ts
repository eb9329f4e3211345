/**
 * Wires the modules' services together. Used by the composition root (main.ts) and by
 * the tests, which build the same graph on their own database and devnet.
 */
import type { Db } from './db/pool.js';
import { Changes, type ChangesOptions } from './db/changes.js';
import type { KeyVault } from './keys/vault.js';
import type { AppConfig } from './config/index.js';
import { ApiKeyService, type ApiKeyLimits } from './modules/apikeys/service.js';
import { AuditService } from './modules/audit/service.js';
import { BusinessService } from './modules/businesses/service.js';
import { CatalogueService } from './modules/catalogue/service.js';
import { WalletService } from './modules/wallets/service.js';
import { AddressService } from './modules/addresses/service.js';
import { walletDetails } from './modules/walletdetails/service.js';
import { WalletAssetService } from './modules/assets/service.js';
import { BalanceService } from './modules/balances/service.js';
import { TransactionService } from './modules/transactions/service.js';
import { WebhookService } from './modules/webhooks/service.js';
import { EventFeedService, type StreamSettings } from './modules/eventfeed/service.js';
import { DepositService } from './modules/deposits/service.js';
import { SweepService } from './modules/sweeps/service.js';
import { WithdrawalService } from './modules/withdrawals/service.js';
import { ContractService } from './modules/contracts/service.js';
import { SigningService } from './modules/signing/service.js';
import { AutoSettlementService } from './modules/autosettlements/service.js';
import { SwapService } from './modules/swaps/service.js';
import { StakingService } from './modules/staking/service.js';
import { SalvageService } from './modules/salvage/service.js';
import { SwapApi, type SwapApiOptions } from './modules/swaps/api.js';
import { BeneficiaryService } from './modules/beneficiaries/service.js';
import { SettlementService } from './modules/settlements/service.js';
import { PolicyService } from './modules/policies/service.js';
import { CheckoutService } from './modules/checkouts/service.js';
import { DEFAULT_RATE_SETTINGS, RateService } from './modules/rates/service.js';
import type { RateSettings } from './config/index.js';
import type { IndexerOptions } from './modules/deposits/indexer.js';
import type { AdapterFor } from './chains/registry.js';
import { WebhookSender, type SenderOptions } from './modules/webhooks/sender.js';
import { OutboundService, type OutboundOptions } from './modules/outbound/service.js';
import { LocalSigner, type Signer } from './keys/signer.js';
import { messageSigning } from './chains/messages.js';
import { systemClock, type Clock } from './lib/clock.js';
import { createLogger, type Logger } from './lib/logger.js';
import { WebhookTargetPolicy } from './lib/ssrf.js';
import { Events } from './events.js';
import { subscriptions } from './subscriptions.js';
import { AmlService, httpProvider, type ScreeningProvider } from './modules/aml/service.js';

export interface Services {
  db: Db;
  catalogue: CatalogueService;
  apiKeys: ApiKeyService;
  audit: AuditService;
  businesses: BusinessService;
  wallets: WalletService;
  addresses: AddressService;
  walletAssets: WalletAssetService;
  balances: BalanceService;
  transactions: TransactionService;
  webhooks: WebhookService;
  /** The event feed and its live streams (GET /v1/events, /v1/events/stream). */
  eventFeed: EventFeedService;
  deposits: DepositService;
  sweeps: SweepService;
  withdrawals: WithdrawalService;
  contracts: ContractService;
  signing: SigningService;
  swaps: SwapService;
  staking: StakingService;
  salvage: SalvageService;
  /** Swaps through the API (quotes, execution); `swaps` plans the routes. */
  swapApi: SwapApi;
  autoSettlements: AutoSettlementService;
  beneficiaries: BeneficiaryService;
  settlements: SettlementService;
  /** Transaction policies and approval requests. */
  policies: PolicyService;
  /** Payment links and checkout sessions (docs/checkout.md). */
  checkouts: CheckoutService;
  /** AML screening: lists, providers, payout and deposit checks (modules/aml). */
  aml: AmlService;
  rates: RateService;
  /** The key vault (sealing dashboard users' TOTP secrets). */
  vault: KeyVault;
  signer: Signer;
  outbound: OutboundService;
  /** The event registry; its subscribers are in subscriptions.ts. */
  events: Events;
  clock: Clock;
  /** Cache invalidation across processes (LISTEN/NOTIFY). */
  changes: Changes;
  /** Stops background work; resolves once the last API-key usage times are written. */
  close(): Promise<void>;
}

export interface ServiceOptions {
  clock?: Clock;
  logger?: Logger;
  sender?: SenderOptions;
  outbound?: OutboundOptions;
  indexer?: IndexerOptions;
  /**
   * The database URL, for the connection that LISTENs for cache invalidations. Without it
   * the in-memory caches stay off (nothing could tell this process about other processes' writes).
   */
  databaseUrl?: string;
  /**
   * Cache lifetime and size (db/changes.ts defaults: 5 s, 10,000 entries per cache), and the
   * good API keys' own lifetime (apikeys/service.ts LIVE_KEY_TTL_MS; tests).
   */
  cache?: Pick<ChangesOptions, 'ttlMs' | 'maxEntries'> & { liveKeyTtlMs?: number };
  /** Over `config.rates` (tests: the peg setting, no cache). */
  rates?: Partial<RateSettings>;
  /** A chain's adapter instead of its family's (tests: a test double family); undefined keeps its family's. */
  adapterFor?: AdapterFor;
  /** Swap quotes' lifetime (default 60 s). */
  swaps?: SwapApiOptions;
  /** AML screening providers plugged in besides the configured ones (an HTTP API; tests: a double). */
  amlProviders?: ScreeningProvider[];
  /** Event streams' limits (modules/eventfeed/stream.ts defaults: 15 s heartbeat, 5 per key, 1 MiB buffer). */
  eventStreams?: Partial<StreamSettings>;
}

export async function createServices(
  db: Db,
  vault: KeyVault,
  config: Pick<AppConfig, 'chains' | 'addressLimit' | 'keyExport'> &
    Partial<
      Pick<AppConfig, 'webhookAllowPrivateTargets' | 'rates' | 'keyImportMainnet' | 'webhookCompatSignatureHeader' | 'aml' | 'eventStreams'>
    > & {
      apiLimits?: ApiKeyLimits;
    },
  opts: ServiceOptions = {},
): Promise<Services> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger('silent');
  const catalogue = await CatalogueService.start(db, config.chains, opts.adapterFor);
  const { liveKeyTtlMs, ...cache } = opts.cache ?? {};
  const changes = await Changes.start(db, { connectionString: opts.databaseUrl, logger, ...cache });
  const audit = new AuditService(db);
  const apiKeys = new ApiKeyService(db, vault, changes, {
    audit,
    logger,
    ...(config.apiLimits ? { limits: config.apiLimits } : {}),
    ...(liveKeyTtlMs !== undefined ? { liveKeyTtlMs } : {}),
  });
  const businesses = new BusinessService(db, apiKeys);
  // Webhook targets: checked when a URL is saved (wallets) and at every connection (sender).
  const webhookTargets = new WebhookTargetPolicy({
    allowPrivate: config.webhookAllowPrivateTargets ?? false,
    ...(opts.sender?.resolveAll ? { resolveAll: opts.sender.resolveAll } : {}),
  });
  const wallets = new WalletService(db, vault, catalogue, apiKeys, { addressLimit: config.addressLimit, webhookTargets }, changes);
  const addresses = new AddressService(db, wallets, catalogue, audit, config.keyExport, {
    vault,
    importMainnet: config.keyImportMainnet ?? false,
  });
  const walletAssets = new WalletAssetService(db, wallets, catalogue, changes);
  const rates = new RateService(catalogue, wallets, logger, { ...DEFAULT_RATE_SETTINGS, ...config.rates, ...opts.rates });
  const balances = new BalanceService(wallets, addresses, walletAssets, rates);
  const transactions = new TransactionService(db, catalogue, wallets, addresses);
  const sender = new WebhookSender(webhookTargets, { compatSignatureHeader: config.webhookCompatSignatureHeader ?? true, ...opts.sender });
  const webhooks = new WebhookService(db, clock, vault, wallets, apiKeys, transactions, sender, logger);
  // Modules emit into the registry; who listens is wired once, below (subscriptions.ts).
  const events = new Events();
  // AML screening: the offline lists, the chains' on-chain lists, and any provider plugged in.
  const aml = new AmlService(
    { db, catalogue, wallets, transactions, audit, events, changes, logger },
    {
      ...config.aml,
      providers: [...(config.aml?.http ? [httpProvider(config.aml.http)] : []), ...(opts.amlProviders ?? [])],
    },
  );
  await aml.start();
  wallets.useAmlProviders((chain) => aml.providersOf(chain));
  addresses.useAmlProviders((chain) => aml.providersOf(chain));
  addresses.useAmlCheck(async (auth, wallet, chain, address) => {
    await aml.checkPayout({
      wallet,
      chain,
      recipients: [{ address, field: 'address' }],
      operation: 'address-whitelist',
      actor: `api-key:${auth.keyId}`,
    });
  });
  const deposits = new DepositService(db, wallets, addresses, transactions, webhooks, events, logger, opts.indexer);
  deposits.useRates(rates);
  deposits.useAml(aml);
  // The signer is handed each wallet's family keys and the families' message standards.
  const signer = new LocalSigner((walletId) => wallets.openMnemonicBytes(walletId), {
    keysOf: (walletId) => wallets.keysOf(walletId),
    messages: messageSigning,
    openImported: (walletId, address) => addresses.keys.openImported(walletId, address),
  });
  const outbound = new OutboundService(db, catalogue, wallets, signer, events, logger, opts.outbound);
  const policies = new PolicyService({
    db,
    changes,
    clock,
    audit,
    events,
    wallets,
    addresses,
    walletAssets,
    catalogue,
    transactions,
    rates,
    aml,
  });
  const moduleDeps = {
    db,
    clock,
    logger,
    signer,
    catalogue,
    wallets,
    addresses,
    walletAssets,
    transactions,
    webhooks,
    outbound,
    rates,
    policies,
    aml,
  };
  const withdrawals = new WithdrawalService(moduleDeps);
  const sweeps = new SweepService(db, catalogue, wallets, addresses, outbound, transactions, withdrawals, webhooks, events, logger);
  const contracts = new ContractService(moduleDeps, withdrawals);
  const signing = new SigningService(moduleDeps, withdrawals);
  const swaps = new SwapService(catalogue, logger);
  const autoSettlements = new AutoSettlementService(moduleDeps, sweeps, swaps, withdrawals);
  const staking = new StakingService(moduleDeps, withdrawals);
  // Recoveries reach chains named by an RPC URL under the webhook targets' rule (lib/ssrf.ts).
  const salvage = new SalvageService({ ...moduleDeps, targets: webhookTargets }, withdrawals);
  const swapApi = new SwapApi(moduleDeps, swaps, withdrawals, opts.swaps);
  wallets.useSettlementRules((ids) => autoSettlements.walletRules(ids));
  wallets.useDetails(walletDetails({ walletAssets, addresses, transactions, balances, catalogue, rates }));
  const beneficiaries = new BeneficiaryService(db, clock, wallets, addresses, audit, aml, policies);
  // Deposits an auto-settlement rule takes are the rule's, not the settlement beneficiary's (autoSettlements).
  const settlements = new SettlementService({
    db,
    clock,
    logger,
    wallets,
    walletAssets,
    transactions,
    withdrawals,
    beneficiaries,
    autoSettlements,
  });
  // Who reacts to what: outbound transactions signed, settled and confirmed; deposits
  // confirmed and sweeps completed (the treasury work that follows runs as jobs).
  const checkouts = new CheckoutService(db, clock, catalogue, wallets, walletAssets, addresses, webhooks, logger);
  events.wire(subscriptions({ withdrawals, contracts, sweeps, autoSettlements, settlements, checkouts, staking, salvage, swapApi }));
  const eventFeed = new EventFeedService(
    { db, clock, logger, changes, wallets, walletAssets, transactions, webhooks },
    { ...config.eventStreams, ...opts.eventStreams },
  );
  return {
    db,
    catalogue,
    apiKeys,
    audit,
    businesses,
    wallets,
    addresses,
    walletAssets,
    balances,
    transactions,
    webhooks,
    eventFeed,
    deposits,
    sweeps,
    withdrawals,
    contracts,
    signing,
    swaps,
    staking,
    salvage,
    swapApi,
    autoSettlements,
    beneficiaries,
    settlements,
    policies,
    checkouts,
    aml,
    rates,
    vault,
    signer,
    outbound,
    events,
    clock,
    changes,
    close() {
      eventFeed.closeAll('shutdown');
      const usage = apiKeys.close();
      aml.close();
      changes.close();
      signer.clear();
      sender.close();
      catalogue.close();
      return usage;
    },
  };
}
