/**
 * Where the suite's time goes, per test file: importing it (collect: the file and everything
 * it imports, in its own fork), then running it (tests and their hooks: the world a
 * `beforeAll` boots counts). Vitest's JSON report gives only first test start to last test
 * end, without the hooks and the imports, which are most of an integration file's cost.
 *
 * After a run of more than 20 files it prints the slowest 20; TEST_TIMINGS=<file> also writes
 * every file's figures there as JSON. Durations in seconds, summed per file (three forks run
 * files side by side, so they add up to more than the run's wall time).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Reporter, RunnerTestFile } from 'vitest/node';

export interface FileTiming {
  file: string;
  state: string;
  /** Importing the test file and its imports. */
  collect: number;
  /** Tests and hooks. */
  run: number;
  total: number;
}

const seconds = (ms: number | undefined) => Math.round((ms ?? 0) / 100) / 10;

export default class TimingsReporter implements Reporter {
  onFinished(files: RunnerTestFile[] = []): void {
    const rows: FileTiming[] = files.map((f) => {
      const collect = seconds(f.collectDuration) + seconds(f.setupDuration);
      const run = seconds(f.result?.duration);
      return {
        file: path.relative(process.cwd(), f.filepath),
        state: f.result?.state ?? 'skip',
        collect,
        run,
        total: Math.round((collect + run) * 10) / 10,
      };
    });
    rows.sort((a, b) => b.total - a.total);
    if (process.env.TEST_TIMINGS) writeFileSync(process.env.TEST_TIMINGS, `${JSON.stringify(rows, null, 1)}\n`);
    if (rows.length <= 20) return;
    const sum = rows.reduce((s, r) => s + r.total, 0);
    const lines = rows.slice(0, 20).map((r) => `  ${r.total.toFixed(1).padStart(7)}  ${r.collect.toFixed(1).padStart(6)}  ${r.file}`);
    process.stdout.write(
      `\nSlowest test files (seconds: total, of which importing), of ${rows.length} files summing ${Math.round(sum)} s:\n${lines.join('\n')}\n`,
    );
  }
}
