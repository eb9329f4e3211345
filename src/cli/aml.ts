/**
 * `aml import <file> [--list <name>]` and `aml lists` (docs/aml.md, "The OFAC list"):
 *
 *   aml import sdn.xml            replaces the `ofac` list by the digital currency addresses
 *                                 of OFAC's SDN XML (SDN.XML or SDN_ADVANCED.XML)
 *   aml import mine.txt --list internal
 *                                 a plain list (one address a line) under another name
 *   aml lists                     the lists imported, with their source file and dates
 *
 * The file is read and checked whole before anything is written; the list is then replaced
 * in one transaction, and every running process reloads it at once (a notice at commit).
 * It needs only the database: DATABASE_URL, or the embedded default's, whether the service
 * runs (its PostgreSQL is used where it listens) or not (started for the command). Exit
 * codes: 0 done, 2 a refused file or usage, 1 anything else.
 */
import path from 'node:path';
import { UsageError, flag } from './command.js';
import { createLogger } from '../lib/logger.js';
import { ValidationError } from '../lib/errors.js';
import { withDatabase } from './database.js';
import { importList, parseListFile } from '../modules/aml/service.js';
import { SOURCE } from '../modules/aml/lists.js';
import * as store from '../modules/aml/store.js';

const USAGE = 'usage: aml import <file> [--list <name>]   |   aml lists';

export async function amlCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [sub, ...rest] = args;
  const logger = createLogger(env.LOG_LEVEL || 'warn');
  if (sub === 'lists' && rest.length === 0) {
    return withDatabase(env, logger, async (db) => {
      const rows = await store.lists(db);
      process.stdout.write(
        `${JSON.stringify(
          rows.map(({ version: _v, ...r }) => r),
          null,
          2,
        )}\n`,
      );
      return 0;
    });
  }
  if (sub !== 'import') throw new UsageError(USAGE);
  const file = rest[0];
  const source = flag(rest, 'list') ?? 'ofac';
  const extra = rest.slice(1).filter((a, i, all) => !(a === '--list' || all[i - 1] === '--list'));
  if (!file || file.startsWith('--') || extra.length) throw new UsageError(USAGE);
  if (!SOURCE.test(source)) throw new UsageError(`--list ${source}: lower-case letters, digits and dashes (32 at most)`);
  let parsed;
  try {
    parsed = await parseListFile(path.resolve(file));
  } catch (err) {
    if (err instanceof ValidationError) throw new UsageError(`${file}: ${err.message}`);
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new UsageError(`${file}: no such file`);
    throw err;
  }
  return withDatabase(env, logger, async (db, changes) => {
    const r = await importList(db, changes, source, parsed);
    process.stdout.write(
      `${JSON.stringify(
        {
          list: source,
          file: parsed.fileName,
          sha256: parsed.sha256,
          format: parsed.format,
          publishedAt: parsed.publishedAt?.toISOString().slice(0, 10) ?? null,
          entries: r.entries,
          replaced: r.removed,
          version: Number(r.version),
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  });
}
