// The running chain: opens or creates the ledger (from the data directory when there is one),
// produces a block every slot, and saves snapshots while running and at stop.
import { randomBytes } from 'node:crypto';
import { LiteSvm } from 'litesvm/dist/internal.js';
import { FaucetOps, faucetGenesisAccount, faucetKey, type DevKey } from './faucet.js';
import { Ledger, type Block } from './ledger.js';
import { DataDir } from './persist.js';
import type { MethodContext } from './rpc-common.js';
import { submitTransaction } from './rpc-send.js';
import { toBase58 } from './wire.js';

export interface StandInLogger {
  info(...a: unknown[]): void;
  warn(...a: unknown[]): void;
}

export interface ChainOptions {
  /** Data directory; omit for a throwaway chain. */
  dir?: string;
  /** Milliseconds per slot; 0 = a block only when asked (tests). */
  slotMs: number;
  logger: StandInLogger;
  /** How often a changed state is snapshotted to the data directory. */
  snapshotMs?: number;
}

/** litesvm with the real programs, and the validator's own checks left to the stand-in. */
function configureSvm(svm: LiteSvm): LiteSvm {
  // Signatures, blockhash age and duplicates are checked by the stand-in, which knows the
  // blockhash queue and keeps the status cache consistent across fork drops.
  svm.setSigverify(false);
  svm.setBlockhashCheck(false);
  svm.setTransactionHistory(0n);
  return svm;
}

export class StandInChain {
  readonly ctx: MethodContext;
  private timer: NodeJS.Timeout | undefined;
  private saver: NodeJS.Timeout | undefined;
  private dirty = false;
  paused = false;
  private closed = false;

  private constructor(
    readonly ledger: Ledger,
    readonly faucet: FaucetOps,
    readonly faucetKey: DevKey,
    private readonly data: DataDir | undefined,
    private readonly opts: ChainOptions,
  ) {
    this.ctx = { ledger, now: () => Date.now(), touched: () => (this.dirty = true) };
  }

  static async open(opts: ChainOptions): Promise<StandInChain> {
    const data = opts.dir ? new DataDir(opts.dir) : undefined;
    data?.lock();
    try {
      const key = await faucetKey();
      const loaded = data?.load() ?? null;
      let ledger: Ledger;
      if (loaded) {
        ledger = new Ledger(configureSvm(loaded.svm), loaded.header.genesisHash, loaded.header);
        const undo = new Map(loaded.header.undo);
        for (const b of loaded.blocks) ledger.restoreBlock(b, undo.get(b.slot));
        ledger.restorePending(loaded.header.pending, loaded.header.pendingUndo);
        opts.logger.info({ dir: opts.dir, slot: ledger.tip.slot, blockHeight: ledger.tip.blockHeight }, 'solana stand-in: resumed chain');
      } else {
        ledger = new Ledger(configureSvm(new LiteSvm()), toBase58(randomBytes(32)));
        ledger.setLive(key.address, faucetGenesisAccount());
        const genesis = Ledger.genesisBlock(ledger.genesisHash, Math.floor(Date.now() / 1000));
        ledger.restoreBlock(genesis);
        data?.appendBlock(genesis);
      }
      ledger.syncClock(Date.now());
      let chain: StandInChain | undefined;
      const faucet = new FaucetOps(ledger, key, (tx) => submitTransaction(chain!.ctx, tx, false));
      chain = new StandInChain(ledger, faucet, key, data, opts);
      if (data) {
        data.save(ledger);
        chain.saver = setInterval(() => chain!.flush(), opts.snapshotMs ?? 1_000);
        chain.saver.unref();
      }
      chain.startTimer();
      return chain;
    } catch (err) {
      data?.unlock();
      throw err;
    }
  }

  private startTimer(): void {
    if (this.opts.slotMs <= 0 || this.timer) return;
    this.timer = setInterval(() => {
      if (!this.paused) this.produceSlots(1);
    }, this.opts.slotMs);
    this.timer.unref();
  }

  /** Produces n blocks now (the first one takes the pending transactions). */
  produceSlots(n = 1): Block[] {
    const out: Block[] = [];
    for (let i = 0; i < n; i++) {
      const b = this.ledger.produceBlock(Date.now());
      this.data?.appendBlock(b);
      out.push(b);
    }
    this.dirty = true;
    return out;
  }

  skipSlots(n: number): void {
    this.ledger.skipSlots(BigInt(n), Date.now());
    this.dirty = true;
  }

  dropSlots(n: number): { slots: bigint[]; signatures: string[] } {
    const dropped = this.ledger.dropBlocks(n);
    this.data?.truncateBlocks(this.ledger.blocks.length);
    this.dirty = true;
    this.flush();
    this.opts.logger.warn(
      { dropped: dropped.slots.map(String), transactions: dropped.signatures.length },
      'solana stand-in: dropped a fork',
    );
    return dropped;
  }

  pause(): void {
    this.paused = true;
  }

  resume(): void {
    this.paused = false;
  }

  flush(): void {
    if (!this.data || !this.dirty || this.closed) return;
    this.dirty = false;
    this.data.save(this.ledger);
  }

  close(): void {
    if (this.closed) return;
    clearInterval(this.timer);
    clearInterval(this.saver);
    this.flush();
    this.closed = true;
    this.data?.unlock();
  }
}
