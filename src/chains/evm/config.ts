/** What configuration knows of the EVM family (config/chains.ts, FamilyConfig). */
import type { FamilyConfig } from '../../config/index.js';
import { EVM_CATALOGUE } from './catalogue.js';
import { EVM_ACCOUNT_PATH } from './derivation.js';

export const evmConfig: FamilyConfig = {
  name: 'evm',
  article: 'an EVM',
  // SLIP-44 coin type 60, shared by every EVM chain (catalogue.ts says why).
  accountPath: EVM_ACCOUNT_PATH,
  nativeDecimals: 18,
  tokenStandard: 'ERC20',
  isEvmCompatible: true,
  addressPattern: '0x[0-9a-fA-F]{40}',
  options: {},
  catalogue: EVM_CATALOGUE,
};
