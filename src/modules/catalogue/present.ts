/** Spec shapes of Blockchain and Asset. */
import type { AssetRow, BlockchainRow, ChainRow } from './store.js';

export interface BlockchainView {
  id: string;
  name: string;
  slug: string;
  symbol: string;
  derivationPath: string;
  isActive: boolean;
  isEvmCompatible: boolean;
  isL2: boolean;
  logoUrl: string;
  tokenStandard: string | null;
  createdAt: string;
  updatedAt: string;
}

export function presentBlockchain(row: BlockchainRow): BlockchainView {
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    symbol: row.symbol,
    derivationPath: row.derivation_path,
    isActive: row.is_active,
    isEvmCompatible: row.is_evm_compatible,
    isL2: row.is_l2,
    logoUrl: row.logo_url,
    tokenStandard: row.token_standard,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

export function presentChainBlockchain(row: ChainRow): BlockchainView {
  return {
    id: row.blockchain_id,
    name: row.blockchain_name,
    slug: row.slug,
    symbol: row.blockchain_symbol,
    derivationPath: row.derivation_path,
    isActive: row.blockchain_is_active,
    isEvmCompatible: row.is_evm_compatible,
    isL2: row.is_l2,
    logoUrl: row.blockchain_logo_url,
    tokenStandard: row.token_standard,
    createdAt: row.blockchain_created_at.toISOString(),
    updatedAt: row.blockchain_updated_at.toISOString(),
  };
}

export interface AssetView {
  id: string;
  name: string;
  symbol: string;
  address: string;
  decimals: number;
  standard: string | null;
  network: string;
  isActive: boolean;
  isNative: boolean;
  currency: string | null;
  logoUrl: string;
  blockchain: BlockchainView;
  createdAt: string;
  updatedAt: string;
}

export function presentAsset(row: AssetRow, chain: ChainRow): AssetView {
  return {
    id: row.id,
    name: row.name,
    symbol: row.symbol,
    address: row.address,
    decimals: row.decimals,
    standard: row.standard,
    network: chain.network,
    isActive: row.is_active,
    isNative: row.is_native,
    currency: row.currency,
    logoUrl: row.logo_url,
    blockchain: presentChainBlockchain(chain),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
