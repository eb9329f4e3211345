/**
 * What a new chain family must implement, checked by the type-checker (`npx tsc --noEmit`,
 * run by CI): the families and the ledger test double (test/support/ledger-family.ts)
 * satisfy the seam of src/chains/types.ts, and the lists below name every member of it and
 * every capability each family offers. A member added to the seam breaks this file until the
 * list (and docs/seam.md) says what it is; one missing from a family breaks the family; a
 * capability a family gains or loses breaks its line below.
 *
 * A family supplies (src/chains/<family>/, docs/seam.md):
 * - the core every family implements, a ChainAdapter: `config`, `normalizeAddress`,
 *   `getBalances`, `getBlockNumber`, `finalizedHead`, `getBlock`, `scan`,
 *   `transfersOfTransaction` (deposits), `sender`, `broadcast` (refusals as
 *   ChainRejectedError with a reason, src/chains/errors.ts), `getReceipt` (the neutral
 *   receipt), `fees` (its receipts and network data as the public fee fields), `close`,
 *   `readTokenDecimals`, and `capabilities`;
 * - its Sender, the family's side of the outbound lifecycle: `ordering`, `quote`, `quoteAll`,
 *   `requote`, `fixedNetwork`, `prepare`, `sign` (with the SigningKey the signer lends),
 *   `costOf`, `childFeeFunding`, `planChildFunding`, `fundedNetwork`, `findLanded`; and the
 *   members of its ordering: 'nonce' (`nonceOf`, `voidCall`, `replacementNetwork`) or
 *   'expiry' (`hasExpired`). Its transaction fields live in opaque NetworkData;
 * - optional capabilities (src/chains/capabilities.ts), each present or absent, never a stub:
 *   a route asks `capability(adapter, name)`, which answers 422 NOT_SUPPORTED for an absent one.
 */
import { describe, expect, it } from 'vitest';
import type { Capabilities, CapabilityName, ChainAdapter, ExpirySender, NonceSender, Sender, SenderCore } from '../../src/chains/types.js';
import { capability } from '../../src/chains/capabilities.js';
import { EvmAdapter } from '../../src/chains/evm/adapter.js';
import { EvmSender } from '../../src/chains/evm/sender.js';
import { SolanaAdapter } from '../../src/chains/solana/adapter.js';
import { SolanaSender } from '../../src/chains/solana/sender.js';
import { TronAdapter } from '../../src/chains/tron/adapter.js';
import { TronNode } from '../../src/chains/tron/node.js';
import { TronSender } from '../../src/chains/tron/sender.js';
import { LedgerAdapter, LedgerChain, LedgerExpirySender, LedgerSender, ledgerChainConfig } from '../support/ledger-family.js';

/** Compiles only when A is assignable to B. */
type Satisfies<A extends B, B> = A;
/** true only when the two unions are the same. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const same = <T extends true>(v: T) => v;

// Every family keeps the seam, and its sender its ordering's.
export type EvmAdapterIsAFamily = Satisfies<EvmAdapter, ChainAdapter>;
export type EvmSenderCountsNonces = Satisfies<EvmSender, NonceSender>;
export type TronAdapterIsAFamily = Satisfies<TronAdapter, ChainAdapter>;
export type TronSenderHasDeadlines = Satisfies<TronSender, ExpirySender>;
export type SolanaAdapterIsAFamily = Satisfies<SolanaAdapter, ChainAdapter>;
export type SolanaSenderHasDeadlines = Satisfies<SolanaSender, ExpirySender>;
// So does the test double (run through the lifecycle in family-stub.test.ts and family-expiry.test.ts).
export type LedgerAdapterIsAFamily = Satisfies<LedgerAdapter, ChainAdapter>;
export type LedgerSenderCountsNonces = Satisfies<LedgerSender, NonceSender>;
export type LedgerExpirySenderHasDeadlines = Satisfies<LedgerExpirySender, ExpirySender>;

const SENDER_CORE = [
  'ordering',
  'quote',
  'quoteAll',
  'requote',
  'fixedNetwork',
  'prepare',
  'sign',
  'costOf',
  'accountFloor',
  'childFeeFunding',
  'planChildFunding',
  'fundedNetwork',
  'findLanded',
] as const;
/** The 'nonce' strategy's members (allocation, conflicts, fillers, replacement). */
const NONCE_MEMBERS = ['nonceOf', 'voidCall', 'replacementNetwork'] as const;
/** The 'expiry' strategy's member (deadlines, then rebuilds). */
const EXPIRY_MEMBERS = ['hasExpired'] as const;

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
  'fees',
  'close',
  'readTokenDecimals',
  'capabilities',
] as const;

const CAPABILITIES = [
  'contracts',
  'typedData',
  'messages',
  'priceFeeds',
  'swaps',
  'batching',
  'screening',
  'feeSponsorship',
  'staking',
  'paymentRequests',
  'foreignChains',
] as const;

// The lists are the seam, no more and no less: a new member must be named here (and in docs/seam.md).
same<Same<(typeof SENDER_CORE)[number], keyof SenderCore>>(true);
same<Same<(typeof SENDER_CORE)[number], keyof Sender>>(true); // what both orderings share is the core
same<Same<(typeof SENDER_CORE)[number] | (typeof NONCE_MEMBERS)[number], keyof NonceSender>>(true);
same<Same<(typeof SENDER_CORE)[number] | (typeof EXPIRY_MEMBERS)[number], keyof ExpirySender>>(true);
same<Same<(typeof ADAPTER_MEMBERS)[number], keyof ChainAdapter>>(true);
same<Same<(typeof CAPABILITIES)[number], CapabilityName>>(true);

/** The capabilities a family always offers, and those it offers on some chains (configuration). */
type Always<A extends ChainAdapter> = {
  [K in keyof A['capabilities']]-?: undefined extends A['capabilities'][K] ? never : K;
}[keyof A['capabilities']];
type Sometimes<A extends ChainAdapter> = Exclude<keyof A['capabilities'], Always<A>>;

// Each family's capabilities, checked by the compiler against what its adapter declares.
same<Same<Always<EvmAdapter>, 'contracts' | 'typedData' | 'messages' | 'priceFeeds' | 'screening' | 'paymentRequests' | 'foreignChains'>>(
  true,
);
same<Same<Sometimes<EvmAdapter>, 'swaps'>>(true); // where the chains file names a router
same<Same<Always<TronAdapter>, 'contracts' | 'messages' | 'screening' | 'paymentRequests' | 'staking'>>(true);
same<Same<Sometimes<TronAdapter>, never>>(true);
same<Same<Always<SolanaAdapter>, 'messages' | 'batching' | 'feeSponsorship' | 'screening' | 'paymentRequests'>>(true);
same<Same<Sometimes<SolanaAdapter>, never>>(true);
same<Same<keyof LedgerAdapter['capabilities'], keyof Capabilities>>(true); // the double declares the type: offers none (below)

describe('the chain family seam', () => {
  const config = ledgerChainConfig({ chainId: 990_099 });
  const offline = { ...config, rpcUrl: 'http://127.0.0.1:9' };
  const ledger = new LedgerAdapter(config, new LedgerChain({ chainId: config.chainId }));
  // Built without dialling anything: the clients connect lazily.
  const evm = new EvmAdapter(offline);
  const tron = new TronAdapter(offline, new TronNode(offline.rpcUrl));
  const solana = new SolanaAdapter(offline);
  const expiring = new LedgerAdapter(config, new LedgerChain({ chainId: config.chainId, expiryBlocks: 5 }));
  const all: [string, ChainAdapter][] = [
    ['evm', evm],
    ['tron', tron],
    ['solana', solana],
    ['ledger', ledger],
    ['ledger (expiry)', expiring],
  ];

  it('every family carries every member of the core, and its ordering members only', () => {
    for (const [name, adapter] of all) {
      expect(
        ADAPTER_MEMBERS.filter((m) => !(m in adapter)),
        name,
      ).toEqual([]);
      const { sender } = adapter;
      expect(
        SENDER_CORE.filter((m) => !(m in sender)),
        name,
      ).toEqual([]);
      const mine = sender.ordering === 'nonce' ? NONCE_MEMBERS : EXPIRY_MEMBERS;
      const other = sender.ordering === 'nonce' ? EXPIRY_MEMBERS : NONCE_MEMBERS;
      expect([mine.filter((m) => !(m in sender)), other.filter((m) => m in sender)], name).toEqual([[], []]);
    }
    expect(all.map(([, a]) => a.sender.ordering)).toEqual(['nonce', 'expiry', 'expiry', 'nonce', 'expiry']);
  });

  it('each family offers its capabilities; every other one is refused in one place (422 NOT_SUPPORTED)', () => {
    const offered = Object.fromEntries(all.map(([name, a]) => [name, CAPABILITIES.filter((c) => a.capabilities[c] !== undefined)]));
    expect(offered).toEqual({
      evm: ['contracts', 'typedData', 'messages', 'priceFeeds', 'screening', 'paymentRequests', 'foreignChains'],
      tron: ['contracts', 'messages', 'screening', 'staking', 'paymentRequests'],
      solana: ['messages', 'batching', 'screening', 'feeSponsorship', 'paymentRequests'],
      ledger: [],
      'ledger (expiry)': [],
    });
    for (const [name, adapter] of all) {
      for (const c of CAPABILITIES.filter((c) => !offered[name]!.includes(c))) {
        expect(() => capability(adapter, c), `${name} ${c}`).toThrow(
          expect.objectContaining({ code: c === 'typedData' ? 'TYPED_DATA_NOT_SUPPORTED' : 'NOT_SUPPORTED' }),
        );
      }
    }
  });

  it('no family throws NOT_SUPPORTED itself: absent capabilities are absent, not stubs', async () => {
    const { readdirSync, readFileSync, statSync } = await import('node:fs');
    const root = new URL('../../src/chains/', import.meta.url);
    const families = readdirSync(root).filter((f) => statSync(new URL(f, root)).isDirectory());
    expect(families.sort()).toEqual(['evm', 'solana', 'tron']);
    for (const family of families) {
      const dir = new URL(`${family}/`, root);
      for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
        expect(readFileSync(new URL(file, dir), 'utf8'), `${family}/${file}`).not.toMatch(/NOT_SUPPORTED/);
      }
    }
  });

  it.each(all)('%s closes', (_name, adapter) => {
    adapter.close();
  });
});
