/**
 * `audit-verify [--anchor <hash>]`: recomputes the audit log's hash chain from the stored
 * entries (modules/audit/chain.ts) and reports the first broken link. Exit code 0 when the
 * chain holds, 1 when it is broken (or the anchor, a head printed by an earlier run, is no
 * longer in it: entries after it were cut), 2 on wrong usage.
 */
import { flag, UsageError } from './command.js';
import { withDatabase } from './database.js';
import { createLogger } from '../lib/logger.js';
import { AuditService, type ChainReport } from '../modules/audit/service.js';

const HASH = /^[0-9a-f]{64}$/;

export async function auditVerify(args: string[]): Promise<number> {
  const anchor = flag(args, 'anchor');
  const unknown = args.filter((a, i) => !(a === '--anchor' || (i > 0 && args[i - 1] === '--anchor')));
  if (unknown.length > 0 || (args.includes('--anchor') && (!anchor || !HASH.test(anchor)))) {
    throw new UsageError('usage: audit-verify [--anchor <64 hex characters>]');
  }
  // Only the database: DATABASE_URL, or the embedded default's (database.ts).
  return withDatabase(process.env, createLogger(process.env.LOG_LEVEL || 'warn'), async (db) => {
    const report = await new AuditService(db).verify(anchor);
    process.stdout.write(describe(report));
    return report.broken || report.anchorFound === false ? 1 : 0;
  });
}

export function describe(r: ChainReport): string {
  const legacy = r.unchained > 0 ? ` (${r.unchained} older entries not chained yet: the next entry written chains them)` : '';
  if (r.broken) {
    return (
      `audit log chain BROKEN at entry ${r.broken.seq} (id ${r.broken.id}): ${r.broken.message}\n` +
      `${r.verified} entries before it verified${legacy}; last good hash ${r.head}\n`
    );
  }
  const anchor =
    r.anchorFound === undefined
      ? ''
      : r.anchorFound
        ? 'the anchor given is in the chain\n'
        : 'the anchor given is NOT in the chain: entries were removed or rewritten since it was recorded\n';
  return `audit log chain intact: ${r.verified} entries verified${legacy}\nhead ${r.head}\n${anchor}`;
}
