/**
 * The SDK's types match the running service: src/generated/openapi.ts is regenerated from
 * the document the service serves and must be identical, so a route or schema changed
 * without regenerating fails here. `npm run sdk:types` (UPDATE_SDK_TYPES=1) rewrites it.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_FILE as FILE, generateTypes } from '../../packages/sdk/scripts/generate-types.js';
import { startHarness, type Harness } from '../support/harness.js';
import { ROOT } from '../support/build.js';

const SDK_SRC = path.join(ROOT, 'packages/sdk/src');
let h: Harness;
let document: { paths: Record<string, Record<string, { deprecated?: boolean }>> };

beforeAll(async () => {
  h = await startHarness();
  document = await fetch(`${h.baseUrl}/openapi.json`).then((r) => r.json());
});

/** The operations the SDK's sources call, by the names /openapi.json gives them ('GET /v1/...'). */
function sdkOperations(): Set<string> {
  const found = new Set<string>();
  const visit = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, entry.name);
      if (entry.isDirectory() && entry.name !== 'generated') visit(p);
      else if (entry.name.endsWith('.ts'))
        for (const m of readFileSync(p, 'utf8').matchAll(/'((?:GET|POST|PATCH|PUT|DELETE) \/v1[\w/{}.-]*)'/g)) found.add(m[1]!);
    }
  };
  visit(SDK_SRC);
  return found;
}
afterAll(async () => h?.stop());

describe('the SDK types', () => {
  it("are generated from the service's /openapi.json as it is now", async () => {
    const fresh = await generateTypes(document);
    if (process.env.UPDATE_SDK_TYPES === '1') writeFileSync(FILE, fresh);
    const current = readFileSync(FILE, 'utf8');
    expect(current === fresh, 'packages/sdk/src/generated/openapi.ts is stale: run `npm run sdk:types` and commit it').toBe(true);
  });

  it('cover every operation: the client has a method for each route that is not a deprecated alias', () => {
    const operations = Object.entries(document.paths).flatMap(([p, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => !op.deprecated)
        .map(([method]) => `${method.toUpperCase()} ${p}`),
    );
    const covered = sdkOperations();
    expect(
      operations.filter((op) => !covered.has(op)),
      'operations without an SDK method (add one to packages/sdk/src/resources/)',
    ).toEqual([]);
    // Anything the SDK names is a live, documented route (the generated types check its shape).
    expect(
      [...covered].filter((op) => !operations.includes(op)),
      'SDK methods of routes that are gone or deprecated',
    ).toEqual([]);
  });
});
