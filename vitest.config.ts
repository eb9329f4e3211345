import { readdirSync, readFileSync } from 'node:fs';
import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/sequencer.js';

/**
 * Files that replace a module (vi.mock, vi.doMock) for their own run: each gets a fresh module
 * graph. Every other file shares its fork's modules with the files that ran there before it
 * (see `isolate` below), which a module mock would leak into or miss. Found by reading the
 * files, so a new one is never left in the shared forks by a list nobody updated.
 */
const OWN_MODULES = ['src', 'test'].flatMap((dir) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => `${dir}/${file}`)
    .filter((file) => /\bvi\.(?:mock|doMock)\(/.test(readFileSync(file, 'utf8'))),
);

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Called for the root and for the projects that extend it: one PostgreSQL for all (global-setup.ts).
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Three forks on two cores: a test spends most of its time waiting on PostgreSQL, a devnet
    // or a child process, and with two forks the cores were 35-75% busy (sampled over a whole
    // run).
    pool: 'forks',
    poolOptions: {
      // A fork runs file after file with the modules it already imported: importing the
      // service (viem, tronweb, @solana/kit, Fastify...) costs about 1.5 s of CPU, which
      // isolation paid again for each of some 200 files. Worlds are built per file as before;
      // files must leave nothing running (they stop their worlds in afterAll) and put back
      // any global they replace.
      //
      // minForks = maxForks: tinypool (1.1) ends an idle fork while more than minForks are alive,
      // and the fork's teardown answer then marks it available again, so a second teardown
      // starts on it; the first one's exit rejects the second, unhandled ("Terminating worker
      // thread"), failing a run whose every test passed. Two forks and a minimum of one never
      // got there (one left after the first teardown); three did, every run. Forks that live
      // for the whole run also keep the modules they imported.
      forks: { maxForks: 3, minForks: 3, isolate: false },
    },
    projects: [
      { extends: true, test: { name: 'suite', exclude: [...configDefaults.exclude, ...OWN_MODULES] } },
      // The module-mocking files, each in a fresh worker thread (some use the database and the
      // harness: the root's global setup provides to this project too). Not `extends: true`:
      // this project's pool would then be the suite's as well.
      { test: { name: 'own-modules', include: OWN_MODULES, pool: 'threads', testTimeout: 60_000, hookTimeout: 120_000 } },
    ],
    sequence: { sequencer: LongestFirstSequencer },
    // The default report, and where the time went per file (test/support/timings-reporter.ts).
    reporters: ['default', './test/support/timings-reporter.ts'],
  },
});
