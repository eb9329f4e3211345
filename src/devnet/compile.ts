// Compiles contracts/*.sol with solc-js into JSON artifacts under .cache/contracts, keyed by a
// hash of the sources and compiler settings, so `npm start` and the tests pay the ~0.7 s
// compile only when a contract (or the compiler) actually changed.
import { createHash } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readFile, readdir, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Abi, Hex } from 'viem';

export interface ContractArtifact {
  abi: Abi;
  bytecode: Hex;
  deployedBytecode: Hex;
}

interface CachedArtifact extends ContractArtifact {
  contractName: string;
  sourceFile: string;
  sourceHash: string;
}

interface CacheIndex {
  sourceHash: string;
  contracts: string[];
}

export interface CompileReport {
  compiled: boolean;
  sourceHash: string;
  contracts: string[];
  warnings: string[];
  ms: number;
}

const require = createRequire(import.meta.url);

// Part of the cache key: the same sources under other settings are other bytecode.
// "cancun" rather than solc's newer default keeps the bytecode valid on any anvil hardfork
// from cancun on, and on the public testnets the service also targets.
const SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: 'cancun',
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
} as const;

function findProjectRoot(): string {
  // Walk up rather than hard-code '../..', so the module still finds the project when it is
  // run from elsewhere (e.g. a build output directory).
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'contracts'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error('compile: no directory with package.json and contracts/ above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
}

const ROOT = findProjectRoot();
export const CONTRACTS_DIR = path.join(ROOT, 'contracts');
export const ARTIFACTS_DIR = path.join(ROOT, '.cache', 'contracts');
const INDEX_FILE = path.join(ARTIFACTS_DIR, 'index.json');

interface Sources {
  files: Record<string, { content: string }>;
  hash: string;
}

async function readSources(): Promise<Sources> {
  const names = (await readdir(CONTRACTS_DIR)).filter((f) => f.endsWith('.sol')).sort();
  if (names.length === 0) throw new Error(`compile: no .sol files in ${CONTRACTS_DIR}`);
  const files: Record<string, { content: string }> = {};
  for (const name of names) files[name] = { content: await readFile(path.join(CONTRACTS_DIR, name), 'utf8') };
  const solcVersion = (require('solc/package.json') as { version: string }).version;
  const hash = createHash('sha256').update(JSON.stringify({ solcVersion, SETTINGS, files })).digest('hex');
  return { files, hash };
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    return undefined; // missing or half-written by a crashed run: treat as not cached
  }
}

// Another process (a parallel test worker) may be compiling at the same time; rename is
// atomic, so readers see either the old or the new file, never a torn one.
async function writeJsonAtomic(file: string, value: unknown): Promise<void> {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await writeFile(tmp, JSON.stringify(value, null, 2) + '\n');
  await rename(tmp, file);
}

async function cacheIsFresh(hash: string): Promise<CacheIndex | undefined> {
  const index = await readJson<CacheIndex>(INDEX_FILE);
  if (!index || index.sourceHash !== hash) return undefined;
  for (const name of index.contracts) {
    const art = await readJson<CachedArtifact>(path.join(ARTIFACTS_DIR, `${name}.json`));
    if (!art || art.sourceHash !== hash) return undefined;
  }
  return index;
}

interface SolcOutput {
  errors?: { severity: 'error' | 'warning' | 'info'; formattedMessage: string }[];
  contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
}

async function compileAll(src: Sources): Promise<CompileReport> {
  const started = performance.now();
  // Loaded lazily: the emscripten compiler costs time and memory that a warm cache never needs.
  const solc = require('solc') as { compile(input: string): string };
  const out = JSON.parse(solc.compile(JSON.stringify({ language: 'Solidity', sources: src.files, settings: SETTINGS }))) as SolcOutput;
  const problems = out.errors ?? [];
  const errors = problems.filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error('solc failed:\n' + errors.map((e) => e.formattedMessage).join('\n'));

  await mkdir(ARTIFACTS_DIR, { recursive: true });
  const names: string[] = [];
  for (const [sourceFile, contracts] of Object.entries(out.contracts ?? {})) {
    for (const [contractName, c] of Object.entries(contracts)) {
      // Artifacts are looked up by contract name alone, so two files must not share one.
      if (names.includes(contractName)) throw new Error(`compile: contract name ${contractName} is defined twice`);
      names.push(contractName);
      const artifact: CachedArtifact = {
        contractName,
        sourceFile,
        sourceHash: src.hash,
        abi: c.abi,
        bytecode: `0x${c.evm.bytecode.object}`,
        deployedBytecode: `0x${c.evm.deployedBytecode.object}`,
      };
      await writeJsonAtomic(path.join(ARTIFACTS_DIR, `${contractName}.json`), artifact);
    }
  }
  names.sort();
  // Written last: its hash vouches that every artifact it lists is complete.
  await writeJsonAtomic(INDEX_FILE, { sourceHash: src.hash, contracts: names } satisfies CacheIndex);
  return {
    compiled: true,
    sourceHash: src.hash,
    contracts: names,
    warnings: problems.filter((e) => e.severity !== 'error').map((e) => e.formattedMessage),
    ms: Math.round(performance.now() - started),
  };
}

// Keyed by source hash so concurrent callers share one compile, while a source edited during
// a long-lived process (watch mode) still gets its own.
const inflight = new Map<string, Promise<CompileReport>>();

/** Makes sure every contract has a fresh artifact; compiles only if the sources changed. */
export async function compileContracts(): Promise<CompileReport> {
  const src = await readSources();
  let pending = inflight.get(src.hash);
  if (!pending) {
    const started = performance.now();
    pending = cacheIsFresh(src.hash).then(async (index) =>
      index
        ? { compiled: false, sourceHash: src.hash, contracts: index.contracts, warnings: [], ms: Math.round(performance.now() - started) }
        : compileAll(src),
    );
    inflight.set(src.hash, pending);
    // A failed compile must not be remembered, or fixing the source would need a restart.
    pending.catch(() => inflight.delete(src.hash));
  }
  return pending;
}

/** The ABI and bytecode of one contract from contracts/*.sol, compiling first if needed. */
export async function loadArtifact(name: string): Promise<ContractArtifact> {
  const src = await readSources();
  const file = path.join(ARTIFACTS_DIR, `${name}.json`);
  let art = await readJson<CachedArtifact>(file);
  if (!art || art.sourceHash !== src.hash) {
    const report = await compileContracts();
    if (!report.contracts.includes(name)) {
      throw new Error(`compile: no contract named ${name} in ${CONTRACTS_DIR} (have: ${report.contracts.join(', ')})`);
    }
    art = await readJson<CachedArtifact>(file);
    if (!art) throw new Error(`compile: artifact ${file} missing after compile`);
  }
  return { abi: art.abi, bytecode: art.bytecode, deployedBytecode: art.deployedBytecode };
}

function isMain(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return pathToFileURL(realpathSync(entry)).href === pathToFileURL(realpathSync(fileURLToPath(import.meta.url))).href;
  } catch {
    return false;
  }
}

if (isMain()) {
  compileContracts().then(
    (r) => {
      for (const w of r.warnings) console.warn(w);
      const rel = path.relative(process.cwd(), ARTIFACTS_DIR) || '.';
      console.log(
        r.compiled
          ? `compiled ${r.contracts.length} contracts (${r.contracts.join(', ')}) in ${r.ms} ms -> ${rel}`
          : `contracts up to date (${r.contracts.join(', ')}; sources sha256 ${r.sourceHash.slice(0, 12)}) in ${rel}`,
      );
    },
    (err: unknown) => {
      console.error(err instanceof Error ? err.message : err);
      process.exitCode = 1;
    },
  );
}
