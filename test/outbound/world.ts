/**
 * What the outbound tests share: viem clients on the devnet (the faucet pays), enqueue in a
 * transaction of its own, a recorder of completion-handler calls (an observer of
 * outbound.settled for the test's purposes, which no production subscriber has), and a
 * "restarted" OutboundService on the same database.
 */
import { sql } from 'kysely';
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  erc20Abi,
  http,
  type Address,
  type Hex,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devnetChain } from '../../src/devnet/chain.js';
import type { ChildAddressDeriver } from '../../src/chains/types.js';
import { derivePrivateKey } from '../../src/keys/hd.js';
import { EVM_ACCOUNT_PATH } from '../../src/chains/evm/derivation.js';
import { localSigner } from '../support/signer.js';
import { createLogger } from '../../src/lib/logger.js';
import type { ChainHandle } from '../../src/modules/catalogue/service.js';
import type { WalletRow } from '../../src/modules/wallets/service.js';
import { OutboundService, type EnqueueRequest, type OutboundOptions, type OutboundRow } from '../../src/modules/outbound/service.js';
import { eventually } from '../support/fixtures.js';
import type { Harness } from '../support/harness.js';

export const SLUG = 'devnet-eth';
const TERMINAL = ['mined', 'failed', 'dropped', 'replaced'];

export interface World {
  h: Harness;
  chain: ChainHandle;
  walletId: string;
  walletRow: WalletRow;
  /** The wallet's address deriver (its sealed xpub, opened once). */
  deriver: ChildAddressDeriver;
  usdc: Address;
  pub: PublicClient;
  test: TestClient;
  faucet: WalletClient;
  /** Every completion-handler call, in order (from any OutboundService instance). */
  settled: OutboundRow[];
  record: (purpose: string, row: OutboundRow) => void;
  /** Purposes whose completion handler records into `settled`. */
  purposes: string[];
}

export async function makeWorld(h: Harness, purposes: string[]): Promise<World> {
  const chain = h.services.catalogue.findChain(SLUG, 'testnet')!;
  const devnet = h.devnet.chains.find((c) => c.config.blockchain.slug === SLUG)!;
  const viemChain = devnetChain(devnet.config.chainId, devnet.config.rpcUrl);
  const transport = http(devnet.config.rpcUrl);
  const settled: OutboundRow[] = [];
  const world: World = {
    h,
    chain,
    walletId: h.wallets[SLUG]!.id,
    walletRow: await h.services.wallets.requireRow(h.wallets[SLUG]!.id),
    deriver: await h.services.wallets.deriver({ id: h.wallets[SLUG]!.id }),
    usdc: chain.assets.find((a) => a.symbol === 'USDC')!.address as Address,
    pub: createPublicClient({ chain: viemChain, transport, pollingInterval: 50 }),
    test: createTestClient({ chain: viemChain, transport, mode: 'anvil' }),
    faucet: createWalletClient({ chain: viemChain, transport, account: privateKeyToAccount(devnet.faucet.privateKey as Hex) }),
    settled,
    record: (_purpose, row) => settled.push(row),
    purposes,
  };
  h.services.events.observe('outbound.settled', async (_tx, { row }) => {
    if (purposes.includes(row.purpose)) world.record(row.purpose, row);
  });
  return world;
}

/** A second OutboundService on the same database, as after a process restart. */
export function restarted(w: World, opts: OutboundOptions = {}): OutboundService {
  const { h } = w;
  const signer = localSigner((id) => h.services.wallets.openMnemonic(id));
  // The same registry: the world's observer records what this instance settles too.
  return new OutboundService(
    h.database.db,
    h.services.catalogue,
    h.services.wallets,
    signer,
    h.services.events,
    createLogger('silent'),
    opts,
  );
}

/**
 * Enqueues in a transaction of its own. Besides an `intent`, a test may give the shorthand
 * `to`, `value` and `data`: a native payment, or a call when `data` is given.
 */
export async function enqueue(
  w: World,
  req: Omit<EnqueueRequest, 'chainId' | 'walletId' | 'intent'> & {
    walletId?: string;
    intent?: EnqueueRequest['intent'];
    to?: string;
    value?: bigint;
    data?: string;
  },
  service: OutboundService = w.h.services.outbound,
) {
  const { to, value, data, intent, ...rest } = req;
  const body: EnqueueRequest['intent'] =
    intent ?? (data !== undefined ? { kind: 'call', to: to!, value: value!, data } : { kind: 'native', to: to!, amount: value! });
  return w.h.database.db
    .transaction()
    .execute((tx) => service.enqueue(tx, { chainId: w.chain.id, walletId: w.walletId, ...rest, intent: body }));
}

export function addressOf(w: World, index: number): Address {
  return w.deriver.address(index) as Address;
}

/** The private key of index i, for tests that must act as someone using the key outside the pipeline. */
export async function keyOf(w: World, index: number): Promise<Hex> {
  return derivePrivateKey(await w.h.services.wallets.openMnemonic(w.walletId), EVM_ACCOUNT_PATH, index);
}

export async function fund(w: World, to: Address, opts: { wei?: bigint; usdc?: bigint }): Promise<void> {
  const account = w.faucet.account!;
  if (opts.wei) {
    const hash = await w.faucet.sendTransaction({ account, chain: w.faucet.chain, to, value: opts.wei });
    await w.pub.waitForTransactionReceipt({ hash });
  }
  if (opts.usdc) {
    const hash = await w.faucet.writeContract({
      account,
      chain: w.faucet.chain,
      address: w.usdc,
      abi: erc20Abi,
      functionName: 'transfer',
      args: [to, opts.usdc],
    });
    await w.pub.waitForTransactionReceipt({ hash });
  }
}

export function usdcOf(w: World, owner: Address): Promise<bigint> {
  return w.pub.readContract({ address: w.usdc, abi: erc20Abi, functionName: 'balanceOf', args: [owner] });
}

export async function settledRow(w: World, id: string, timeoutMs = 20_000): Promise<OutboundRow> {
  return eventually(
    async () => (await w.h.services.outbound.get(id))!,
    (r) => TERMINAL.includes(r.stage),
    timeoutMs,
  );
}

export async function stageOf(w: World, id: string): Promise<string> {
  return (await w.h.services.outbound.get(id))!.stage;
}

export async function nextNonceRow(w: World, address: string): Promise<bigint | null> {
  const { rows } = await sql<{
    next_nonce: string;
  }>`SELECT next_nonce FROM nonces WHERE chain_id = ${w.chain.id} AND address = ${address}`.execute(w.h.database.db);
  return rows[0] ? BigInt(rows[0].next_nonce) : null;
}

export async function pendingJobs(w: World, id: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*) AS n FROM graphile_worker.jobs WHERE key IN (${`outbound_send:${id}`}, ${`outbound_track:${id}`})`.execute(
    w.h.database.db,
  );
  return Number(rows[0]!.n);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
