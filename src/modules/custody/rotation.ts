/**
 * rotate-master-key's work: make the target key active, then re-seal every value of every
 * sealed column (keys/sealed-columns.ts) that another key sealed, in small transactions,
 * online. At every moment each value is sealed under the old key or the new one, both of
 * which every process holds during a rotation, so every value stays readable; a killed
 * rotation loses nothing (an unfinished batch rolls back) and a second run finishes it.
 * Old keys are marked retired only once no value is sealed under them.
 */
import type { Db } from '../../db/pool.js';
import type { Logger } from '../../lib/logger.js';
import { KeyRing, MasterKeyError, sealedHeader, sealedKeyId, type MasterKey } from '../../keys/vault.js';
import { SEALED_COLUMNS, columnName, type SealedColumn } from '../../keys/sealed-columns.js';
import * as store from './store.js';

export interface RotationOptions {
  /** Values re-sealed per transaction. */
  batchSize: number;
  /** Pause after each batch (a throttle for a busy database). */
  pauseMs: number;
  logger: Logger;
}

export interface RotationReport {
  keyId: string;
  /** Values re-sealed by this run, per column (table.column). */
  resealed: Record<string, number>;
  /** Keys marked retired by this run. */
  retired: string[];
}

/** Passes over rows that other transactions held (SKIP LOCKED) before giving up. */
const MAX_IDLE_PASSES = 50;

export async function rotateMasterKey(db: Db, ring: KeyRing, target: MasterKey, opts: RotationOptions): Promise<RotationReport> {
  await db.transaction().execute(async (tx) => {
    await store.lockMasterKeys(tx);
    await store.activate(tx, target.id, target.kind);
  });
  opts.logger.info(
    { keyId: target.id, source: target.source },
    'master key active: new secrets are sealed under it; re-sealing the others',
  );

  const header = sealedHeader(target.id);
  const resealed: Record<string, number> = Object.fromEntries(SEALED_COLUMNS.map((c) => [columnName(c), 0]));
  for (let idle = 0; ;) {
    let moved = 0;
    for (const column of SEALED_COLUMNS) {
      const n = await resealColumn(db, ring, target, column, header, opts);
      resealed[columnName(column)]! += n;
      moved += n;
    }
    let left = 0;
    for (const column of SEALED_COLUMNS) left += await store.countNotUnder(db, column, header);
    if (left === 0) break;
    // Left behind: rows locked by other transactions while we passed, or written by a
    // process that read the old active key just before the switch. Go round again.
    if (moved === 0 && ++idle >= MAX_IDLE_PASSES) {
      throw new Error(`${left} sealed values stay locked by other transactions; run rotate-master-key again later`);
    }
    if (moved === 0) await sleep(200);
  }

  const retired = await db.transaction().execute(async (tx) => {
    await store.lockMasterKeys(tx);
    return store.retireAllBut(tx, target.id);
  });
  if (retired.length) opts.logger.info({ retired }, 'master keys retired: nothing is sealed under them any more');
  return { keyId: target.id, resealed, retired };
}

async function resealColumn(
  db: Db,
  ring: KeyRing,
  target: MasterKey,
  column: SealedColumn,
  header: Buffer,
  opts: RotationOptions,
): Promise<number> {
  let after: string | null = null;
  let total = 0;
  for (;;) {
    const batch: { n: number; last: string | null } = await db.transaction().execute(async (tx) => {
      const rows = await store.nextNotUnder(tx, column, header, after, opts.batchSize);
      for (const row of rows) {
        const aad = column.associatedData(row.id);
        let plain: Buffer;
        try {
          plain = await ring.open(row.sealed, aad);
        } catch (err) {
          const under = sealedKeyId(row.sealed);
          throw new MasterKeyError(
            `${columnName(column)} of row ${row.id} does not open (sealed under ${under === 'legacy' ? 'a key from before key ids' : `master key ${under}`}: ` +
              `${(err as Error).message}). Configure that key (MASTER_KEY_PREVIOUS or PKCS11_KEY_LABEL_PREVIOUS) and run rotate-master-key again; nothing of this batch was written.`,
          );
        }
        try {
          await store.replaceSealed(tx, column, row.id, await ring.sealWith(target, plain, aad));
        } finally {
          plain.fill(0);
        }
      }
      return { n: rows.length, last: rows.at(-1)?.id ?? null };
    });
    if (batch.n === 0) return total;
    total += batch.n;
    after = batch.last;
    opts.logger.info({ column: columnName(column), resealed: total }, 'rotation progress');
    if (opts.pauseMs > 0) await sleep(opts.pauseMs);
  }
}

/** Values per column and sealing key, and the keys the database records (rotate-master-key --status). */
export async function custodyStatus(db: Db) {
  const keys = await store.listMasterKeys(db);
  const columns: Record<string, Record<string, number>> = {};
  for (const column of SEALED_COLUMNS) {
    columns[columnName(column)] = Object.fromEntries((await store.countByHeader(db, column)).map((r) => [r.header, r.n]));
  }
  return { keys, columns };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
