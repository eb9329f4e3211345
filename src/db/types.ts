/**
 * Row types of the tables in migrations/*.sql, for Kysely. numeric and bigint columns are
 * strings here (see pool.ts); stores turn them into bigint.
 */
import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T = unknown> = ColumnType<T, string | T, string | T>;
type Numeric = ColumnType<string, string | bigint, string | bigint>;
type NullableNumeric = ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;

export interface BlockchainsTable {
  id: string;
  slug: string;
  name: string;
  symbol: string;
  derivation_path: string;
  is_evm_compatible: boolean;
  is_l2: Generated<boolean>;
  logo_url: Generated<string>;
  token_standard: string | null;
  is_active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ChainsTable {
  id: string;
  blockchain_id: string;
  network: string;
  chain_id: Numeric;
  confirmations: number;
  is_active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AssetsTable {
  id: string;
  chain_id: string;
  name: string;
  symbol: string;
  address: string;
  decimals: number;
  standard: string | null;
  is_native: Generated<boolean>;
  currency: string | null;
  logo_url: Generated<string>;
  is_active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface BusinessesTable {
  id: string;
  name: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface WalletsTable {
  id: string;
  business_id: string;
  chain_id: string;
  name: string;
  description: Generated<string>;
  address: string;
  derivation_path: string;
  /** Legacy clear xpub: NULL once sealed at start (016_key_custody.sql). */
  account_xpub: string | null;
  account_xpub_sealed: Buffer | null;
  seed_ciphertext: Buffer;
  next_index: Generated<number>;
  address_limit: number;
  is_active: Generated<boolean>;
  status: Generated<string>;
  configurations: Json<Record<string, unknown>>;
  webhook_url: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ApiKeysTable {
  id: string;
  business_id: string;
  wallet_id: string | null;
  prefix: string;
  key_hash: Buffer;
  key_ciphertext: Buffer;
  created_at: Timestamp;
  revoked_at: Timestamp | null;
  name: Generated<string>;
  scopes: Generated<string[]>;
  rate_limit: number | null;
  last_used_at: Timestamp | null;
}

export interface WalletAssetsTable {
  id: string;
  wallet_id: string;
  asset_id: string;
  is_active: Generated<boolean>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AddressesTable {
  id: string;
  wallet_id: string;
  chain_id: string;
  derivation_index: number | null;
  address: string;
  name: string | null;
  metadata: Json<Record<string, unknown> | null>;
  type: 'INTERNAL' | 'EXTERNAL';
  derivation_path: string | null;
  is_active: Generated<boolean>;
  configurations: Json<Record<string, unknown>>;
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TransactionsTable {
  id: string;
  wallet_id: string;
  address_id: string | null;
  asset_id: string | null;
  chain_id: string;
  reference: string;
  type: string;
  status: string;
  stage: Generated<string>;
  confirmed: Generated<boolean>;
  confirmations: number | null;
  amount: NullableNumeric;
  amount_paid: NullableNumeric;
  amount_usd: string | null;
  currency: string | null;
  rate: string | null;
  rate_usd: string | null;
  to_amount: NullableNumeric;
  to_currency: string | null;
  fee: NullableNumeric;
  fee_hash: string | null;
  fee_metadata: Json | null;
  gas_fee: NullableNumeric;
  gas_price: NullableNumeric;
  gas_used: NullableNumeric;
  hash: string | null;
  log_index: number | null;
  block_hash: string | null;
  block_number: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  sender_address: string | null;
  recipient_address: string | null;
  token_address: string | null;
  note: string | null;
  reason: string | null;
  metadata: Json<Record<string, unknown> | null>;
  network: string;
  created_channel: string | null;
  signed_transaction: Json | null;
  aml_screening: Json | null;
  nonce: ColumnType<string | null, string | bigint | null | undefined, string | bigint | null>;
  raw_transaction: string | null;
  max_fee_per_gas: NullableNumeric;
  max_priority_fee_per_gas: NullableNumeric;
  asset_swept: Generated<boolean>;
  asset_swept_amount: NullableNumeric;
  asset_swept_at: Timestamp | null;
  asset_swept_gas_fee: NullableNumeric;
  asset_swept_hash: string | null;
  asset_swept_recipient_address: string | null;
  asset_swept_sender_address: string | null;
  asset_swept_response: Json | null;
  response: Json | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface AuditLogTable {
  id: string;
  business_id: string | null;
  wallet_id: string | null;
  actor: string;
  action: string;
  target_type: string | null;
  target_id: string | null;
  details: Json | null;
  request_id: string | null;
  created_at: Timestamp;
}

export interface MasterKeysTable {
  id: string;
  kind: 'local' | 'pkcs11';
  state: 'active' | 'retiring' | 'retired';
  created_at: Timestamp;
  activated_at: Date | null;
  retired_at: Date | null;
}

export interface Database {
  blockchains: BlockchainsTable;
  chains: ChainsTable;
  assets: AssetsTable;
  businesses: BusinessesTable;
  wallets: WalletsTable;
  api_keys: ApiKeysTable;
  wallet_assets: WalletAssetsTable;
  addresses: AddressesTable;
  transactions: TransactionsTable;
  audit_log: AuditLogTable;
  master_keys: MasterKeysTable;
}
