/** Reading and creating: wallets, addresses, balances, transactions. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { context } from '../context.js';
import { fields, table } from '../output.js';

/** Items of a list: `--limit` of them (default 100) over as many pages as needed, or `--all`. */
export async function collect<T>(list: AsyncIterable<T>, opts: { limit?: string; all?: boolean }): Promise<T[]> {
  const max = opts.all ? Number.POSITIVE_INFINITY : Number(opts.limit ?? 100);
  const out: T[] = [];
  for await (const item of list) {
    if (out.length >= max) break;
    out.push(item);
  }
  return out;
}

export const limitOptions = (cmd: Command) =>
  cmd.option('--limit <n>', 'at most this many items (default 100)', positiveInt).option('--all', 'every item, page after page');

/**
 * The transaction list's filters, as the API lists them (the service's src/transaction-types.ts;
 * test/sdk/choices.test.ts keeps the two equal).
 */
const TX_STATUSES = ['PENDING', 'PENDING_APPROVAL', 'SUCCESS', 'FAILED', 'CANCELLED'];
const TX_TYPES = [
  'DEPOSIT',
  'WITHDRAW',
  'SALVAGE',
  'SIGNED',
  'CUSTOM_SMART_CONTRACT',
  'SWAP',
  'AUTO_SETTLEMENT',
  'STAKING',
  'UNSTAKING',
  'RESTAKING',
  'UNSTAKING_WITHDRAW',
];

export function positiveInt(value: string): string {
  if (!/^[1-9]\d*$/.test(value)) throw new InvalidArgumentError('not a positive whole number');
  return value;
}

const WALLET_COLUMNS: [string, string][] = [
  ['id', 'id'],
  ['name', 'name'],
  ['blockchain.slug', 'blockchain'],
  ['network', 'network'],
  ['address', 'address'],
  ['webhookUrl', 'webhook url'],
];

export function resourceCommands(program: Command): void {
  const wallets = program.command('wallets').description('Master wallets');
  limitOptions(wallets.command('list').description("The business's wallets (a wallet key: its own wallet)")).action(
    async (opts, cmd: Command) => {
      const ctx = context(cmd);
      const client = ctx.client();
      const rows = ctx.apiKey().startsWith('sk_biz_')
        ? await collect(client.wallets.list(), opts)
        : [await client.wallets.get(ctx.walletId())];
      ctx.out.result(rows, () => table(rows as Record<string, unknown>[], WALLET_COLUMNS));
    },
  );
  wallets
    .command('show')
    .description("One wallet (default: the profile's)")
    .argument('[walletId]', 'the wallet id')
    .action(async (walletId: string | undefined, _opts, cmd: Command) => {
      const ctx = context(cmd);
      const wallet = await ctx.client().wallets.get(walletId ?? ctx.walletId());
      ctx.out.result(wallet, () =>
        fields(wallet as Record<string, unknown>, [...WALLET_COLUMNS, ['status', 'status'], ['createdAt', 'created']]),
      );
    });

  const addresses = program.command('addresses').description("The wallet's child (deposit) addresses");
  addresses
    .command('create')
    .description('A new deposit address')
    .option('--name <name>', 'a name for it (e.g. your customer)')
    .option('--metadata <json>', 'key/value data attached to it and its transactions, as a JSON object', jsonObject)
    .action(async (opts: { name?: string; metadata?: Record<string, unknown> }, cmd: Command) => {
      const ctx = context(cmd);
      const address = await ctx.client().addresses.create(ctx.walletId(), {
        ...(opts.name ? { name: opts.name } : {}),
        ...(opts.metadata ? { metadata: opts.metadata } : {}),
      });
      ctx.out.result(address, () =>
        fields(address as Record<string, unknown>, [
          ['id', 'id'],
          ['address', 'address'],
          ['name', 'name'],
          ['derivationPath', 'path'],
        ]),
      );
    });
  limitOptions(addresses.command('list').description("The wallet's addresses"))
    .addOption(new Option('--type <type>', 'INTERNAL (derived) or EXTERNAL (watched)').choices(['INTERNAL', 'EXTERNAL']))
    .action(async (opts: { type?: 'INTERNAL' | 'EXTERNAL'; limit?: string; all?: boolean }, cmd: Command) => {
      const ctx = context(cmd);
      const rows = await collect(ctx.client().addresses.list(ctx.walletId(), opts.type ? { type: opts.type } : {}), opts);
      ctx.out.result(rows, () =>
        table(rows as Record<string, unknown>[], [
          ['id', 'id'],
          ['address', 'address'],
          ['name', 'name'],
          ['type', 'type'],
          ['createdAt', 'created'],
        ]),
      );
    });

  program
    .command('balances')
    .description('On-chain balances of the master address (or of --address)')
    .option('--address <address>', 'a child address (its address or id)')
    .option('--asset <assetId>', 'one asset only')
    .action(async (opts: { address?: string; asset?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const rows = await ctx.client().balances.list(ctx.walletId(), {
        ...(opts.address ? { address: opts.address } : {}),
        ...(opts.asset ? { asset_id: opts.asset } : {}),
      });
      ctx.out.result(rows, () =>
        table(rows as unknown as Record<string, unknown>[], [
          ['asset.asset.symbol', 'asset'],
          ['balance', 'balance'],
          ['convertedBalance', 'usd'],
          ['asset.asset.id', 'asset id'],
        ]),
      );
    });

  const tx = program.command('tx').description('Transactions');
  limitOptions(
    tx
      .command('list')
      .description('Transaction history, newest first (filters as the API)')
      .option('--address <addressId>', "one child address's transactions")
      .addOption(new Option('--status <status>').choices(TX_STATUSES))
      .addOption(new Option('--type <type>').choices(TX_TYPES))
      .option('--hash <hash>', 'the chain transaction hash')
      .option('--reference <reference>')
      .option('--assets <symbols>', 'comma-separated asset symbols, e.g. USDT,USDC')
      .option('--start-date <iso>', 'ISO 8601, inclusive')
      .option('--end-date <iso>', 'ISO 8601, inclusive')
      .addOption(new Option('--order <order>').choices(['ASC', 'DESC'])),
  ).action(async (opts: Record<string, string | boolean | undefined>, cmd: Command) => {
    const ctx = context(cmd);
    const query = Object.fromEntries(
      (['status', 'type', 'hash', 'reference', 'assets', 'startDate', 'endDate', 'order'] as const).flatMap((k) =>
        opts[k] ? [[k, opts[k]]] : [],
      ),
    );
    const client = ctx.client();
    const list = opts.address
      ? client.transactions.listForAddress(ctx.walletId(), String(opts.address), query)
      : client.transactions.list(ctx.walletId(), query);
    const rows = await collect(list, opts as { limit?: string; all?: boolean });
    ctx.out.result(rows, () =>
      table(rows as Record<string, unknown>[], [
        ['createdAt', 'created'],
        ['id', 'id'],
        ['type', 'type'],
        ['status', 'status'],
        ['amount', 'amount'],
        ['asset.symbol', 'asset'],
        ['hash', 'hash'],
      ]),
    );
  });
  tx.command('show')
    .description('One transaction')
    .argument('<transactionId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const ctx = context(cmd);
      const t = await ctx.client().transactions.get(ctx.walletId(), id);
      ctx.out.result(t, () =>
        fields(t as Record<string, unknown>, [
          ['id', 'id'],
          ['reference', 'reference'],
          ['type', 'type'],
          ['status', 'status'],
          ['amount', 'amount'],
          ['asset.symbol', 'asset'],
          ['senderAddress', 'from'],
          ['recipientAddress', 'to'],
          ['hash', 'hash'],
          ['confirmations', 'confirmations'],
          ['fee', 'fee'],
          ['reason', 'reason'],
          ['createdAt', 'created'],
        ]),
      );
    });
}

export function jsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidArgumentError('not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidArgumentError('expected a JSON object, e.g. {"customerId":"42"}');
  return value as Record<string, unknown>;
}
