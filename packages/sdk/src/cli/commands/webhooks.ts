/**
 * `webhooks listen` forwards the event stream to a local URL, each event signed exactly as
 * the service signs its deliveries (src/webhooks/signature.ts), so a receiver under
 * development runs unchanged without a public URL. The stream resumes after a lost
 * connection from the last event (Last-Event-ID): nothing is skipped or forwarded twice.
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, type Command } from 'commander';
import type { EventName, WalletEvent } from '../../events/types.js';
import type { WalletClient } from '../../client.js';
import { signWebhook } from '../../webhooks/signature.js';
import { context, type Context } from '../context.js';
import { CliError, EXIT, fields } from '../output.js';

/** The exact body the service delivers for an event (what it signed). */
export function webhookBody(e: WalletEvent): string {
  return JSON.stringify(e.test ? { event: e.event, data: e.data, test: true } : { event: e.event, data: e.data });
}

const FORWARD_TIMEOUT_MS = 15_000;

interface ListenFlags {
  forwardTo?: string;
  events?: string;
  after?: string;
  secret?: string[];
  signingKey?: string;
}

export function webhookCommands(program: Command): void {
  const webhooks = program.command('webhooks').description('Webhooks: listen locally, trigger test events, resend');

  webhooks
    .command('listen')
    .description('Print events as they happen and forward each to a local URL, signed as deliveries are')
    .option('--forward-to <url>', 'POST each event here (your receiver under development)', requireUrl)
    .option('--events <names>', 'only these events, comma-separated (e.g. deposit.success,withdraw.success)')
    .option('--after <cursor>', 'start after this cursor (the last one printed by an earlier run) instead of now')
    .option(
      '--secret <whsec>',
      "the wallet's signing secret for webhook-signature (repeatable; default: WALLET_WEBHOOK_SECRET, else the API key)",
      collectValues,
    )
    .option(
      '--signing-key <apiKey>',
      'the wallet API key that keys x-service-signature (better: WALLET_SIGNING_KEY, kept out of the process list and history; default: the profile key; required with a business key)',
    )
    .action(async (opts: ListenFlags, cmd: Command) => {
      const ctx = context(cmd);
      const secrets = opts.secret ?? (process.env.WALLET_WEBHOOK_SECRET ? [process.env.WALLET_WEBHOOK_SECRET] : []);
      const { walletId } = ctx.selected;
      // The service signs a delivery with the key of the wallet it belongs to: a business key
      // signs none of them, and one wallet's key only that wallet's, so forwarding under a
      // business key takes the wallet (its events alone) and that wallet's key to sign with.
      // From the environment as well as the flag: a wallet key on the command line is in the
      // process list and the shell's history.
      const givenKey = opts.signingKey ?? (process.env.WALLET_SIGNING_KEY || undefined);
      if (opts.forwardTo && ctx.apiKey().startsWith('sk_biz_') && (givenKey === undefined || !walletId)) {
        throw new CliError(
          "--forward-to under a business key needs --wallet <id> and that wallet's API key in WALLET_SIGNING_KEY (or --signing-key): each delivery is signed with its own wallet's key, not the business key",
          EXIT.USAGE,
        );
      }
      const signingKey = givenKey ?? ctx.apiKey();
      const client = ctx.client();
      const types = opts.events ? (opts.events.split(',').map((s) => s.trim()) as EventName[]) : undefined;
      const stream = client.events.stream({
        ...(opts.after ? { after: opts.after } : {}),
        ...(types ? { types } : {}),
        // A wallet key reads its wallet's events anyway; a business key all its wallets' unless --wallet names one.
        ...(walletId && ctx.apiKey().startsWith('sk_biz_') ? { walletId } : {}),
        onStatus: (s) =>
          s.state === 'connected'
            ? ctx.out.info(`Ready: listening for events${opts.forwardTo ? `, forwarding to ${opts.forwardTo}` : ''} (Ctrl-C to stop)`)
            : ctx.out.info(
                `Connection lost (${(s.error as Error)?.message ?? 'unknown'}); resuming after ${s.lastEventId ?? 'the start'}…`,
              ),
      });
      const stop = () => {
        if (stream.lastEventId) ctx.out.info(`Stopped. Resume with --after ${stream.lastEventId}`);
        stream.close();
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      for await (const event of stream) {
        const forwarded = opts.forwardTo ? await forward(opts.forwardTo, event, signingKey, secrets) : null;
        printEvent(ctx, event, forwarded);
      }
    });

  webhooks
    .command('trigger')
    .description('Send a test event of any type with a realistic body (marked "test": true)')
    .argument('<event>', 'e.g. deposit.success, withdraw.failed, webhook.test')
    .action(async (event: string, _opts, cmd: Command) => {
      const ctx = context(cmd);
      const e = await ctx.client().webhooks.trigger(ctx.walletId(), event as Parameters<WalletClient['webhooks']['trigger']>[1]);
      ctx.out.result(
        e,
        () =>
          fields(e as unknown as Record<string, unknown>, [
            ['event', 'event'],
            ['id', 'id'],
            ['cursor', 'cursor'],
            ['delivery.status', 'delivery'],
          ]) + (e.delivery ? '' : '\n(no webhook URL on the wallet: only the event feed and `webhooks listen` get it)'),
      );
    });

  webhooks
    .command('resend')
    .description("A new delivery of a transaction's latest event")
    .argument('<transactionId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const ctx = context(cmd);
      const { transaction, webhookLog } = await ctx.client().webhooks.resend(ctx.walletId(), id);
      ctx.out.result({ transaction, webhookLog }, () =>
        fields(webhookLog as unknown as Record<string, unknown>, [
          ['event', 'event'],
          ['id', 'delivery'],
          ['status', 'status'],
          ['url', 'url'],
        ]),
      );
    });
}

interface Forwarded {
  status: number | null;
  error: string | null;
  durationMs: number;
}

async function forward(url: string, event: WalletEvent, apiKey: string, secrets: string[]): Promise<Forwarded> {
  const body = webhookBody(event);
  // A delivery id of its own: the real delivery (if any) keeps its id and replay window.
  const headers = signWebhook(body, { id: randomUUID(), apiKey, secrets });
  const started = Date.now();
  try {
    const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    await res.arrayBuffer().catch(() => undefined);
    return { status: res.status, error: null, durationMs: Date.now() - started };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code;
    return { status: null, error: cause ?? (err as Error).message, durationMs: Date.now() - started };
  }
}

function printEvent(ctx: Context, e: WalletEvent, f: Forwarded | null): void {
  const time = new Date().toISOString();
  const outcome = f === null ? '' : f.status !== null ? ` -> ${f.status} (${f.durationMs} ms)` : ` -> failed: ${f.error}`;
  const amount = e.data?.amount ? ` ${e.data.amount} ${e.data.asset?.symbol ?? e.data.currency ?? ''}`.trimEnd() : '';
  ctx.out.line(
    { time, event: e.event, id: e.id, cursor: e.cursor, transactionId: e.data?.id ?? null, test: e.test, ...(f ? { forward: f } : {}) },
    `${time}  ${e.event.padEnd(24)}${amount}${e.test ? ' [test]' : ''}${outcome}  ${e.id}`,
  );
}

function collectValues(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function requireUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('not http');
    return url;
  } catch {
    throw new InvalidArgumentError('an http:// or https:// URL');
  }
}
