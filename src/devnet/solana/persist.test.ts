// The stand-in's claim on its data directory (one stand-in per directory, as one validator per
// ledger): held while its holder runs, free once that process is gone even when another has
// taken its pid since (a SIGKILLed service's pid reused on a busy machine).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartTime } from '../../lib/process.js';
import { DataDir } from './persist.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function freshDir(): string {
  const d = mkdtempSync(path.join(os.tmpdir(), 'standin-lock-'));
  dirs.push(d);
  return d;
}

describe('DataDir.lock', () => {
  it('refuses a directory whose holder still runs, and takes one whose pid now names another process', async () => {
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = other.pid!;
      await expect.poll(() => processStartTime(pid)).not.toBeNull();
      const held = freshDir();
      writeFileSync(path.join(held, 'standin.pid'), `${pid} ${processStartTime(pid)}\n`);
      expect(() => new DataDir(held).lock()).toThrow(`is in use by process ${pid}`);
      // The same pid, written by a process that started at another time: that holder is gone.
      const reused = freshDir();
      writeFileSync(path.join(reused, 'standin.pid'), `${pid} 1\n`);
      const dir = new DataDir(reused);
      dir.lock();
      dir.unlock();
    } finally {
      other.kill('SIGKILL');
    }
  });
});
