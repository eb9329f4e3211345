import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isDatabaseUnreachable, isWorkerDoubleRelease } from './rejections.js';

const coded = (message: string, code?: string) => Object.assign(new Error(message), code ? { code } : {});

describe('isDatabaseUnreachable', () => {
  it('names the errors of a PostgreSQL that is down or restarting', () => {
    expect(isDatabaseUnreachable(coded('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe(true);
    expect(isDatabaseUnreachable(coded('terminating connection due to administrator command', '57P01'))).toBe(true);
    expect(isDatabaseUnreachable(coded('the database system is shutting down', '57P03'))).toBe(true);
    expect(isDatabaseUnreachable(coded('connection failure', '08006'))).toBe(true);
    expect(isDatabaseUnreachable(new Error('Connection terminated unexpectedly'))).toBe(true);
  });
  it('nothing else: bugs, SQL errors, non-errors', () => {
    expect(isDatabaseUnreachable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(false);
    expect(isDatabaseUnreachable(coded('duplicate key value violates unique constraint', '23505'))).toBe(false);
    expect(isDatabaseUnreachable(coded('relation "x" does not exist', '42P01'))).toBe(false);
    expect(isDatabaseUnreachable('ECONNREFUSED')).toBe(false);
    expect(isDatabaseUnreachable(undefined)).toBe(false);
  });
});

describe('isWorkerDoubleRelease', () => {
  const released = (stack: string) =>
    Object.assign(new Error('Release called on client which has already been released to the pool.'), {
      stack: `Error: Release called on client which has already been released to the pool.\n${stack}`,
    });
  it("pg-pool's refusal of a second release, thrown from graphile-worker's listener", () => {
    expect(
      isWorkerDoubleRelease(
        released(
          '    at throwOnDoubleRelease (/srv/app/node_modules/pg-pool/index.js:27:9)\n    at /srv/app/node_modules/graphile-worker/dist/main.js:324:29',
        ),
      ),
    ).toBe(true);
  });
  it('not the same refusal from anywhere else (our own double release is a bug), nor other errors', () => {
    expect(
      isWorkerDoubleRelease(
        released(
          '    at throwOnDoubleRelease (/srv/app/node_modules/pg-pool/index.js:27:9)\n    at release (/srv/app/dist/db/pool.js:40:7)',
        ),
      ),
    ).toBe(false);
    expect(
      isWorkerDoubleRelease(Object.assign(new Error('a bug'), { stack: 'at /srv/app/node_modules/graphile-worker/dist/main.js:1:1' })),
    ).toBe(false);
    expect(isWorkerDoubleRelease('Release called on client which has already been released to the pool.')).toBe(false);
  });
});

describe('tolerateDatabaseOutages (in a process of its own)', () => {
  const module = fileURLToPath(new URL('./rejections.ts', import.meta.url));
  const run = (reason: string) =>
    spawnSync(
      process.execPath,
      [
        '--import',
        'tsx/esm',
        '--input-type=module',
        '-e',
        `const { tolerateDatabaseOutages } = await import(${JSON.stringify(module)});
         tolerateDatabaseOutages({ warn: (o, m) => console.log('WARN', m) });
         Promise.reject(${reason});
         setTimeout(() => console.log('still running'), 200);`,
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );

  it('an unhandled rejection saying the database is unreachable is logged and the process lives on', () => {
    const r = run(`Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' })`);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('WARN');
    expect(r.stdout).toContain('still running');
  });
  it("graphile-worker's second release of its lost listener connection is logged and the process lives on", () => {
    const r = run(
      `Object.assign(new Error('Release called on client which has already been released to the pool.'), { stack: 'Error: Release called on client which has already been released to the pool.\\n    at /srv/app/node_modules/graphile-worker/dist/main.js:324:29' })`,
    );
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain('WARN');
    expect(r.stdout).toContain('still running');
  });
  it('any other unhandled rejection still ends the process', () => {
    const r = run(`new TypeError('a bug')`);
    expect(r.status).not.toBe(0);
    expect(r.stdout).not.toContain('still running');
    expect(r.stderr).toContain('a bug');
  });
});
