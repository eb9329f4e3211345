/** What the policy and approval services are built from (services.ts). */
import type { Changes } from '../../db/changes.js';
import type { Db } from '../../db/pool.js';
import type { Events } from '../../events.js';
import type { Clock } from '../../lib/clock.js';
import type { AddressService } from '../addresses/service.js';
import type { AmlService } from '../aml/service.js';
import type { WalletAssetService } from '../assets/service.js';
import type { AuditService } from '../audit/service.js';
import type { CatalogueService } from '../catalogue/service.js';
import type { RateService } from '../rates/service.js';
import type { TransactionService } from '../transactions/service.js';
import type { WalletService } from '../wallets/service.js';

export interface PolicyDeps {
  db: Db;
  changes: Changes;
  clock: Clock;
  audit: AuditService;
  events: Events;
  wallets: WalletService;
  addresses: AddressService;
  walletAssets: WalletAssetService;
  catalogue: CatalogueService;
  transactions: TransactionService;
  rates?: RateService;
  /** Screens a held payout's recipient again before a vote that may send it. */
  aml?: AmlService;
}
