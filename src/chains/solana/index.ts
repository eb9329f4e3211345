/** The Solana family's registration (chains/family.ts): listed in chains/families.ts. */
import { assertTokenAddresses, type ChainFamily } from '../family.js';
import { SolanaAdapter } from './adapter.js';
import { solanaCodec } from './codec.js';
import { solanaConfig } from './config.js';
import { SOLANA_ACCOUNT_PATH, solanaDerivation } from './derivation.js';

export const solanaFamily = {
  name: 'solana' as const,
  codec: solanaCodec,
  derivation: solanaDerivation,
  // Children are m/44'/501'/i'/0' (Phantom's layout), not `accountPath/i`: another path is refused, not ignored.
  derivationAt(accountPath) {
    throw new Error(`Solana derives ${SOLANA_ACCOUNT_PATH}/i'/0'; account path ${accountPath} is not supported`);
  },
  // 32 zero bytes (also the System Program's id).
  zeroAddress: '11111111111111111111111111111111',
  addressForm: 'base58, 32 bytes',
  config: solanaConfig,
  adapter(chain) {
    assertTokenAddresses(chain, solanaCodec, 'a Solana mint address (base58)');
    return new SolanaAdapter(chain);
  },
} satisfies ChainFamily;
