import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirInUseError, lockDataDir } from './data-dir-lock.ts';

let tmp: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'wallet-lock-'));
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await rm(tmp, { recursive: true, force: true });
});

/** Another process holding the lock on `dir` until killed. */
function holder(dir: string): Promise<ChildProcess> {
  const code = `import { lockDataDir } from ${JSON.stringify(path.resolve('src/lib/data-dir-lock.ts'))};
    await lockDataDir(${JSON.stringify(dir)}); console.log('locked'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => d.toString().includes('locked') && resolve(child));
    child.once('exit', (code) => reject(new Error(`holder exited (${code})`)));
  });
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => {
      throw new Error('the lock was granted');
    },
    (err: unknown) => err as DataDirInUseError,
  );

describe('data directory lock', () => {
  it('is refused while another process holds it, naming that process; granted once it is killed (SIGKILL)', async () => {
    const dir = path.join(tmp, 'a');
    const child = await holder(dir);
    const err = await refusal(lockDataDir(dir));
    expect(err).toBeInstanceOf(DataDirInUseError);
    expect(err.holder?.pid).toBe(child.pid);
    expect(err.holder?.command).toContain('-e');
    expect(err.message).toContain(`pid ${child.pid}`);

    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    const lock = await lockDataDir(dir);
    await lock.release();
  });

  it('is one lock per directory, whatever path names it; released locks can be taken again', async () => {
    const dir = path.join(tmp, 'b');
    const lock = await lockDataDir(dir);
    await symlink(dir, path.join(tmp, 'b-link'));
    expect(await refusal(lockDataDir(path.join(tmp, 'b-link')))).toBeInstanceOf(DataDirInUseError);
    expect(await refusal(lockDataDir(`${dir}/.`))).toBeInstanceOf(DataDirInUseError);
    const other = await lockDataDir(path.join(tmp, 'c'));
    await other.release();
    await lock.release();
    const again = await lockDataDir(path.join(tmp, 'b-link'));
    await again.release();
  });
});
