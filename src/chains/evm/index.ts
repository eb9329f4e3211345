/** The EVM family's registration (chains/family.ts): listed in chains/families.ts. */
import type { ChainFamily } from '../family.js';
import { EvmAdapter } from './adapter.js';
import { evmCodec } from './codec.js';
import { evmConfig } from './config.js';
import { evmDerivation } from './derivation.js';
import { lowAddressReason } from '../low-address.js';

export const evmFamily = {
  name: 'evm' as const,
  codec: evmCodec,
  derivation: evmDerivation(),
  derivationAt: (accountPath) => evmDerivation(accountPath),
  zeroAddress: `0x${'0'.repeat(40)}`,
  lostAt: (address) => lowAddressReason(address.slice(2)),
  addressForm: '0x and 40 hex digits; mixed case must carry a valid EIP-55 checksum',
  config: evmConfig,
  // Token addresses were checked in full by the chains file's pattern and viem's parsing.
  adapter: (chain) => new EvmAdapter(chain),
} satisfies ChainFamily;
