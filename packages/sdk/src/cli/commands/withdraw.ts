import { InvalidArgumentError, type Command } from 'commander';
import type { WalletClient } from '../../client.js';
import { ApiError } from '../../errors.js';
import type { WalletEvent } from '../../events/types.js';
import { context, readLine } from '../context.js';
import { CliError, EXIT, fields } from '../output.js';

interface WithdrawFlags {
  to: string;
  amount: string;
  asset: string;
  from?: string;
  reference?: string;
  note?: string;
  yes?: boolean;
  wait?: boolean;
  idempotencyKey?: string;
}

/** The event a withdrawal that has ended was announced with, by its status. */
const ENDED_EVENT: Record<string, WalletEvent['event']> = {
  SUCCESS: 'withdraw.success',
  FAILED: 'withdraw.failed',
  // A held payout rejected, expired or cancelled (a cancelled broadcast one is withdraw.failed: same exit).
  CANCELLED: 'withdraw.cancelled',
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function withdrawCommand(program: Command): void {
  program
    .command('withdraw')
    .description('Send an asset from the wallet: shows the network fee, asks to confirm, then withdraws')
    .requiredOption('--to <address>', 'the destination address')
    .requiredOption('--amount <amount>', 'a decimal amount in the asset, e.g. 12.5', (v) => {
      if (!/^\d+(\.\d+)?$/.test(v)) throw new InvalidArgumentError('a decimal amount such as 12.5');
      return v;
    })
    .requiredOption('--asset <asset>', 'an asset symbol enabled on the wallet (USDC) or an asset id')
    .option('--from <addressId>', 'send from this child address instead of the master address')
    .option('--reference <reference>', 'your reference, unique per wallet')
    .option('--note <note>', 'an internal note')
    .option('--idempotency-key <key>', 'send the same key again to get the first answer instead of a second withdrawal')
    .option('-y, --yes', 'do not ask (for scripts)')
    .option('--wait', 'then wait for withdraw.success or withdraw.failed (from the event stream)')
    .action(async (opts: WithdrawFlags, cmd: Command) => {
      const ctx = context(cmd);
      const client = ctx.client();
      const walletId = ctx.walletId();
      const assetId = await resolveAsset(client, walletId, opts.asset);
      const body = {
        assetId,
        address: opts.to,
        amount: opts.amount,
        ...(opts.reference ? { reference: opts.reference } : {}),
        ...(opts.note ? { note: opts.note } : {}),
      };
      const quote = opts.from
        ? client.withdrawals.networkFeeFromAddress(walletId, opts.from, body)
        : client.withdrawals.networkFee(walletId, body);
      let refused: ApiError | null = null;
      const fee = await quote.catch((err: unknown) => {
        // A retried command (its --idempotency-key, or a reference already used) is answered the
        // first withdrawal, while the quote judges the request as a new one: once the first spent
        // the balance it is refused (422), and the command would say nothing was paid. The
        // withdrawal request decides; a new one the service refuses is refused there the same way.
        const retry = opts.idempotencyKey !== undefined || opts.reference !== undefined;
        if (retry && err instanceof ApiError && (err.status === 409 || err.status === 422)) {
          refused = err;
          return null;
        }
        throw err;
      });
      const symbol = UUID.test(opts.asset) ? 'units of the asset' : opts.asset.toUpperCase();
      ctx.out.info(
        `Withdraw ${opts.amount} ${symbol} to ${opts.to}\n` +
          (fee
            ? `Network fee: ${fee.networkFee} (native balance ${fee.nativeBalance})`
            : `Network fee: unknown (the quote was refused, ${(refused as ApiError | null)?.code}: a repeated request is answered with its first withdrawal)`),
      );
      if (!opts.yes) {
        const answer = await readLine('Send it? [y/N] ');
        if (!/^y(es)?$/i.test(answer?.trim() ?? '')) throw new CliError('not sent', EXIT.DECLINED);
      }
      // Connect the stream first, so the outcome cannot slip by between the withdrawal and the wait.
      let connected!: () => void;
      const ready = new Promise<void>((resolve) => (connected = resolve));
      const stream = opts.wait
        ? client.events.stream({
            // withdraw.cancelled: one held for approval and then rejected, expired or cancelled.
            types: ['withdraw.success', 'withdraw.failed', 'withdraw.cancelled'],
            walletId,
            onStatus: (s) => s.state === 'connected' && connected(),
          })
        : null;
      const outcome = stream ? waitFor(stream[Symbol.asyncIterator]()) : null;
      if (outcome) await Promise.race([ready, outcome.failed]);
      const requestOpts = opts.idempotencyKey ? { idempotencyKey: opts.idempotencyKey } : {};
      const created = opts.from
        ? await client.withdrawals.createFromAddress(walletId, opts.from, body, requestOpts)
        : await client.withdrawals.create(walletId, body, requestOpts);
      const tx = (Array.isArray(created) ? created[0] : created) as Record<string, unknown>;
      const keys: [string, string][] = [
        ['id', 'id'],
        ['status', 'status'],
        ['amount', 'amount'],
        ['asset.symbol', 'asset'],
        ['recipientAddress', 'to'],
        ['hash', 'hash'],
      ];
      if (!outcome) return ctx.out.result({ transaction: tx, networkFee: fee?.networkFee ?? null }, () => fields(tx, keys));
      ctx.out.info(
        tx.status === 'PENDING_APPROVAL'
          ? `Withdrawal ${String(tx.id)} is held for approval; waiting for the approvers, then for it on chain…`
          : `Withdrawal ${String(tx.id)} accepted; waiting for it on chain…`,
      );
      // A retried command (the same --idempotency-key, or a reference already used) is answered
      // the first withdrawal, which may have ended before this stream opened: its event is in the
      // past and would never come. Where it stands now decides; an outcome still to come arrives
      // on the stream, connected before the withdrawal was asked for.
      const now = await client.transactions.get(walletId, String(tx.id));
      const ended = ENDED_EVENT[String(now.status)];
      const event: WalletEvent = ended ? ({ event: ended, data: now } as unknown as WalletEvent) : await outcome.until(String(tx.id));
      stream!.close();
      ctx.out.result(
        { transaction: event.data, event: event.event, networkFee: fee?.networkFee ?? null },
        () => `${event.event}\n${fields(event.data as unknown as Record<string, unknown>, keys)}`,
      );
      if (event.event === 'withdraw.failed')
        throw new CliError(`the withdrawal failed: ${event.data.reason ?? 'see the transaction'}`, EXIT.FAILED);
      if (event.event === 'withdraw.cancelled')
        throw new CliError(`the withdrawal was cancelled: ${event.data.reason ?? 'see the transaction'}`, EXIT.FAILED);
    });
}

/** An asset id, or the id of the wallet's asset with this symbol. */
export async function resolveAsset(client: WalletClient, walletId: string, asset: string): Promise<string> {
  if (UUID.test(asset)) return asset;
  const assets = await client.assets.list(walletId);
  const found = assets.filter((a) => a.isActive && a.asset.symbol.toUpperCase() === asset.toUpperCase());
  if (found.length !== 1) {
    const have = assets
      .filter((a) => a.isActive)
      .map((a) => a.asset.symbol)
      .join(', ');
    throw new CliError(`no single enabled asset ${asset} on this wallet (enabled: ${have || 'none'}); pass its id`, EXIT.USAGE);
  }
  return found[0]!.asset.id;
}

/** Reads events from the moment it is called, and resolves with the first about `txId`. */
function waitFor(events: AsyncIterator<WalletEvent>) {
  const seen: WalletEvent[] = [];
  let wanted: string | null = null;
  let resolve!: (e: WalletEvent) => void;
  let reject!: (err: unknown) => void;
  const found = new Promise<WalletEvent>((res, rej) => ((resolve = res), (reject = rej)));
  void (async () => {
    try {
      for (let r = await events.next(); !r.done; r = await events.next()) {
        seen.push(r.value);
        const hit = seen.find((e) => e.data?.id === wanted);
        if (hit) {
          resolve(hit);
          await events.return?.(undefined);
          return;
        }
      }
    } catch (err) {
      reject(err);
    }
  })();
  return {
    /** Rejects if the stream fails before anything is found (e.g. the key may not read events). */
    failed: found.then(() => undefined),
    until(txId: string): Promise<WalletEvent> {
      wanted = txId;
      const hit = seen.find((e) => e.data?.id === txId);
      if (hit) resolve(hit);
      return found;
    },
  };
}
