/** The Tron family's registration (chains/family.ts): listed in chains/families.ts. */
import { assertTokenAddresses, type ChainFamily } from '../family.js';
import { TronAdapter } from './adapter.js';
import { lowAddressReason } from '../low-address.js';
import { tronCodec, tronEvmHex } from './codec.js';
import { tronConfig } from './config.js';
import { tronDerivation } from './derivation.js';
import { TronNode } from './node.js';

export const tronFamily = {
  name: 'tron' as const,
  codec: tronCodec,
  derivation: tronDerivation(),
  derivationAt: (accountPath) => tronDerivation(accountPath),
  // 0x41 and 20 zero bytes.
  zeroAddress: 'T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb',
  // The TVM keeps the EVM's precompiled contracts at the same low addresses.
  lostAt: (address) => {
    const hex = tronEvmHex(address);
    return hex ? lowAddressReason(hex.slice(2)) : null;
  },
  addressForm: "base58check T… with a valid checksum, or java-tron's hex 41…; an Ethereum 0x address is not a Tron address",
  config: tronConfig,
  adapter(chain) {
    assertTokenAddresses(chain, tronCodec, 'a Tron address (base58check T…)');
    return new TronAdapter(chain, new TronNode(chain.rpcUrl));
  },
} satisfies ChainFamily;
