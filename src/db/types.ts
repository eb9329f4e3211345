/**
 * Row types of the tables, for Kysely, under the names the code uses. The types themselves
 * are generated from the migrated schema into generated.ts (`npm run db:types`, checked by
 * codegen.test.ts); numeric and bigint columns are strings there (see pool.ts) and stores
 * turn them into bigint.
 */
export type { DB as Database } from './generated.js';
export type {
  Addresses as AddressesTable,
  ApiKeys as ApiKeysTable,
  Assets as AssetsTable,
  AuditLog as AuditLogTable,
  Blockchains as BlockchainsTable,
  Businesses as BusinessesTable,
  Chains as ChainsTable,
  MasterKeys as MasterKeysTable,
  Transactions as TransactionsTable,
  WalletAssets as WalletAssetsTable,
  Wallets as WalletsTable,
} from './generated.js';
