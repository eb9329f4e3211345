/**
 * TEST DOUBLE, part of the abacus family: the ChainAdapter over one running AbacusChain.
 * The core only: no capability (no contracts, typed data, messages, feeds, swaps, batching,
 * screening, fee sponsorship, staking), so every route that needs one answers 422 from the
 * registry, and nothing here throws NOT_SUPPORTED.
 */
import type { ChainConfig } from '../../../src/config/index.js';
import type { BalanceQuery, BlockRef, Capabilities, ChainAdapter, Receipt, ScanResult, TransferEvent } from '../../../src/chains/types.js';
import type { AbacusBlock, AbacusChain, AbacusTx } from './chain.js';
import { abacusCodec } from './codec.js';
import { abacusFees, receiptOf } from './receipt.js';
import { AbacusSender } from './sender.js';

const ref = (b: AbacusBlock): BlockRef => ({ number: b.number, hash: b.hash, parentHash: b.parentHash, timestamp: b.timestamp });

export class AbacusAdapter implements ChainAdapter {
  readonly sender: AbacusSender;
  readonly fees = abacusFees;
  readonly capabilities: Capabilities = {};

  constructor(
    readonly config: ChainConfig,
    readonly chain: AbacusChain,
  ) {
    this.sender = new AbacusSender(chain);
  }

  normalizeAddress(address: string): string | null {
    return abacusCodec.normalize(address);
  }

  /** No tokens exist on abacus: a token's balance is 0. */
  async getBalances(queries: BalanceQuery[]): Promise<bigint[]> {
    return queries.map((q) => (q.token === null ? this.chain.balanceOf(q.owner) : 0n));
  }

  async getBlockNumber(): Promise<bigint> {
    return this.chain.head().number;
  }

  /** Depth counting, the head's block counting 1. */
  async finalizedHead(head: bigint): Promise<bigint> {
    return head - BigInt(Math.max(1, this.config.confirmations)) + 1n;
  }

  async getBlock(number: bigint): Promise<BlockRef | null> {
    const b = this.chain.block(number);
    return b ? ref(b) : null;
  }

  async scan(from: bigint, to: bigint, _tokens: string[], isWatched: (address: string) => boolean): Promise<ScanResult> {
    const blocks: BlockRef[] = [];
    const transfers: TransferEvent[] = [];
    for (let n = from; n <= to; n++) {
      const b = this.chain.block(n);
      if (!b) break;
      blocks.push(ref(b));
      for (const tx of b.txs) if (tx.value > 0n && isWatched(tx.to)) transfers.push(transferOf(tx, b));
    }
    return { blocks, transfers };
  }

  async transfersOfTransaction(hash: string, _tokens: string[], isWatched: (address: string) => boolean): Promise<TransferEvent[]> {
    const r = this.chain.receipt(hash);
    const b = r ? this.chain.block(r.block) : undefined;
    return r && b && r.tx.value > 0n && isWatched(r.tx.to) ? [transferOf(r.tx, b)] : [];
  }

  async broadcast(raw: string): Promise<string> {
    return this.chain.submit(raw);
  }

  async getReceipt(hash: string): Promise<Receipt | null> {
    const r = this.chain.receipt(hash);
    return r ? receiptOf(r) : null;
  }

  /** No tokens: no address answers decimals. */
  async readTokenDecimals(): Promise<number | null> {
    return null;
  }

  close(): void {
    // The chain belongs to whoever started it.
  }
}

function transferOf(tx: AbacusTx, b: AbacusBlock): TransferEvent {
  return {
    token: null,
    from: tx.from,
    to: tx.to,
    amount: tx.value,
    txHash: tx.hash,
    logIndex: -1,
    block: { number: b.number, hash: b.hash },
  };
}
