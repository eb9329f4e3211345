import { sql } from 'kysely';
import type { DbConn } from '../../db/pool.js';
import { jobs } from '../../jobs/store.js';
import type { ListFormat } from './sdn.js';

export interface ListRow {
  source: string;
  file_name: string;
  file_sha256: string;
  format: ListFormat;
  published_at: Date | null;
  imported_at: Date;
  entries: number;
  version: string;
}

/** Every list with its version (a few rows: read at each reload to tell which lists changed). */
export async function lists(db: DbConn): Promise<ListRow[]> {
  const { rows } = await sql<ListRow>`SELECT * FROM aml_lists ORDER BY source`.execute(db);
  return rows;
}

export async function entryKeys(db: DbConn, source: string): Promise<string[]> {
  const { rows } = await sql<{ address_key: string }>`SELECT DISTINCT address_key FROM aml_list_entries WHERE source = ${source}`.execute(
    db,
  );
  return rows.map((r) => r.address_key);
}

/** Replaces a list whole, in the caller's transaction (the list row locked first: imports of one source queue). */
export async function replaceList(
  db: DbConn,
  list: { source: string; fileName: string; sha256: string; format: ListFormat; publishedAt: Date | null },
  entries: { addressKey: string; address: string; ticker: string; entity: string | null }[],
): Promise<{ version: string; removed: number }> {
  const { rows } = await sql<{ version: string }>`
    INSERT INTO aml_lists (source, file_name, file_sha256, format, published_at, imported_at, entries, version)
    VALUES (${list.source}, ${list.fileName}, ${list.sha256}, ${list.format}, ${list.publishedAt}, now(), ${entries.length}, 1)
    ON CONFLICT (source) DO UPDATE SET file_name = excluded.file_name, file_sha256 = excluded.file_sha256, format = excluded.format,
      published_at = excluded.published_at, imported_at = now(), entries = excluded.entries, version = aml_lists.version + 1
    RETURNING version::text`.execute(db);
  const removed = await sql`DELETE FROM aml_list_entries WHERE source = ${list.source}`.execute(db);
  for (let i = 0; i < entries.length; i += 5_000) {
    const chunk = entries.slice(i, i + 5_000);
    await sql`INSERT INTO aml_list_entries (source, address_key, address, ticker, entity)
      SELECT ${list.source}, * FROM unnest(${chunk.map((e) => e.addressKey)}::text[], ${chunk.map((e) => e.address)}::text[],
                                         ${chunk.map((e) => e.ticker)}::text[], ${chunk.map((e) => e.entity)}::text[])
      ON CONFLICT DO NOTHING`.execute(db);
  }
  return { version: rows[0]!.version, removed: Number(removed.numAffectedRows ?? 0n) };
}

/** Deposits held by screening or left unscreened, of the given ids (the release and the re-screen read them). */
export interface ScreenedDeposit {
  id: string;
  wallet_id: string;
  chain_id: string;
  type: string;
  status: string;
  sender_address: string | null;
  aml_held: boolean;
  aml_screening: Record<string, unknown> | null;
}

export async function deposits(db: DbConn, ids: string[], opts: { lock?: boolean } = {}): Promise<ScreenedDeposit[]> {
  if (ids.length === 0) return [];
  const { rows } = await sql<ScreenedDeposit>`
    SELECT id, wallet_id, chain_id, type, status, sender_address, aml_held, aml_screening FROM transactions
     WHERE id = ANY(${ids}::uuid[]) ${opts.lock ? sql`FOR UPDATE` : sql``}`.execute(db);
  return rows;
}

/** Queues job aml_rescreen_deposits (deposits whose screening failed), a minute from now. */
export async function enqueueRescreen(db: DbConn, depositIds: string[], delayS = 60): Promise<void> {
  if (depositIds.length === 0) return;
  await jobs.aml_rescreen_deposits.add(db, { depositIds }, { delayMs: delayS * 1000, maxAttempts: 25 });
}

/** The wallets' stored configurations (the AML settings are read from them). */
export async function walletConfigurations(db: DbConn, walletIds: string[]): Promise<Map<string, unknown>> {
  if (walletIds.length === 0) return new Map();
  const { rows } = await sql<{ id: string; configurations: unknown }>`
    SELECT id, configurations FROM wallets WHERE id = ANY(${walletIds}::uuid[])`.execute(db);
  return new Map(rows.map((r) => [r.id, r.configurations]));
}
