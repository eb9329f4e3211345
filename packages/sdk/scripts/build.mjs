// Builds the package: ES modules (dist/esm, with the CLI) and CommonJS (dist/cjs), each
// with its .d.ts, using the TypeScript compiler of the repository (plain tsc, both at once).
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const run = (project) =>
  new Promise((resolve) => {
    execFile(process.execPath, [tsc, '-p', path.join(root, project)], { cwd: root }, (err, stdout, stderr) => {
      process.stdout.write(stdout);
      process.stderr.write(stderr);
      resolve(err ? `tsc -p ${project} failed` : null);
    });
  });

// Dated from the start: a source saved during the build is newer than the stamp (tests rebuild then).
const started = new Date();
rmSync(path.join(root, 'dist'), { recursive: true, force: true });
const failures = (await Promise.all([run('tsconfig.json'), run('tsconfig.cjs.json')])).filter(Boolean);
if (failures.length > 0) {
  console.error(`@stablecoin-wallet/sdk: ${failures.join('; ')}`);
  process.exit(1);
}
// The nearest package.json decides how Node (and TypeScript) read dist/cjs/*.js and *.d.ts.
mkdirSync(path.join(root, 'dist/cjs'), { recursive: true });
writeFileSync(path.join(root, 'dist/cjs/package.json'), '{ "type": "commonjs" }\n');
chmodSync(path.join(root, 'dist/esm/cli/main.js'), 0o755);
const stamp = path.join(root, 'dist/.build-stamp');
writeFileSync(stamp, `${started.toISOString()}\n`);
utimesSync(stamp, started, started);
