/**
 * What configuration knows of the Solana family (config/chains.ts, FamilyConfig), and the
 * chains-file options only Solana chains take, typed on ChainConfig by augmenting
 * FamilyChainOptions.
 */
import { Type, type Static } from '@sinclair/typebox';
import type { FamilyConfig } from '../../config/index.js';
import { SOLANA_CATALOGUE } from './catalogue.js';
import { SOLANA_ACCOUNT_PATH } from './derivation.js';

const Finality = Type.Union([Type.Literal('finalized'), Type.Literal('confirmed')]);
const SweepCloseAccounts = Type.Boolean();

declare module '../../config/chains.js' {
  interface FamilyChainOptions {
    /**
     * Solana chains only: the commitment at which a deposit is final (SUCCESS). 'finalized'
     * (absent): rooted, 32 slots behind the newest, never undone; 'confirmed': a supermajority
     * voted on its block (about a second sooner than rooted, but a dropped fork can still
     * take it away). Either way a deposit is found (PENDING) at `confirmed`.
     */
    finality?: Static<typeof Finality>;
    /**
     * Solana chains only: a sweep that takes a child's whole token balance also closes the
     * child's emptied token account, its rent (2,039,280 lamports) back to the master. Default
     * false: the account stays open, so the next deposit's sender need not create it again.
     */
    sweepCloseAccounts?: Static<typeof SweepCloseAccounts>;
  }
}

export const solanaConfig: FamilyConfig = {
  name: 'solana',
  article: 'a Solana',
  accountPath: SOLANA_ACCOUNT_PATH,
  // SOL is counted in lamports.
  nativeDecimals: 9,
  tokenStandard: 'SPL',
  isEvmCompatible: false,
  // base58 of 32 bytes; the codec checks the length when the adapter is built (index.ts).
  addressPattern: '[1-9A-HJ-NP-Za-km-z]{32,44}',
  options: {
    finality: { schema: Finality, refusal: 'only Solana chains name a commitment (others count confirmations)' },
    sweepCloseAccounts: { schema: SweepCloseAccounts, refusal: 'only Solana chains close token accounts after a sweep' },
  },
  catalogue: SOLANA_CATALOGUE,
};
