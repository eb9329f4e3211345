// The data directory: `blocks.ndjson` gets each block as it is produced (history for getBlock
// and getTransaction), `state.bin` is a snapshot of everything else (litesvm's accounts, the
// slot counters, pending transactions, undo logs of unfinalized slots) written atomically now
// and then and at stop. The snapshot records how much of the block log it covers, so after a
// kill the log is cut back to match and the chain resumes from the snapshot, losing only the
// last seconds, as anvil does with its state interval.
import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { processStartTime } from '../../lib/process.js';
import { LiteSvm } from 'litesvm/dist/internal.js';
import type { Block, Ledger, TxRecord, Undo } from './ledger.js';

const FORMAT = 1;

function replacer(this: unknown, _k: string, v: unknown): unknown {
  if (typeof v === 'bigint') return { $n: v.toString() };
  if (v instanceof Uint8Array) return { $b: Buffer.from(v).toString('base64') };
  if (v instanceof Map) return { $m: [...v.entries()] };
  return v;
}

function reviver(_k: string, v: unknown): unknown {
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    if (typeof o.$n === 'string') return BigInt(o.$n);
    if (typeof o.$b === 'string') return new Uint8Array(Buffer.from(o.$b, 'base64'));
    if (Array.isArray(o.$m)) return new Map(o.$m as [unknown, unknown][]);
  }
  return v;
}

const encode = (v: unknown) => JSON.stringify(v, replacer);
const decode = <T>(text: string) => JSON.parse(text, reviver) as T;

interface StateHeader {
  format: number;
  genesisHash: string;
  nextSlot: bigint;
  finalizedSlot: bigint;
  blocksBytes: number;
  pending: TxRecord[];
  pendingUndo: Undo;
  undo: [bigint, Undo][];
}

export interface Loaded {
  svm: LiteSvm;
  header: StateHeader;
  blocks: Block[];
}

const openDirs = new Set<string>();

export class DataDir {
  private readonly blocksFile: string;
  private readonly stateFile: string;
  private readonly pidFile: string;
  private blocksBytes = 0;
  /** Byte offset of each block's line, parallel to ledger.blocks. */
  private offsets: number[] = [];

  constructor(readonly dir: string) {
    this.blocksFile = path.join(dir, 'blocks.ndjson');
    this.stateFile = path.join(dir, 'state.bin');
    this.pidFile = path.join(dir, 'standin.pid');
  }

  /** Claims the directory: one stand-in per data directory, as one validator per ledger. */
  lock(): void {
    mkdirSync(this.dir, { recursive: true });
    const resolved = path.resolve(this.dir);
    if (openDirs.has(resolved)) throw new Error(`solana stand-in: ${this.dir} is already in use by this process`);
    try {
      // "<pid> <start time>": the holder is that very process, not whichever took its pid since
      // it died (a SIGKILLed service's pid reused on a busy machine looked like a live holder).
      const [pidText, started] = readFileSync(this.pidFile, 'utf8').trim().split(/\s+/);
      const pid = Number.parseInt(pidText ?? '', 10);
      if (pid > 0 && pid !== process.pid && holds(pid, started))
        throw new Error(`solana stand-in: ${this.dir} is in use by process ${pid}`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    writeFileSync(this.pidFile, `${process.pid} ${processStartTime(process.pid) ?? ''}\n`);
    openDirs.add(resolved);
  }

  unlock(): void {
    rmSync(this.pidFile, { force: true });
    openDirs.delete(path.resolve(this.dir));
  }

  /** Reads the last snapshot and the block log it covers; null for a fresh directory. */
  load(): Loaded | null {
    if (!existsSync(this.stateFile)) {
      rmSync(this.blocksFile, { force: true });
      return null;
    }
    const raw = readFileSync(this.stateFile);
    const len = raw.readUInt32LE(0);
    const header = decode<StateHeader>(raw.subarray(4, 4 + len).toString('utf8'));
    if (header.format !== FORMAT) throw new Error(`solana stand-in: ${this.stateFile} has format ${header.format}, expected ${FORMAT}`);
    const svm = LiteSvm.fromBytes(raw.subarray(4 + len));
    if (!existsSync(this.blocksFile)) writeFileSync(this.blocksFile, '');
    if (statSync(this.blocksFile).size > header.blocksBytes) truncateSync(this.blocksFile, header.blocksBytes);
    const text = readFileSync(this.blocksFile, 'utf8');
    const blocks: Block[] = [];
    let at = 0;
    for (const line of text.split('\n')) {
      if (!line) continue;
      this.offsets.push(at);
      at += Buffer.byteLength(line) + 1;
      blocks.push(decode<Block>(line));
    }
    this.blocksBytes = at;
    return { svm, header, blocks };
  }

  appendBlock(block: Block): void {
    const line = `${encode(block)}\n`;
    const fd = openSync(this.blocksFile, 'a');
    try {
      writeSync(fd, line);
    } finally {
      closeSync(fd);
    }
    this.offsets.push(this.blocksBytes);
    this.blocksBytes += Buffer.byteLength(line);
  }

  /** Cuts the log back to `keep` blocks (after a fork drop). */
  truncateBlocks(keep: number): void {
    if (keep >= this.offsets.length) return;
    this.blocksBytes = this.offsets[keep]!;
    this.offsets = this.offsets.slice(0, keep);
    truncateSync(this.blocksFile, this.blocksBytes);
  }

  /** Writes the snapshot to a temporary file, syncs it, and renames it into place. */
  save(ledger: Ledger): void {
    const undo: [bigint, Undo][] = [];
    for (const b of ledger.blocks) {
      const u = ledger.undoOf(b.slot);
      if (u) undo.push([b.slot, u]);
    }
    const header: StateHeader = {
      format: FORMAT,
      genesisHash: ledger.genesisHash,
      nextSlot: ledger.nextSlot,
      finalizedSlot: ledger.finalizedSlot,
      blocksBytes: this.blocksBytes,
      pending: ledger.pending,
      pendingUndo: ledger.pendingUndo,
      undo,
    };
    const json = Buffer.from(encode(header), 'utf8');
    const len = Buffer.alloc(4);
    len.writeUInt32LE(json.length);
    const tmp = `${this.stateFile}.tmp`;
    const fd = openSync(tmp, 'w');
    try {
      writeSync(fd, len);
      writeSync(fd, json);
      writeSync(fd, ledger.svm.toBytes());
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, this.stateFile);
  }
}

/** Whether `pid`, which wrote `started` as its start time, still runs (without /proc: whether any process has that pid). */
function holds(pid: number, started: string | undefined): boolean {
  if (existsSync('/proc/self/stat')) {
    const now = processStartTime(pid);
    return now !== null && (started === undefined || started === now);
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
