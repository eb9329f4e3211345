/**
 * `approval list|show|approve|reject`: approval requests from the command line, voting as a
 * business API key exactly as `POST /v1/approvals/{id}/approve|reject` does (the same
 * service and rules: the APPROVE scope, listed among the approvers, never the initiator,
 * once per request). The key comes from WALLET_API_KEY or stdin, never from argv (command
 * lines are visible to every user of the machine), and is checked as the API checks it.
 * (The SDK's command-line client will make the same calls over HTTP.)
 */
import { AppError } from '../lib/errors.js';
import type { ApprovalView } from '../modules/policies/service.js';
import { configAndLogger, UsageError, withRuntime, type Command } from './command.js';

const STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED'] as const;
const USAGE = `usage: WALLET_API_KEY=sk_biz_… approval list [--status PENDING|APPROVED|REJECTED|EXPIRED|CANCELLED]
       WALLET_API_KEY=sk_biz_… approval show|approve|reject <approval or transaction id> [--comment <text>]
       (or pipe the API key on stdin)`;

interface Parsed {
  action: 'list' | 'show' | 'approve' | 'reject';
  id?: string;
  status?: (typeof STATUSES)[number];
  comment?: string;
}

export function parseApprovalArgs(args: string[]): Parsed | string {
  const [action, ...rest] = args;
  if (action !== 'list' && action !== 'show' && action !== 'approve' && action !== 'reject') return `unknown action "${action ?? ''}"`;
  const parsed: Parsed = { action };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const value = rest[i + 1];
    if (arg === '--status' && action === 'list' && value) {
      const status = value.toUpperCase();
      if (!(STATUSES as readonly string[]).includes(status)) return `unknown status "${value}"`;
      parsed.status = status as Parsed['status'];
      i++;
    } else if (arg === '--comment' && (action === 'approve' || action === 'reject') && value !== undefined) {
      if (value.length > 1000) return '--comment must be at most 1000 characters';
      parsed.comment = value;
      i++;
    } else if (action !== 'list' && parsed.id === undefined && /^[0-9a-f-]{36}$/i.test(arg)) parsed.id = arg;
    else return `unexpected argument "${arg}"`;
  }
  if (action !== 'list' && !parsed.id) return `${action} needs the approval id (or its transaction id)`;
  return parsed;
}

export const approvalCommand: Command = {
  usage: 'list|show|approve|reject [<id>] [--status …] [--comment …]',
  summary: 'list approval requests, or approve or reject one, as the business API key in WALLET_API_KEY (or stdin)',
  async run(args) {
    // Before anything echoes an argument back: a key typed here must not be printed either.
    if (args.some((a) => a.includes('sk_'))) throw new UsageError(`never put an API key on the command line\n${USAGE}`);
    const parsed = parseApprovalArgs(args);
    if (typeof parsed === 'string') throw new UsageError(`${parsed}\n${USAGE}`);
    const apiKey = (process.env.WALLET_API_KEY ?? (process.stdin.isTTY ? '' : await readStdin())).trim();
    if (!apiKey) throw new UsageError(USAGE);
    const { config, logger } = configAndLogger();
    return withRuntime(config, logger, async ({ services }) => {
      const auth = await services.apiKeys.authenticate(apiKey);
      if (!auth) {
        process.stderr.write('the API key is not a live key of this installation\n');
        return 2;
      }
      try {
        const approvals = services.policies.approvals;
        if (parsed.action === 'list') {
          const rows: ApprovalView[] = [];
          for (let page = 1; ; page++) {
            const { items, meta } = await approvals.list(auth, { page, limit: 100, ...(parsed.status ? { status: parsed.status } : {}) });
            rows.push(...items);
            if (page >= meta.totalPages) break;
          }
          process.stdout.write(table(rows));
          return 0;
        }
        const id = parsed.id!;
        const a =
          parsed.action === 'show'
            ? await approvals.get(auth, id)
            : parsed.action === 'approve'
              ? await approvals.approve(auth, id, parsed.comment)
              : await approvals.reject(auth, id, parsed.comment);
        process.stdout.write(describe(a));
        return 0;
      } catch (err) {
        if (!(err instanceof AppError)) throw err;
        process.stderr.write(`${err.code}: ${err.message}\n`);
        return 1;
      }
    });
  },
};

function describe(a: ApprovalView): string {
  const t = a.transaction;
  return [
    `approval ${a.id}: ${a.status} (${a.approvals} of ${a.quorum} approvals; policy "${a.policy.name}")`,
    `  payout ${t.id}: ${t.status}, ${t.amount ?? '?'} ${t.currency ?? ''} to ${t.recipientAddress ?? '?'}, asked by ${a.initiator.label}`,
    ...a.votes.map((v) => `  ${v.decision.toLowerCase()} by ${v.voter.label} at ${v.at}${v.comment ? `: ${v.comment}` : ''}`),
    a.reason ? `  ${a.reason}` : `  expires at ${a.expiresAt}`,
    '',
  ].join('\n');
}

function table(rows: ApprovalView[]): string {
  if (rows.length === 0) return 'no approval requests\n';
  const head = ['id', 'status', 'approvals', 'amount', 'to', 'policy', 'expires'];
  const body = rows.map((a) => [
    a.id,
    a.status,
    `${a.approvals}/${a.quorum}`,
    `${a.transaction.amount ?? '?'} ${a.transaction.currency ?? ''}`.trim(),
    a.transaction.recipientAddress ?? '-',
    a.policy.name,
    a.expiresAt,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `${cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()}\n`;
  return [line(head), ...body.map(line)].join('');
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
