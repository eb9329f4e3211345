/** What the withdrawal, contract and signing services are built from (see services.ts). */
import type { Db } from '../db/pool.js';
import type { Clock } from '../lib/clock.js';
import type { Logger } from '../lib/logger.js';
import type { Signer } from '../keys/signer.js';
import type { AddressService } from './addresses/service.js';
import type { WalletAssetService } from './assets/service.js';
import type { CatalogueService } from './catalogue/service.js';
import type { OutboundService } from './outbound/service.js';
import type { RateService } from './rates/service.js';
import type { TransactionService } from './transactions/service.js';
import type { WalletService } from './wallets/service.js';
import type { WebhookService } from './webhooks/service.js';
import type { AmlService } from './aml/service.js';

export interface ModuleDeps {
  db: Db;
  clock: Clock;
  logger: Logger;
  signer: Signer;
  catalogue: CatalogueService;
  wallets: WalletService;
  addresses: AddressService;
  walletAssets: WalletAssetService;
  transactions: TransactionService;
  webhooks: WebhookService;
  outbound: OutboundService;
  /** USD rates for `amountUSD` / `rateUSD` (absent: none recorded). */
  rates?: RateService;
  /** AML screening of payout recipients (absent: none screened; services.ts always gives it). */
  aml?: AmlService;
}
