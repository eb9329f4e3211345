import type { Command } from 'commander';
import type { EventName, WalletEvent } from '../../events/types.js';
import { context } from '../context.js';
import { table } from '../output.js';
import { positiveInt } from './resources.js';

export function eventCommands(program: Command): void {
  const events = program.command('events').description('The event feed: what webhooks carry, in order');

  events
    .command('tail')
    .description('Print events as they happen (one JSON line each with --json); resumes by itself after a lost connection')
    .option('--types <names>', 'only these events, comma-separated')
    .option('--after <cursor>', 'start after this cursor instead of now')
    .action(async (opts: { types?: string; after?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const stream = ctx.client().events.stream({
        ...(opts.types ? { types: opts.types.split(',') as EventName[] } : {}),
        ...(opts.after ? { after: opts.after } : {}),
        ...(ctx.selected.walletId && ctx.apiKey().startsWith('sk_biz_') ? { walletId: ctx.selected.walletId } : {}),
        onStatus: (s) => ctx.out.info(s.state === 'connected' ? 'Listening for events (Ctrl-C to stop)' : `Connection lost; resuming…`),
      });
      const stop = () => stream.close();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      for await (const e of stream) {
        const amount = e.data?.amount ? `${e.data.amount} ${e.data.asset?.symbol ?? ''}`.trim() : '';
        ctx.out.line(e, `${e.createdAt}  ${e.event.padEnd(24)} ${amount.padEnd(16)} ${e.data?.id ?? '-'}  ${e.cursor}`);
      }
    });

  events
    .command('list')
    .description('Events oldest first, after a cursor')
    .option('--types <names>', 'only these events, comma-separated')
    .option('--after <cursor>', 'only events after this cursor')
    .option('--limit <n>', 'at most this many (default 100)', positiveInt)
    .action(async (opts: { types?: string; after?: string; limit?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const limit = Number(opts.limit ?? 100);
      const rows: WalletEvent[] = [];
      for await (const e of ctx.client().events.list({
        ...(opts.types ? { types: opts.types.split(',') as EventName[] } : {}),
        ...(opts.after ? { after: opts.after } : {}),
        // A business key reads every wallet's events: the selected wallet narrows them, as tail does.
        ...(ctx.selected.walletId && ctx.apiKey().startsWith('sk_biz_') ? { walletId: ctx.selected.walletId } : {}),
        limit: Math.min(limit, 100),
      })) {
        rows.push(e);
        if (rows.length >= limit) break;
      }
      ctx.out.result(rows, () =>
        table(rows as unknown as Record<string, unknown>[], [
          ['createdAt', 'created'],
          ['event', 'event'],
          ['data.amount', 'amount'],
          ['data.id', 'transaction'],
          ['delivery.status', 'delivery'],
          ['cursor', 'cursor'],
        ]),
      );
    });
}
