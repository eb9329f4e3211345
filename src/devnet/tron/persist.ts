// The stand-in's data directory, written so that a kill at any moment leaves a consistent
// chain: blocks are appended to chain.jsonl, the EVM state is dumped to its own file when it
// changed, and state.json (ledger, pending transactions, which block and which EVM dump it
// goes with) is replaced last, atomically. On load, state.json decides; lines of chain.jsonl
// past its height are dropped.
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync, appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Block } from './chain.js';
import { Ledger } from './ledger.js';
import type { NodeState } from './node.js';
import type { ContractRecord } from './vm.js';

const FORMAT = 1;

interface StateFile {
  format: number;
  height: number;
  headId: string;
  evmFile: string;
  timeOffsetMs: number;
  ledger: unknown;
  pending: Block['txs'];
  contracts: ContractRecord[];
  meta: Record<string, unknown>;
}

export interface LoadedState extends NodeState {
  evmState: string;
  meta: Record<string, unknown>;
}

export class Store {
  private persistedHeight = -1;
  private lastEvmFile: string | undefined;

  constructor(readonly dir: string) {
    mkdirSync(dir, { recursive: true });
  }

  private file(name: string): string {
    return path.join(this.dir, name);
  }

  exists(): boolean {
    return existsSync(this.file('state.json'));
  }

  load(): LoadedState {
    const s = JSON.parse(readFileSync(this.file('state.json'), 'utf8')) as StateFile;
    if (s.format !== FORMAT) throw new Error(`tron stand-in: ${this.dir} holds state format ${s.format}, expected ${FORMAT}`);
    const lines = readFileSync(this.file('chain.jsonl'), 'utf8').split('\n');
    const blocks: Block[] = [];
    for (let i = 0; i <= s.height; i++) {
      const line = lines[i];
      if (!line) throw new Error(`tron stand-in: chain.jsonl in ${this.dir} ends before block ${i}`);
      blocks.push(JSON.parse(line) as Block);
    }
    if (blocks[s.height]?.id !== s.headId) {
      throw new Error(
        `tron stand-in: ${this.dir} was torn during a reorganisation (chain.jsonl does not match state.json); delete the directory to start a fresh chain`,
      );
    }
    // A block appended just before a kill, never committed by state.json: drop it.
    if (lines.filter(Boolean).length > blocks.length) this.rewriteBlocks(blocks);
    this.persistedHeight = s.height;
    this.lastEvmFile = s.evmFile;
    return {
      blocks,
      ledger: Ledger.fromJSON(s.ledger),
      contracts: new Map(s.contracts.map((c) => [c.address, c])),
      pending: s.pending,
      timeOffsetMs: s.timeOffsetMs,
      evmState: JSON.parse(readFileSync(this.file(s.evmFile), 'utf8')) as string,
      meta: s.meta,
    };
  }

  /**
   * Saves the state. `evm` is the current anvil head and a way to dump it; the dump is only
   * taken when the anvil head moved since the last save.
   */
  async save(
    state: NodeState,
    evm: { head: { number: number; hash: string }; dump: () => Promise<string> },
    meta: Record<string, unknown>,
  ): Promise<void> {
    const evmFile = `evm-${evm.head.number}-${evm.head.hash.slice(2, 10)}.json`;
    if (evmFile !== this.lastEvmFile || !existsSync(this.file(evmFile))) {
      writeAtomic(this.file(evmFile), JSON.stringify(await evm.dump()));
    }
    const head = state.blocks.length - 1;
    if (head < this.persistedHeight || this.persistedHeight < 0) this.rewriteBlocks(state.blocks);
    else if (head > this.persistedHeight) {
      appendFileSync(
        this.file('chain.jsonl'),
        state.blocks
          .slice(this.persistedHeight + 1)
          .map((b) => JSON.stringify(b) + '\n')
          .join(''),
      );
    }
    const file: StateFile = {
      format: FORMAT,
      height: head,
      headId: (state.blocks[head] as Block).id,
      evmFile,
      timeOffsetMs: state.timeOffsetMs,
      ledger: state.ledger.toJSON(),
      pending: state.pending,
      contracts: [...state.contracts.values()],
      meta,
    };
    writeAtomic(this.file('state.json'), JSON.stringify(file));
    this.persistedHeight = head;
    const previous = this.lastEvmFile;
    this.lastEvmFile = evmFile;
    // Keep the dump state.json names; an older one is garbage once the rename above landed.
    for (const f of readdirSync(this.dir)) {
      if (f.startsWith('evm-') && f.endsWith('.json') && f !== evmFile && f !== previous) rmSync(this.file(f), { force: true });
    }
  }

  /** After a reorg: chain.jsonl is rewritten before state.json moves to the shorter head. */
  private rewriteBlocks(blocks: Block[]): void {
    writeAtomic(this.file('chain.jsonl'), blocks.map((b) => JSON.stringify(b) + '\n').join(''));
  }
}

function writeAtomic(file: string, content: string): void {
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content);
  renameSync(tmp, file);
}
