/**
 * What configuration knows of the Tron family (config/chains.ts, FamilyConfig), and the
 * chains-file option only Tron chains take, typed on ChainConfig by augmenting
 * FamilyChainOptions.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FamilyConfig } from '../../config/index.js';
import { TRON_CATALOGUE } from './catalogue.js';
import { TRON_ACCOUNT_PATH } from './derivation.js';

const SweepFunding = Type.Union([Type.Literal('auto'), Type.Literal('delegate'), Type.Literal('burn')]);

declare module '../../config/chains.js' {
  interface FamilyChainOptions {
    /**
     * Tron chains only: how a child's TRC-20 sweep gets its energy. 'delegate': lent from the
     * master's staked TRX and taken back after; 'burn': TRX sent to the child to burn;
     * 'auto' (absent): delegate when the master can lend enough now and that is the cheaper
     * (the master's two transactions' bandwidth against the energy burned), else burn.
     */
    sweepFunding?: Static<typeof SweepFunding>;
  }
}

export const tronConfig: FamilyConfig = {
  name: 'tron',
  article: 'a Tron',
  accountPath: TRON_ACCOUNT_PATH,
  // TRX is counted in sun.
  nativeDecimals: 6,
  tokenStandard: 'TRC20',
  isEvmCompatible: false,
  // base58check T…; the codec checks the checksum when the adapter is built (index.ts).
  addressPattern: 'T[1-9A-HJ-NP-Za-km-z]{33}',
  options: {
    sweepFunding: { schema: SweepFunding, refusal: 'only Tron chains lend resources to their sweeps' },
  },
  catalogue: TRON_CATALOGUE,
};
