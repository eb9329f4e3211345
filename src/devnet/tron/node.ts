// The stand-in's chain: one witness producing blocks on a timer (or on demand), pending
// transactions executed on arrival and sealed into the next block, a solidified head
// lagging the head, reorganisation of unsolidified blocks, and a clock that tests can move.
import { toEvm, type Hex41 } from './address.js';
import { GENESIS_PARENT, makeBlock, type Block, type StoredTx } from './chain.js';
import type { Evm } from './evm.js';
import { Ledger, type LedgerView } from './ledger.js';
import { SLOT_MS, type TronChainParams } from './params.js';
import { execute, precheck, type BroadcastResult, type ChainAccess } from './processor.js';
import { addressOfPrivateKey, type Tx } from './transactions.js';
import type { ContractRecord } from './vm.js';

export interface NodeLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

export interface NodeState {
  blocks: Block[];
  ledger: Ledger;
  contracts: Map<string, ContractRecord>;
  pending: StoredTx[];
  timeOffsetMs: number;
}

export class StandInError extends Error {}

/** A serial queue: every state change and every read that spans an await goes through it. */
class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T> | T): Promise<T> {
    const next = this.tail.then(fn, fn);
    this.tail = next.catch(() => undefined);
    return next;
  }
}

export class TronNode implements ChainAccess {
  blocks: Block[];
  ledger: Ledger;
  contracts: Map<string, ContractRecord>;
  pending: StoredTx[];
  timeOffsetMs: number;
  readonly witness: Hex41;
  private readonly index = new Map<string, { block: number; pos: number }>();
  private readonly pendingIds = new Set<string>();
  private readonly lock = new Mutex();
  /** Anvil state changed since the last sealed block (balances mirrored without an anvil block). */
  private evmTouched = false;
  /** Earliest timestamp of the next block (set by advanceTime). */
  private notBefore = 0;
  /** Called after every sealed block and reorg (persistence). */
  onChange: (() => Promise<void>) | undefined;

  constructor(
    readonly evm: Evm,
    readonly params: TronChainParams,
    readonly solidifyLag: number,
    private readonly witnessKey: string,
    state: NodeState,
    private readonly log: NodeLogger,
  ) {
    this.witness = addressOfPrivateKey(witnessKey);
    this.blocks = state.blocks;
    this.ledger = state.ledger;
    this.contracts = state.contracts;
    this.pending = state.pending;
    this.timeOffsetMs = state.timeOffsetMs;
    for (const b of this.blocks) b.txs.forEach((s, pos) => this.index.set(s.tx.txID, { block: b.number, pos }));
    for (const s of this.pending) this.pendingIds.add(s.tx.txID);
  }

  /** A fresh chain: genesis allocations straight into the ledger, an empty block 0. */
  static genesisBlock(witnessKey: string, evmHead: { number: number; hash: string }): Block {
    return makeBlock({
      number: 0,
      timestamp: 0,
      parentId: GENESIS_PARENT,
      txs: [],
      witnessKey,
      witness: addressOfPrivateKey(witnessKey),
      evmBlock: evmHead.number,
      evmHash: evmHead.hash,
    });
  }

  exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    return this.lock.run(fn);
  }

  now(): number {
    return Date.now() + this.timeOffsetMs;
  }

  head(): Block {
    return this.blocks.at(-1) as Block;
  }

  solidNumber(): number {
    return Math.max(0, this.head().number - this.solidifyLag);
  }

  solid(): Block {
    return this.blocks[this.solidNumber()] as Block;
  }

  knows(txid: string): boolean {
    return this.index.has(txid) || this.pendingIds.has(txid);
  }

  /** The ledger as of the head (pending changes included, as java-tron's API shows) or the solidified block. */
  view(solidified: boolean): LedgerView {
    return solidified ? this.ledger.at(this.solidNumber()) : this.ledger;
  }

  /** A sealed transaction, if its block is within `maxBlock`. */
  findTx(txid: string, maxBlock = Number.POSITIVE_INFINITY): { stored: StoredTx; block: Block } | undefined {
    const at = this.index.get(txid);
    if (!at || at.block > maxBlock) return undefined;
    const block = this.blocks[at.block] as Block;
    return { stored: block.txs[at.pos] as StoredTx, block };
  }

  blockById(id: string): Block | undefined {
    if (!/^[0-9a-f]{64}$/.test(id)) return undefined;
    const b = this.blocks[Number.parseInt(id.slice(0, 16), 16)];
    return b?.id === id ? b : undefined;
  }

  broadcast(tx: Tx): Promise<BroadcastResult> {
    return this.exclusive(async () => {
      const refused = precheck(this, tx);
      if (refused) return refused;
      const out = await execute(this, tx);
      if ('refused' in out) return out.refused;
      this.pending.push(out.stored);
      this.pendingIds.add(tx.txID);
      await this.mirrorBalances();
      return { result: true, txid: tx.txID };
    });
  }

  /** Seals the pending transactions into a new block `count` times (empty after the first). */
  produceBlocks(count = 1): Promise<Block[]> {
    return this.exclusive(async () => {
      const made: Block[] = [];
      for (let i = 0; i < count; i++) made.push(await this.seal());
      await this.onChange?.();
      return made;
    });
  }

  private async seal(notBefore = 0): Promise<Block> {
    const head = this.head();
    const floor = Math.ceil(Math.max(notBefore, this.notBefore) / SLOT_MS) * SLOT_MS;
    const timestamp = Math.max(Math.floor(this.now() / SLOT_MS) * SLOT_MS, head.timestamp + SLOT_MS, floor);
    this.notBefore = 0;
    // java-tron drops pending transactions that expired before they could be packed.
    if (this.pending.some((s) => s.tx.rawData.expiration < timestamp)) await this.repack((s) => s.tx.rawData.expiration >= timestamp);
    await this.mirrorBalances();
    let evmHead = { number: head.evmBlock, hash: head.evmHash };
    const current = await this.evm.head();
    if (this.evmTouched || current.number !== head.evmBlock || current.hash !== head.evmHash) {
      // One extra empty anvil block, so the block's state includes balance mirrors done after the last transaction.
      await this.evm.mine();
      evmHead = await this.evm.head();
    }
    const number = head.number + 1;
    const txs = this.pending.map((s) => ({ ...s, info: { ...s.info, blockNumber: number, blockTimeStamp: timestamp } }));
    const block = makeBlock({
      number,
      timestamp,
      parentId: head.id,
      txs,
      witnessKey: this.witnessKey,
      witness: this.witness,
      evmBlock: evmHead.number,
      evmHash: evmHead.hash,
    });
    this.blocks.push(block);
    txs.forEach((s, pos) => this.index.set(s.tx.txID, { block: number, pos }));
    this.pending = [];
    this.pendingIds.clear();
    this.evmTouched = false;
    this.ledger.seal(number);
    this.ledger.prune(this.solidNumber());
    return block;
  }

  /**
   * Replaces the last `depth` unsolidified blocks by `depth + 1` new ones (the longer fork
   * wins). Their transactions and any pending ones are dropped, or re-executed into the
   * first new block with `keepTransactions`.
   */
  reorg(depth: number, keepTransactions = false): Promise<{ removed: Block[]; added: Block[] }> {
    return this.exclusive(async () => {
      const head = this.head().number;
      if (!Number.isInteger(depth) || depth < 1) throw new StandInError('depth must be a positive integer');
      if (head - depth < this.solidNumber()) {
        throw new StandInError(`cannot reorganise ${depth} blocks: only ${head - this.solidNumber()} are unsolidified`);
      }
      const target = this.blocks[head - depth] as Block;
      const oldest = this.ledger.oldestJournal();
      if (oldest !== undefined && oldest > target.number + 1) throw new StandInError('the journal does not reach that deep');
      const replay = keepTransactions ? [...this.blocks.slice(target.number + 1).flatMap((b) => b.txs), ...this.pending] : [];
      try {
        await this.evm.rollbackTo(target.evmBlock);
      } catch (err) {
        throw new StandInError(`cannot reorganise behind the last restart of the stand-in (${(err as Error).message})`);
      }
      this.ledger.revertTo(target.number);
      const removed = this.blocks.splice(target.number + 1);
      for (const b of removed) for (const s of b.txs) this.index.delete(s.tx.txID);
      this.pending = [];
      this.pendingIds.clear();
      for (const s of replay) await this.reexecute(s.tx);
      await this.mirrorBalances();
      // Later timestamps than the dropped blocks: the new fork's blocks never repeat their ids.
      const notBefore = (removed.at(-1) as Block).timestamp + SLOT_MS;
      const added: Block[] = [];
      for (let i = 0; i <= depth; i++) added.push(await this.seal(notBefore));
      this.log.info({ depth, from: target.number + 1, replayed: replay.length }, 'tron stand-in: reorganised');
      await this.onChange?.();
      return { removed, added };
    });
  }

  /**
   * Moves the stand-in's clock forward: the next block is at least `ms` after the current
   * head (so transactions referencing it can expire), and later blocks follow the moved clock.
   */
  advanceTime(ms: number): Promise<void> {
    return this.exclusive(async () => {
      if (!Number.isFinite(ms) || ms < 0) throw new StandInError('ms must be a non-negative number');
      this.timeOffsetMs += ms;
      this.notBefore = Math.max(this.notBefore, this.head().timestamp + ms);
      await this.onChange?.();
    });
  }

  /** Undoes every pending transaction and re-executes those `keep` accepts, in order. */
  private async repack(keep: (s: StoredTx) => boolean): Promise<void> {
    const head = this.head();
    const again = this.pending.filter(keep);
    await this.evm.rollbackTo(head.evmBlock);
    this.ledger.revertTo(head.number);
    this.pending = [];
    this.pendingIds.clear();
    for (const s of again) await this.reexecute(s.tx);
  }

  private async reexecute(tx: Tx): Promise<void> {
    if (precheck(this, tx)) return;
    const out = await execute(this, tx);
    if ('stored' in out) {
      this.pending.push(out.stored);
      this.pendingIds.add(tx.txID);
    }
  }

  /** Contracts see TRX as the EVM balance: copy every changed ledger balance onto anvil. */
  async mirrorBalances(): Promise<void> {
    for (const address of this.ledger.takeDirty()) {
      await this.evm.setBalance(toEvm(address), this.ledger.account(address)?.balance ?? 0n);
      this.evmTouched = true;
    }
  }
}
