// The stand-in's chain: litesvm holds the accounts and runs the programs; this holds what a
// validator adds around them. Slots and blocks (transactions executed since the last block go
// into the next one), the blockhash queue (150 blocks of validity), the three commitment
// levels, and an undo log per unfinalized slot (the state of every written account before the
// slot's first write) so reads can see state as of a commitment and a fork can be dropped.
import { createHash } from 'node:crypto';
import { Account, Clock, LiteSvm } from 'litesvm/dist/internal.js';
import type { TxErrorJson } from './errors.js';
import { addressBytes, addressFromBytes, fromBase58, SYSTEM_PROGRAM, toBase58, type LoadedAddresses } from './wire.js';

/** Blocks a blockhash stays usable for: lastValidBlockHeight = its block height + 150. */
export const MAX_PROCESSING_AGE = 150n;
/** A block is confirmed once this many blocks are built on it (votes are not modelled). */
export const CONFIRMATION_DEPTH = 1;
/** A block is finalized (rooted) 32 blocks behind the tip, as on the real cluster. */
export const FINALIZATION_DEPTH = 32;
export const SLOTS_PER_EPOCH = 432_000n;

export type Commitment = 'processed' | 'confirmed' | 'finalized';

export interface AccountState {
  lamports: bigint;
  data: Uint8Array;
  owner: string;
  executable: boolean;
  rentEpoch: bigint;
}

export interface TokenBalanceRecord {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
  decimals: number;
}

export interface InnerInstructionRecord {
  programIdIndex: number;
  accounts: number[];
  /** base58 */
  data: string;
  stackHeight: number;
}

export interface TxMeta {
  err: TxErrorJson | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalanceRecord[];
  postTokenBalances: TokenBalanceRecord[];
  logMessages: string[];
  innerInstructions: { index: number; instructions: InnerInstructionRecord[] }[];
  computeUnitsConsumed: bigint;
  returnData: { programId: string; data: string } | null;
  loadedAddresses: LoadedAddresses;
}

export interface TxRecord {
  signature: string;
  /** The wire bytes as sent. */
  raw: Uint8Array;
  /** The block's slot; for a transaction not yet in a block, the working slot. */
  slot: bigint;
  meta: TxMeta;
  /** Compute-unit price in micro-lamports, for getRecentPrioritizationFees. */
  unitPrice: bigint;
  writable: string[];
}

export interface Block {
  slot: bigint;
  parentSlot: bigint;
  blockHeight: bigint;
  blockhash: string;
  previousBlockhash: string;
  blockTime: number;
  txs: TxRecord[];
}

export type Undo = Map<string, AccountState | null>;

export class Ledger {
  readonly svm: LiteSvm;
  readonly genesisHash: string;
  readonly blocks: Block[] = [];
  private readonly bySlot = new Map<bigint, Block>();
  private readonly byHash = new Map<string, Block>();
  private readonly txIndex = new Map<string, TxRecord>();
  private readonly undo = new Map<bigint, Undo>();
  pending: TxRecord[] = [];
  pendingUndo: Undo = new Map();
  /** The slot the next block gets; above tip + 1 after skipped or dropped slots. */
  nextSlot: bigint;
  finalizedSlot: bigint;
  transactionCount = 0n;
  /** Bumped on every change of account state, for caches. */
  version = 0;

  constructor(svm: LiteSvm, genesisHash: string, genesis?: { nextSlot: bigint; finalizedSlot: bigint }) {
    this.svm = svm;
    this.genesisHash = genesisHash;
    this.nextSlot = genesis?.nextSlot ?? 1n;
    this.finalizedSlot = genesis?.finalizedSlot ?? 0n;
  }

  /** Slot 0: the first block, whose parent is the genesis hash. */
  static genesisBlock(genesisHash: string, blockTime: number): Block {
    const blockhash = hashBlock(genesisHash, 0n, []);
    return { slot: 0n, parentSlot: 0n, blockHeight: 0n, blockhash, previousBlockhash: genesisHash, blockTime, txs: [] };
  }

  /** Adds a block read back from disk (or the genesis block), with its undo log if unfinalized. */
  restoreBlock(block: Block, undo?: Undo): void {
    this.blocks.push(block);
    this.bySlot.set(block.slot, block);
    this.byHash.set(block.blockhash, block);
    for (const tx of block.txs) this.txIndex.set(tx.signature, tx);
    this.transactionCount += BigInt(block.txs.length);
    if (undo) this.undo.set(block.slot, undo);
  }

  restorePending(txs: TxRecord[], undo: Undo): void {
    this.pending = txs;
    this.pendingUndo = undo;
    for (const tx of txs) this.txIndex.set(tx.signature, tx);
  }

  undoOf(slot: bigint): Undo | undefined {
    return this.undo.get(slot);
  }

  get tip(): Block {
    return this.blocks[this.blocks.length - 1]!;
  }

  block(slot: bigint): Block | undefined {
    return this.bySlot.get(slot);
  }

  blockByHash(blockhash: string): Block | undefined {
    return this.byHash.get(blockhash);
  }

  tx(signature: string): TxRecord | undefined {
    return this.txIndex.get(signature);
  }

  /** The newest block at a commitment level. */
  blockAt(commitment: Commitment): Block {
    if (commitment === 'processed') return this.tip;
    const finalized = this.bySlot.get(this.finalizedSlot) ?? this.blocks[0]!;
    if (commitment === 'finalized') return finalized;
    const confirmed = this.blocks[this.blocks.length - 1 - CONFIRMATION_DEPTH] ?? this.blocks[0]!;
    return confirmed.slot > finalized.slot ? confirmed : finalized;
  }

  /** The commitment a block in the canonical chain has reached. */
  commitmentOf(slot: bigint): Commitment {
    if (slot <= this.finalizedSlot) return 'finalized';
    if (slot <= this.blockAt('confirmed').slot) return 'confirmed';
    return 'processed';
  }

  /** Height of the block whose hash this is, while it can still be used by a new transaction. */
  blockhashHeight(blockhash: string): bigint | undefined {
    const b = this.byHash.get(blockhash);
    if (!b || this.tip.blockHeight + 1n > b.blockHeight + MAX_PROCESSING_AGE) return undefined;
    return b.blockHeight;
  }

  /** Account state now (processed) or as of the newest block at a commitment. */
  account(address: string, commitment: Commitment = 'processed'): AccountState | null {
    if (commitment !== 'processed') {
      const at = this.blockAt(commitment).slot;
      for (const b of this.blocks.slice(this.indexAfter(at))) {
        const u = this.undo.get(b.slot);
        if (u?.has(address)) return u.get(address) ?? null;
      }
      if (this.pendingUndo.has(address)) return this.pendingUndo.get(address) ?? null;
    }
    return this.live(address);
  }

  /** Addresses whose state differs between now and a commitment level (they may exist only there). */
  changedSince(commitment: Commitment): Set<string> {
    const out = new Set<string>();
    if (commitment === 'processed') return out;
    const at = this.blockAt(commitment).slot;
    for (const b of this.blocks.slice(this.indexAfter(at))) for (const a of this.undo.get(b.slot)?.keys() ?? []) out.add(a);
    for (const a of this.pendingUndo.keys()) out.add(a);
    return out;
  }

  live(address: string): AccountState | null {
    const a = this.svm.getAccount(addressBytes(address));
    if (!a || a.lamports() === 0n) return null;
    return {
      lamports: a.lamports(),
      data: a.data(),
      owner: addressFromBytes(a.owner()),
      executable: a.executable(),
      rentEpoch: a.rentEpoch(),
    };
  }

  setLive(address: string, state: AccountState | null): void {
    const s = state ?? { lamports: 0n, data: new Uint8Array(0), owner: SYSTEM_PROGRAM, executable: false, rentEpoch: 0n };
    this.svm.setAccount(addressBytes(address), new Account(s.lamports, s.data, addressBytes(s.owner), s.executable, s.rentEpoch));
    this.version++;
  }

  /** Remembers the state of accounts about to be written, once per slot. */
  rememberBeforeWrite(address: string, state: AccountState | null): void {
    if (!this.pendingUndo.has(address)) this.pendingUndo.set(address, state);
  }

  addPending(tx: TxRecord): void {
    tx.slot = this.nextSlot;
    this.pending.push(tx);
    this.txIndex.set(tx.signature, tx);
    this.version++;
  }

  /** Seals the pending transactions into the next block. */
  produceBlock(nowMs: number): Block {
    const parent = this.tip;
    const slot = this.nextSlot;
    const txs = this.pending;
    for (const tx of txs) tx.slot = slot;
    const block: Block = {
      slot,
      parentSlot: parent.slot,
      blockHeight: parent.blockHeight + 1n,
      blockhash: hashBlock(
        parent.blockhash,
        slot,
        txs.map((t) => t.signature),
      ),
      previousBlockhash: parent.blockhash,
      blockTime: Math.floor(nowMs / 1000),
      txs,
    };
    this.restoreBlock(block, this.pendingUndo);
    this.pending = [];
    this.pendingUndo = new Map();
    this.nextSlot = slot + 1n;
    const rootCandidate = this.blocks[this.blocks.length - 1 - FINALIZATION_DEPTH];
    if (rootCandidate && rootCandidate.slot > this.finalizedSlot) {
      this.finalizedSlot = rootCandidate.slot;
      for (const s of [...this.undo.keys()]) if (s <= this.finalizedSlot) this.undo.delete(s);
    }
    this.syncClock(nowMs);
    // Durable nonces advance to litesvm's blockhash; give it a new one per block.
    this.svm.expireBlockhash();
    return block;
  }

  /** Advances the slot counter without blocks, as a leader that skipped its slots. */
  skipSlots(n: bigint, nowMs: number): void {
    this.nextSlot += n;
    for (const tx of this.pending) tx.slot = this.nextSlot;
    this.syncClock(nowMs);
  }

  /** Unfinalized blocks that a fork drop may take away. */
  get droppableBlocks(): number {
    return this.blocks.length - 1 - this.blocks.findIndex((b) => b.slot === this.finalizedSlot);
  }

  /**
   * Abandons the newest `n` blocks and the pending transactions, as when the cluster settles
   * on another fork: every account they wrote goes back to its state before them, their
   * signatures are unknown again, their blockhashes invalid. Slot numbers move on.
   */
  dropBlocks(n: number): { slots: bigint[]; signatures: string[] } {
    if (!Number.isInteger(n) || n < 0 || n > this.droppableBlocks) {
      throw new Error(`can drop 0..${this.droppableBlocks} unfinalized blocks, not ${n}`);
    }
    const signatures: string[] = [];
    const revert = (undo: Undo, txs: TxRecord[]) => {
      for (const [address, state] of undo) this.setLive(address, state);
      for (const tx of txs) {
        this.txIndex.delete(tx.signature);
        signatures.push(tx.signature);
      }
    };
    revert(this.pendingUndo, this.pending);
    this.pending = [];
    this.pendingUndo = new Map();
    const slots: bigint[] = [];
    for (let i = 0; i < n; i++) {
      const b = this.blocks.pop()!;
      revert(this.undo.get(b.slot) ?? new Map(), b.txs);
      this.undo.delete(b.slot);
      this.bySlot.delete(b.slot);
      this.byHash.delete(b.blockhash);
      this.transactionCount -= BigInt(b.txs.length);
      slots.unshift(b.slot);
    }
    this.version++;
    return { slots, signatures };
  }

  syncClock(nowMs: number): void {
    const slot = this.nextSlot;
    const epoch = slot / SLOTS_PER_EPOCH;
    this.svm.setClock(new Clock(slot, 0n, epoch, epoch, BigInt(Math.floor(nowMs / 1000))));
  }

  private indexAfter(slot: bigint): number {
    let i = this.blocks.length;
    while (i > 0 && this.blocks[i - 1]!.slot > slot) i--;
    return i;
  }
}

function hashBlock(parentHash: string, slot: bigint, signatures: string[]): string {
  const h = createHash('sha256').update(fromBase58(parentHash));
  const s = Buffer.alloc(8);
  s.writeBigUInt64LE(slot);
  h.update(s);
  for (const sig of signatures) h.update(fromBase58(sig));
  return toBase58(h.digest());
}
