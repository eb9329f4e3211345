/**
 * packages/sdk as npm would publish it: `npm pack` holds everything its `exports`, `main`,
 * `types` and `bin` name and nothing else; the library imports nothing beyond Node; ES
 * module and CommonJS consumers (and their TypeScript) resolve both entry points; the
 * root package's `./receiver` still resolves, now to the SDK's verifier; the SDK examples
 * of the docs (test/support/doc-snippets.ts) compile against the built package.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/build.js';
import { ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS, SDK_DIR } from '../support/sdk.js';
import { sdkExamples } from '../support/doc-snippets.js';
import { SDK_VERSION } from '../../packages/sdk/src/version.js';

const pkg = JSON.parse(readFileSync(path.join(SDK_DIR, 'package.json'), 'utf8'));

/** Every file path a package.json `exports` value names. */
function exportTargets(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(exportTargets);
  return [];
}
/**
 * An import resolved when the test runs, not when Vite transforms this file: a literal would
 * be resolved then, and another file's SDK rebuild (which empties dist/ first) may be under
 * way in the other fork at that moment.
 */
const importBuilt = (specifier: string): Promise<Record<string, unknown>> => import(/* @vite-ignore */ specifier);
const norm = (p: string) => path.posix.normalize(p).replace(/^\.\//, '');

beforeAll(ensureSdkBuilt, SDK_BUILD_TIMEOUT_MS);

describe('the SDK package', () => {
  it('packs every file its exports, main, types and bin name, and nothing of its sources or tests', async () => {
    // --ignore-scripts: list what is built (npm install built it); prepack would rebuild it.
    const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: SDK_DIR });
    const [packed] = JSON.parse(stdout) as { name: string; version: string; files: { path: string; mode: number }[] }[];
    expect(packed).toMatchObject({ name: '@stablecoin-wallet/sdk', version: SDK_VERSION });
    const files = new Set(packed!.files.map((f) => f.path));
    const named = [...exportTargets(pkg.exports), pkg.main, pkg.module, pkg.types, ...Object.values(pkg.bin as Record<string, string>)].map(
      norm,
    );
    for (const f of named) expect(files, f).toContain(f);
    expect(files).toContain('README.md');
    expect(files).toContain('package.json');
    expect(files).toContain('dist/cjs/package.json');
    expect(files).toContain('dist/esm/cli/main.js');
    expect([...files].filter((f) => !/^(bin\/|dist\/(esm|cjs)\/|README\.md$|package\.json$)/.test(f))).toEqual([]);
    expect([...files].filter((f) => /\.test\.|\.ts$/.test(f) && !f.endsWith('.d.ts'))).toEqual([]);
    const bin = packed!.files.find((f) => f.path === norm(pkg.bin.wallet))!;
    expect(bin.mode & 0o111).not.toBe(0);
  });

  it('needs nothing at run time beyond Node, except commander for the CLI', () => {
    expect(Object.keys(pkg.dependencies ?? {})).toEqual(['commander']);
    expect(pkg.engines.node).toBe('>=22');
    const outside = new Set<string>();
    const visit = (dir: string) => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (p !== path.join(SDK_DIR, 'dist/esm/cli')) visit(p);
        } else if (p.endsWith('.js')) {
          // Comments (examples in doc comments) are not imports.
          const code = readFileSync(p, 'utf8')
            .replace(/\/\*[\s\S]*?\*\//g, '')
            .replace(/^\s*\/\/.*$/gm, '');
          for (const m of code.matchAll(/(?:from |import\(|require\()\s*['"]([^'"]+)['"]/g)) {
            if (!m[1]!.startsWith('.') && !m[1]!.startsWith('node:')) outside.add(`${path.relative(SDK_DIR, p)}: ${m[1]}`);
          }
        }
      }
    };
    visit(path.join(SDK_DIR, 'dist'));
    expect([...outside]).toEqual([]);
  });

  it('loads as an ES module and as CommonJS, both entry points, with the same exports', async () => {
    const require = createRequire(path.join(ROOT, 'package.json'));
    const cjs = require('@stablecoin-wallet/sdk');
    const esm = await importBuilt('@stablecoin-wallet/sdk');
    expect(Object.keys(cjs).sort()).toEqual(
      Object.keys(esm)
        .filter((k) => k !== 'default')
        .sort(),
    );
    expect(typeof cjs.WalletClient).toBe('function');
    expect(cjs.SDK_VERSION).toBe(pkg.version);
    const hooksCjs = require('@stablecoin-wallet/sdk/webhooks');
    const hooksEsm = await importBuilt('@stablecoin-wallet/sdk/webhooks');
    expect(typeof hooksCjs.verifyWebhook).toBe('function');
    expect(typeof hooksEsm.signWebhook).toBe('function');
    // The root package's old entry point, now the SDK's verifier.
    expect(typeof require('stablecoin-wallet-service/receiver').verifyWebhook).toBe('function');
    expect(typeof (await importBuilt('stablecoin-wallet-service/receiver')).verifyWebhook).toBe('function');
  });

  // tsc over the generated types takes a minute or more on a busy machine: run it as a child
  // process without blocking this worker (vitest's own messages must get through), given time.
  it("type-checks in an ES module and a CommonJS TypeScript project, and so do the docs' SDK examples", { timeout: 600_000 }, async () => {
    const dir = path.join(ROOT, '.cache', `sdk-consumer-${process.pid}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    try {
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: { module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, types: ['node'] },
          include: ['*.mts', '*.cts'],
        }),
      );
      const use = (imports: string) => `${imports}
const client = new WalletClient({ baseUrl: 'http://127.0.0.1:8080', apiKey: 'sk_test_x' });
export async function f(walletId: string): Promise<string | undefined> {
  for await (const tx of client.transactions.list(walletId, { status: 'SUCCESS' })) return tx.hash ?? undefined;
  const code: ErrorCode = 'INSUFFICIENT_BALANCE';
  verifyWebhook({ body: '{}', headers: {}, apiKey: 'k' });
  return code;
}
`;
      writeFileSync(
        path.join(dir, 'esm.mts'),
        use(
          "import { WalletClient, type ErrorCode } from '@stablecoin-wallet/sdk';\nimport { verifyWebhook } from '@stablecoin-wallet/sdk/webhooks';",
        ),
      );
      writeFileSync(
        path.join(dir, 'cjs.cts'),
        use(
          "import { WalletClient, type ErrorCode } from '@stablecoin-wallet/sdk';\nimport { verifyWebhook } from '@stablecoin-wallet/sdk/webhooks';",
        ),
      );
      // A wrong code must fail, or the check proves nothing.
      writeFileSync(
        path.join(dir, 'wrong.mts'),
        "import type { ErrorCode } from '@stablecoin-wallet/sdk';\nexport const c: ErrorCode = 'NO_SUCH_CODE';\n",
      );
      // The examples README.md, docs/sdk.md, docs/webhooks.md and the package's README show.
      const examples = sdkExamples(ROOT);
      expect(examples.map((e) => e.where)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^README\.md:/), expect.stringMatching(/^docs\/sdk\.md:/)]),
      );
      for (const [i, e] of examples.entries()) writeFileSync(path.join(dir, `example-${i}.mts`), e.module);
      const tsc = path.join(ROOT, 'node_modules/typescript/bin/tsc');
      let output = '';
      try {
        await promisify(execFile)(process.execPath, [tsc, '-p', dir], { encoding: 'utf8', cwd: dir });
      } catch (err) {
        output = (err as { stdout: string }).stdout;
      }
      const where = examples.map((e, i) => `example-${i}.mts: ${e.where}`).join('\n');
      expect(output.trim().split('\n'), where).toEqual([expect.stringMatching(/^wrong\.mts\(2,14\): error TS2322: Type '"NO_SUCH_CODE"'/)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
