/**
 * modules/transactions owns the `transactions` table (DESIGN section 3): every write of it
 * (INSERT, UPDATE, DELETE, in SQL or Kysely's builder) lives in src/modules/transactions/,
 * and other modules move a transaction through TransactionService. Migrations may write it
 * too. A tree under fixtures-writes/ writes it from the wrong places once per kind of write,
 * so a pattern that stops matching is noticed.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Where writes are allowed, relative to the tree's root. */
const OWNERS = ['src/modules/transactions/', 'src/db/migrations/'];

const TABLE = String.raw`(?:"?public"?\.)?["'\x60]?transactions["'\x60]?(?![\w.])`;
const WRITES = [
  new RegExp(String.raw`\b(?:INSERT\s+INTO|UPDATE(?:\s+ONLY)?|DELETE\s+FROM(?:\s+ONLY)?)\s+${TABLE}`, 'gi'),
  new RegExp(String.raw`\b(?:insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(\s*${TABLE}`, 'g'),
];

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(full)));
    else if (e.isFile() && /\.(?:[cm]?[jt]s|sql)$/.test(e.name)) out.push(full);
  }
  return out;
}

/** `file:line: statement` for each write of the table outside its owners, in the tree at `base`. */
async function foreignWrites(base: string): Promise<string[]> {
  const found: string[] = [];
  for (const file of await filesUnder(path.join(base, 'src'))) {
    const rel = path.relative(base, file).split(path.sep).join('/');
    if (OWNERS.some((o) => rel.startsWith(o))) continue;
    const text = await readFile(file, 'utf8');
    for (const re of WRITES)
      for (const m of text.matchAll(re)) {
        const line = text.slice(0, m.index).split('\n').length;
        found.push(`${rel}:${line}: ${m[0].replace(/\s+/g, ' ')}`);
      }
  }
  return found.sort();
}

describe('the transactions table has one owner', () => {
  it('no file outside src/modules/transactions (and the migrations) writes it', async () => {
    expect(await foreignWrites(root)).toEqual([]);
  });

  it('finds every kind of write from elsewhere, and none in the owner or the migrations (fixture)', async () => {
    expect(await foreignWrites(path.join(root, 'test/architecture/fixtures-writes'))).toEqual([
      'src/jobs/tasks.ts:1: UPDATE transactions',
      'src/modules/deposits/store.ts:2: INSERT INTO transactions',
      'src/modules/deposits/store.ts:4: UPDATE transactions',
      'src/modules/deposits/store.ts:5: delete from public.transactions',
      'src/modules/deposits/store.ts:6: UPDATE "transactions"',
      "src/modules/deposits/store.ts:7: insertInto('transactions'",
      'src/modules/deposits/store.ts:8: updateTable("transactions"',
      'src/modules/deposits/store.ts:9: deleteFrom(`transactions`',
    ]);
  });
});
