/**
 * What a new chain family must implement, checked by the type-checker (`npx tsc --noEmit`,
 * run by CI): the EVM family and the ledger test double (test/support/ledger-family.ts)
 * satisfy the seam of src/chains/types.ts, and the lists below name every member of it.
 * A member added to the seam breaks this file until the list (and docs/architecture.md,
 * "Adding a chain family") says what it is; one missing from a family breaks the family.
 *
 * A family supplies (src/chains/<family>/):
 * - a ChainAdapter: `config`, `normalizeAddress`, `getBalances`, `getBlockNumber`,
 *   `getBlock`, `scan`, `transfersOfTransaction` (deposits), `sender`, `broadcast`
 *   (refusals as ChainRejectedError with a reason, src/chains/errors.ts), `getReceipt`,
 *   `encodeTokenTransfer`, `close`, token metadata and prices (`readTokenDecimals`,
 *   `readPriceFeed`), contracts and typed data (`encodeContractCall`, `readContract`,
 *   `simulateContractCall`, `describeTokenCall`, `getAllowances`, `prepareTypedData`,
 *   optional `prepareMessage`); a family without a feature throws a clear error there;
 * - its Sender, the family's side of the outbound lifecycle: `ordering`, `nonceOf`,
 *   `quote`, `quoteAll`, `requote`, `voidCall`, `fixedNetwork`, `prepare`,
 *   `sign` (with the SigningKey the signer lends), `replacementNetwork`, `costOf`,
 *   `feeFields`, `findLanded`, `hasExpired` ('expiry' families); its transaction fields
 *   live in opaque NetworkData.
 */
import { describe, expect, it } from 'vitest';
import type { ChainAdapter, Sender } from '../../src/chains/types.js';
import { EvmAdapter } from '../../src/chains/evm/adapter.js';
import { EvmSender } from '../../src/chains/evm/sender.js';
import { TronAdapter } from '../../src/chains/tron/adapter.js';
import { TronSender } from '../../src/chains/tron/sender.js';
import { LedgerAdapter, LedgerChain, LedgerSender, ledgerChainConfig } from '../support/ledger-family.js';

/** Compiles only when A is assignable to B. */
type Satisfies<A extends B, B> = A;
/** true only when the two unions are the same. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <T extends true>(v: T) => v;

// The EVM family keeps the seam.
export type EvmAdapterIsAFamily = Satisfies<EvmAdapter, ChainAdapter>;
export type EvmSenderIsASender = Satisfies<EvmSender, Sender>;
export type EvmAdapterSenderIsASender = Satisfies<EvmAdapter['sender'], Sender>;
// So does the test double (it is run through the lifecycle in family-stub.test.ts).
export type LedgerAdapterIsAFamily = Satisfies<LedgerAdapter, ChainAdapter>;
export type LedgerSenderIsASender = Satisfies<LedgerSender, Sender>;
// So does Tron's (issue 15; not yet wired into the registry).
export type TronAdapterIsAFamily = Satisfies<TronAdapter, ChainAdapter>;
export type TronSenderIsASender = Satisfies<TronSender, Sender>;

const SENDER_MEMBERS = [
  'ordering',
  'sponsoredFees',
  'nonceOf',
  'quote',
  'quoteAll',
  'requote',
  'voidCall',
  'maxTransfers',
  'combine',
  'fixedNetwork',
  'prepare',
  'sign',
  'replacementNetwork',
  'costOf',
  'childFeeFunding',
  'planChildFunding',
  'feeFields',
  'findLanded',
  'hasExpired',
] as const;

const ADAPTER_MEMBERS = [
  'config',
  'normalizeAddress',
  'getBalances',
  'getBlockNumber',
  'finalizedHead',
  'getBlock',
  'scan',
  'transfersOfTransaction',
  'sender',
  'broadcast',
  'getReceipt',
  'encodeTokenTransfer',
  'close',
  'readTokenDecimals',
  'readPriceFeed',
  'encodeContractCall',
  'readContract',
  'simulateContractCall',
  'describeTokenCall',
  'getAllowances',
  'prepareTypedData',
  'prepareMessage',
  'staking',
] as const;

// The lists are the seam, no more and no less: a new member must be named here (and in the docs).
same<Same<(typeof SENDER_MEMBERS)[number], keyof Sender>>(true);
same<Same<(typeof ADAPTER_MEMBERS)[number], keyof ChainAdapter>>(true);

describe('the chain family seam', () => {
  it('the EVM family and the ledger test double carry every member a family must implement', () => {
    const config = ledgerChainConfig({ chainId: 990_099 });
    const ledger = new LedgerAdapter(config, new LedgerChain({ chainId: config.chainId }));
    // Built without dialling anything: viem clients connect lazily.
    const evm = new EvmAdapter({ ...config, rpcUrl: 'http://127.0.0.1:9' });
    for (const adapter of [evm, ledger] as ChainAdapter[]) {
      // Optional members: message signing, and the staking capability (Tron only).
      const missing = ADAPTER_MEMBERS.filter((m) => m !== 'prepareMessage' && m !== 'staking' && !(m in adapter));
      expect(missing, adapter.constructor.name).toEqual([]);
      expect(
        SENDER_MEMBERS.filter((m) => !(m in adapter.sender)),
        adapter.constructor.name,
      ).toEqual([]);
    }
    evm.close();
    ledger.close();
  });
});
