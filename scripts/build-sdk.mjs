// The root's `prepare` (run by `npm install` and `npm ci`): builds packages/sdk, so its
// `wallet` command and its JavaScript entry points work right after install. Skipped when
// the SDK's sources are not there (an image build that copies package files first).
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sdk = path.join(root, 'packages/sdk');
if (!existsSync(path.join(sdk, 'src/index.ts'))) {
  console.log('prepare: packages/sdk/src is not here; the SDK is not built');
} else {
  execFileSync(process.execPath, [path.join(sdk, 'scripts/build.mjs')], { stdio: 'inherit', cwd: sdk });
}
