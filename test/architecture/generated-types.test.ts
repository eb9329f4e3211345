/**
 * src/db/generated.ts must be what kysely-codegen makes of the migrated schema today: a
 * migration that adds, drops or changes a column without `npm run db:types` fails here.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENERATED_FILE, writeTableTypes } from '../../src/db/codegen.js';
import { createDatabaseFromTemplate, dropDatabase } from '../support/harness.js';

let url: string;
let dir: string;

beforeAll(async () => {
  // A clone of the migrated template: introspecting the template itself would hold a
  // session on it and make other files' CREATE DATABASE ... TEMPLATE fail.
  url = await createDatabaseFromTemplate();
  dir = await mkdtemp(path.join(os.tmpdir(), 'wallet-db-types-'));
});
afterAll(async () => {
  if (url) await dropDatabase(url);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('generated table types', () => {
  it('src/db/generated.ts matches the migrated schema', async () => {
    const fresh = path.join(dir, 'generated.ts');
    await writeTableTypes(url, fresh);
    const [expected, actual] = await Promise.all([readFile(fresh, 'utf8'), readFile(GENERATED_FILE, 'utf8')]);
    expect(
      actual,
      'src/db/generated.ts differs from the migrated schema (- generated from the migrations, + checked in): run `npm run db:types`',
    ).toBe(expected);
  });
});
