/**
 * `wallet approvals list|show|approve|reject` and `wallet policies list|show`: payouts a
 * transaction policy holds for approval, and the rules in force (docs/policies.md on the
 * service's side). A vote is `POST /v1/approvals/{id}/approve|reject` with a business key
 * granted APPROVE: the service applies every rule (listed approver, never the initiator,
 * once per request).
 *
 * The approver's key comes from WALLET_API_KEY, the profile (`wallet login` read it from
 * stdin), or stdin (piped, or typed at a prompt that echoes nothing), never from the command
 * line, which every user of the machine can read (ps, shell history): `--api-key` is refused
 * here without being echoed.
 */
import { Option, type Command } from 'commander';
import { WalletClient } from '../../client.js';
import { collect, limitOptions } from './resources.js';
import { context, readLine, type Context, type GlobalFlags } from '../context.js';
import { CliError, EXIT, fields, table } from '../output.js';

const STATUSES = ['PENDING', 'APPROVED', 'REJECTED', 'EXPIRED', 'CANCELLED'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const LIST_COLUMNS: [string, string][] = [
  ['id', 'id'],
  ['status', 'status'],
  ['transaction.amount', 'amount'],
  ['transaction.currency', 'asset'],
  ['transaction.recipientAddress', 'to'],
  ['policy.name', 'policy'],
  ['expiresAt', 'expires'],
];

type Approval = Awaited<ReturnType<WalletClient['approvals']['get']>>;

/** The approver's client: the key from WALLET_API_KEY, the profile or stdin; the URL from WALLET_BASE_URL or the profile. */
async function approverClient(cmd: Command): Promise<{ ctx: Context; client: WalletClient }> {
  if (cmd.optsWithGlobals<GlobalFlags>().apiKey !== undefined)
    throw new CliError(
      'never put an API key on the command line: set WALLET_API_KEY, or pipe the key on stdin (typed at a terminal, it is not echoed)',
      EXIT.USAGE,
    );
  const ctx = context(cmd);
  const baseUrl = ctx.selected.baseUrl;
  if (!baseUrl) throw new CliError('no service URL: run `wallet login`, or set WALLET_BASE_URL', EXIT.AUTH);
  // selected.apiKey: WALLET_API_KEY, else the profile's (the flag was refused above).
  const apiKey = (ctx.selected.apiKey ?? (await readLine('API key: ', { silent: true })) ?? '').trim();
  if (!apiKey) throw new CliError('no API key: set WALLET_API_KEY, run `wallet login`, or give it on stdin', EXIT.AUTH);
  return { ctx, client: new WalletClient({ baseUrl, apiKey }) };
}

/** An id as the service takes it; a malformed one is refused without echoing it (it may be a key typed in the wrong place). */
function approvalId(id: string): string {
  if (!UUID.test(id)) throw new CliError('the id is not an approval or transaction id (a UUID)', EXIT.USAGE);
  return id;
}

function describe(a: Approval): string {
  const t = a.transaction;
  const head = fields(a as unknown as Record<string, unknown>, [
    ['id', 'approval'],
    ['status', 'status'],
    ['policy.name', 'policy'],
    ['transaction.id', 'payout'],
    ['transaction.status', 'payout status'],
    ['initiator.label', 'asked by'],
    ['expiresAt', 'expires'],
    ['reason', 'reason'],
  ]);
  const votes = a.votes.map((v) => `  ${v.decision.toLowerCase()} by ${v.voter.label} at ${v.at}${v.comment ? `: ${v.comment}` : ''}`);
  return [
    `${a.status} (${a.approvals} of ${a.quorum} approvals): ${t.amount ?? '?'} ${t.currency ?? ''} to ${t.recipientAddress ?? '?'}`,
    head,
    ...(votes.length ? ['votes:', ...votes] : []),
  ].join('\n');
}

export function approvalCommands(program: Command): void {
  const approvals = program
    .command('approvals')
    .description(
      'Payouts a policy holds for approval: list, show, approve, reject (the key from WALLET_API_KEY, the profile or stdin; never --api-key)',
    );
  limitOptions(
    approvals
      .command('list')
      .description('Approval requests, newest first')
      .addOption(new Option('--status <status>', 'only requests in this state').choices(STATUSES))
      .option('--wallet-id <walletId>', "only this wallet's requests"),
  ).action(async (opts: { status?: string; walletId?: string; limit?: string; all?: boolean }, cmd: Command) => {
    const { ctx, client } = await approverClient(cmd);
    const query = { ...(opts.status ? { status: opts.status } : {}), ...(opts.walletId ? { walletId: opts.walletId } : {}) };
    const rows = await collect(client.approvals.list(query as Parameters<WalletClient['approvals']['list']>[0]), opts);
    ctx.out.result(rows, () => table(rows as unknown as Record<string, unknown>[], LIST_COLUMNS));
  });
  approvals
    .command('show')
    .description('One request with its votes')
    .argument('<id>', "the request's id, or its payout's transaction id")
    .action(async (id: string, _opts, cmd: Command) => {
      const { ctx, client } = await approverClient(cmd);
      const a = await client.approvals.get(approvalId(id));
      ctx.out.result(a, () => describe(a));
    });
  for (const decision of ['approve', 'reject'] as const) {
    approvals
      .command(decision)
      .description(
        decision === 'approve'
          ? 'Approve a held payout: at its quorum of distinct approvers it is sent'
          : 'Reject a held payout: it is cancelled and what it held released',
      )
      .argument('<id>', "the request's id, or its payout's transaction id")
      .option('--comment <text>', 'a note kept with the vote (at most 1000 characters)')
      .action(async (id: string, opts: { comment?: string }, cmd: Command) => {
        const { ctx, client } = await approverClient(cmd);
        const body = opts.comment !== undefined ? { comment: opts.comment } : undefined;
        const a = await client.approvals[decision](approvalId(id), body);
        ctx.out.result(a, () => describe(a));
      });
  }

  const policies = program.command('policies').description('Transaction policies in force (changed through the API: docs/policies.md)');
  policies
    .command('list')
    .description('The rules, in evaluation order')
    .action(async (_opts, cmd: Command) => {
      const ctx = context(cmd);
      const rows = await ctx.client().policies.list();
      ctx.out.result(rows, () =>
        table(rows as unknown as Record<string, unknown>[], [
          ['id', 'id'],
          ['priority', 'priority'],
          ['name', 'name'],
          ['action', 'action'],
          ['isActive', 'active'],
          ['walletId', 'wallet'],
        ]),
      );
    });
  policies
    .command('show')
    .description('One rule with its conditions')
    .argument('<id>', 'the policy id')
    .action(async (id: string, _opts, cmd: Command) => {
      const ctx = context(cmd);
      const p = await ctx.client().policies.get(id);
      ctx.out.result(p, () =>
        fields(p as unknown as Record<string, unknown>, [
          ['id', 'id'],
          ['name', 'name'],
          ['priority', 'priority'],
          ['action', 'action'],
          ['isActive', 'active'],
          ['walletId', 'wallet'],
          ['addressId', 'address'],
          ['conditions', 'conditions'],
          ['approval', 'approval'],
        ]),
      );
    });
}
