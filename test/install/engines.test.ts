/**
 * The installed dependency tree runs on the Node.js this project supports: every installed
 * package's `engines.node` (nested copies included) accepts the running Node, and the
 * project's own `engines.node` does too. On an unsupported Node (20, say) this fails and says
 * which Node it saw: the suite is not expected to pass there. CI runs the suite on the newest
 * LTS and installs with engine-strict on the older supported ones (.ci/run), so a dependency
 * upgrade that needs a newer Node than `engines` admits fails there instead of at a user's.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from '../support/build.js';

const semver = createRequire(import.meta.url)('semver') as { satisfies(version: string, range: string): boolean };

/** Every package.json under node_modules, at any depth (scoped packages included). */
function installedPackages(dir: string, out: string[] = []): string[] {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (name.startsWith('.')) continue;
    const pkgDir = path.join(dir, name);
    if (name.startsWith('@')) {
      installedPackages(pkgDir, out);
      continue;
    }
    const manifest = path.join(pkgDir, 'package.json');
    if (existsSync(manifest)) out.push(manifest);
    installedPackages(path.join(pkgDir, 'node_modules'), out);
  }
  return out;
}

it("every installed package's engines.node accepts the running Node", () => {
  const manifests = installedPackages(path.join(ROOT, 'node_modules'));
  expect(manifests.length).toBeGreaterThan(100);
  const refused = manifests.flatMap((file) => {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string; engines?: { node?: string } };
    const range = pkg.engines?.node;
    if (!range || semver.satisfies(process.version, range)) return [];
    return [`${pkg.name}@${pkg.version} wants node ${range} (${path.relative(ROOT, file)})`];
  });
  const own = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } };
  expect(
    semver.satisfies(process.version, own.engines.node),
    `Node ${process.version} is not supported (engines: ${own.engines.node})`,
  ).toBe(true);
  expect(refused, `Node ${process.version}`).toEqual([]);
});
