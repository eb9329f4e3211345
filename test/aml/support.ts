/**
 * What the AML tests of every family share: the fixture lists (test/aml/fixtures), the keys
 * of the addresses they name (derived from fixed seeds, so the fixtures can list them), the
 * `aml import` command run as an operator runs it, and reads of what a refused request
 * could have written.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { sql } from 'kysely';
import { expect } from 'vitest';
import { cleanEnv, runToEnd, spawnProc } from '../support/cli.js';
import { ROOT } from '../support/build.js';
import type { Harness } from '../support/harness.js';
import { eventually } from '../support/fixtures.js';

export const FIXTURES = path.join(ROOT, 'test/aml/fixtures');
/** sdn.xml lists both parties; sdn-next.xml (the next publication) no longer lists "removed". */
export const SDN = path.join(FIXTURES, 'sdn.xml');
export const SDN_NEXT = path.join(FIXTURES, 'sdn-next.xml');

/** The seed of a key the fixture lists (32 bytes: a secp256k1 key, an ed25519 seed). */
export const seedOf = (label: 'listed-sender' | 'removed') => new Uint8Array(createHash('sha256').update(`aml-test/${label}`).digest());

/** The addresses sdn.xml lists for those keys, per family. */
export const LISTED = {
  evm: '0xd9e97aEEd4Cf0CBDBA3e9874E7A06c922c45209f',
  tron: 'TVqRLB8Bnnsve8BJ2DvtdUTxJcmz6zyGxW',
  solana: '6wNCxWrdpjRrFwiLpDXjhrbu8ShGjuKqDjLTFzApXRFw',
} as const;
export const REMOVED = {
  evm: '0x79603c1C7Fa5a3BaB106d389047c60f06Ba4f7F9',
  tron: 'TM2z3nKt5VyVXR6iNrmqP9yduCWzE2ZGvo',
  solana: 'HYXvD9zgYG9zF6KooJ1aMDYdaq8FmBqBBHqdgQhwxUf5',
} as const;

/** `aml import <file>` against the harness's database, as the CLI (a process of its own). */
export async function amlImport(h: Harness, file: string): Promise<Record<string, unknown>> {
  const proc = spawnProc(process.execPath, ['--import', 'tsx', 'src/main.ts', 'aml', 'import', file], {
    env: { ...cleanEnv(), DATABASE_URL: h.databaseUrl, LOG_LEVEL: 'warn' },
  });
  const out = await runToEnd(proc, 120_000);
  expect(out.code, out.stderr).toBe(0);
  return JSON.parse(out.stdout) as Record<string, unknown>;
}

/** The lookup of an address, through HTTP. */
export async function lookup(h: Harness, key: string, walletId: string, address: string) {
  const res = await h.api('GET', `/v1/wallets/${walletId}/aml/lookup?address=${encodeURIComponent(address)}`, { key });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.data as { isBlacklisted: boolean; status: string; provider: string; lists: string[]; failed: string[]; message: string };
}

/** Waits until every process sees the list change (the notice at the import's commit). */
export function lookupUntil(h: Harness, key: string, walletId: string, address: string, listed: boolean) {
  return eventually(
    () => lookup(h, key, walletId, address),
    (r) => r.isBlacklisted === listed,
    15_000,
  );
}

/** Rows a payout could have written, and the audit entries of refused ones. */
export async function written(h: Harness): Promise<{ transactions: number; outbound: number; nonces: number; blocked: number }> {
  const { rows } = await sql<{ t: string; o: string; n: string; a: string }>`
    SELECT (SELECT count(*) FROM transactions WHERE type <> 'DEPOSIT') AS t, (SELECT count(*) FROM outbound_txs) AS o,
           (SELECT coalesce(sum(next_nonce), 0) FROM nonces) AS n,
           (SELECT count(*) FROM audit_log WHERE action = 'aml.blocked') AS a`.execute(h.database.db);
  const r = rows[0]!;
  return { transactions: Number(r.t), outbound: Number(r.o), nonces: Number(r.n), blocked: Number(r.a) };
}

/** The audit entries of refused payouts, newest first. */
export async function blockedAudit(h: Harness) {
  const { rows } = await sql<{ actor: string; target_id: string; details: any }>`
    SELECT actor, target_id, details FROM audit_log WHERE action = 'aml.blocked' ORDER BY created_at DESC`.execute(h.database.db);
  return rows;
}
