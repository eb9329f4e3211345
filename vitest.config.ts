import { configDefaults, defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/support/sequencer.js';

/**
 * Files that replace a module (vi.mock) for their own run: each gets a fresh module graph.
 * Every other file shares its fork's modules with the files that ran there before it (see
 * `isolate` below), which a module mock would leak into or miss.
 */
const OWN_MODULES = ['src/keys/slip10-wipe.test.ts'];

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: one fork per core keeps PostgreSQL and anvil responsive.
    pool: 'forks',
    poolOptions: {
      // A fork runs file after file with the modules it already imported: importing the
      // service (viem, tronweb, @solana/kit, Fastify...) costs about 1.5 s of CPU, which
      // isolation paid again for each of some 180 files. Worlds are built per file as before;
      // files must leave nothing running (they stop their worlds in afterAll).
      forks: { maxForks: 2, minForks: 1, isolate: false },
    },
    projects: [
      { extends: true, test: { name: 'suite', exclude: [...configDefaults.exclude, ...OWN_MODULES] } },
      // Pure unit files: no database, no global setup; a worker thread each.
      { test: { name: 'own-modules', include: OWN_MODULES, pool: 'threads' } },
    ],
    sequence: { sequencer: LongestFirstSequencer },
    // The default report, and where the time went per file (test/support/timings-reporter.ts).
    reporters: ['default', './test/support/timings-reporter.ts'],
  },
});
