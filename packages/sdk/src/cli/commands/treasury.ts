/**
 * Swaps, asset recovery and staking (docs/treasury.md on the service's side):
 * `wallet swaps quote|execute`, `wallet salvage fee|run`, `wallet staking show|stake|unstake|restake|withdraw`.
 * Each write answers the PENDING Transaction; its outcome comes as a webhook or on the event feed.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { context } from '../context.js';
import { fields } from '../output.js';
import { resolveAsset } from './withdraw.js';

const decimal = (v: string) => {
  if (!/^\d+(\.\d+)?$/.test(v)) throw new InvalidArgumentError('a decimal amount such as 12.5');
  return v;
};

const TX_FIELDS: [string, string][] = [
  ['id', 'id'],
  ['type', 'type'],
  ['status', 'status'],
  ['amount', 'amount'],
  ['currency', 'currency'],
  ['recipientAddress', 'to'],
];

/** Prints a Transaction the service answered. */
function printTx(cmd: Command, tx: unknown): void {
  context(cmd).out.result(tx, () => fields(tx as Record<string, unknown>, TX_FIELDS));
}

export function treasuryCommands(program: Command): void {
  swapCommands(program);
  salvageCommands(program);
  stakingCommands(program);
}

function swapCommands(program: Command): void {
  const swaps = program.command('swaps').description("Swaps on the wallet's chain through its router");
  swaps
    .command('quote')
    .description('Quotes a swap: the output now, its minimum, the quote id to execute and until when')
    .requiredOption('--from <asset>', 'the asset given: a symbol enabled on the wallet (USDC) or an asset id')
    .requiredOption('--to <asset>', 'the asset received: a symbol enabled on the wallet or an asset id')
    .requiredOption('--amount <amount>', 'a decimal amount of the asset given', decimal)
    .option('--recipient <address>', 'where the output goes (default: the address swapping; the whitelist applies)')
    .option('--slippage <percent>', 'the slippage tolerance in percent, e.g. 0.5')
    .addOption(new Option('--order <order>', 'route choice').choices(['RECOMMENDED', 'FASTEST', 'CHEAPEST', 'NO_SLIPPAGE']))
    .option('--address <addressId>', 'swap from this child address instead of the master address')
    .action(
      async (
        opts: { from: string; to: string; amount: string; recipient?: string; slippage?: string; order?: string; address?: string },
        cmd: Command,
      ) => {
        const ctx = context(cmd);
        const client = ctx.client();
        const walletId = ctx.walletId();
        const body = {
          fromAssetId: await resolveAsset(client, walletId, opts.from),
          toAssetId: await resolveAsset(client, walletId, opts.to),
          amount: opts.amount,
          ...(opts.recipient ? { recipientAddress: opts.recipient } : {}),
          ...(opts.slippage ? { slippageTolerance: opts.slippage } : {}),
          ...(opts.order ? { order: opts.order as 'RECOMMENDED' } : {}),
        };
        const quote = opts.address
          ? await client.swaps.quoteFromAddress(walletId, opts.address, body)
          : await client.swaps.quote(walletId, body);
        ctx.out.result(quote, () =>
          fields(quote as unknown as Record<string, unknown>, [
            ['quoteId', 'quote'],
            ['amountIn', 'gives'],
            ['fromAsset', 'asset given'],
            ['amount', 'receives'],
            ['toAsset', 'asset received'],
            ['minAmount', 'at least'],
            ['expiresAt', 'expires'],
          ]),
        );
      },
    );
  swaps
    .command('execute')
    .description('Executes a quote (quoted again first: never below its minimum); prints the PENDING SWAP transaction')
    .argument('<quoteId>', 'the quote id from `wallet swaps quote`')
    .option('--address <addressId>', 'the child address the quote was made from')
    .option('--reference <reference>', 'your reference, unique per wallet')
    .action(async (quoteId: string, opts: { address?: string; reference?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const client = ctx.client();
      const walletId = ctx.walletId();
      const body = { quoteId, ...(opts.reference ? { reference: opts.reference } : {}) };
      const tx = opts.address
        ? await client.swaps.executeFromAddress(walletId, opts.address, body)
        : await client.swaps.execute(walletId, body);
      printTx(cmd, tx);
    });
}

interface SalvageFlags {
  sender: string;
  to: string;
  amount: string;
  blockchain: string;
  token?: string;
  rpcUrl?: string;
  reference?: string;
}

function salvageCommands(program: Command): void {
  const salvage = program
    .command('salvage')
    .description('Asset recovery: unlisted tokens, coin left at a child address, funds on the wrong chain');
  const common = (c: Command) =>
    c
      .requiredOption('--sender <address>', 'the address of this wallet holding the funds')
      .requiredOption('--to <address>', 'where the recovered funds go (the whitelist applies)')
      .requiredOption('--amount <amount>', "a decimal amount in the token's (or the native coin's) units", decimal)
      .requiredOption('--blockchain <blockchainId>', 'the blockchain id (GET /v1/blockchains) the funds sit on')
      .option('--token <address>', "the token's contract or mint (default: the native coin)")
      .option('--rpc-url <url>', 'an EVM chain this installation does not configure (used for this request only)');
  const bodyOf = (o: SalvageFlags) => ({
    senderAddress: o.sender,
    recipientAddress: o.to,
    amount: o.amount,
    blockchainId: o.blockchain,
    ...(o.token ? { tokenAddress: o.token } : {}),
    ...(o.rpcUrl ? { rpcUrl: o.rpcUrl } : {}),
  });
  common(salvage.command('fee').description("The sender's balances and the recovery's network fee")).action(
    async (opts: SalvageFlags, cmd: Command) => {
      const ctx = context(cmd);
      const fee = await ctx.client().salvage.networkFee(ctx.walletId(), bodyOf(opts));
      ctx.out.result(fee, () =>
        fields(fee as unknown as Record<string, unknown>, [
          ['balance', 'native balance'],
          ['tokenBalance', 'token balance'],
          ['fee', 'network fee'],
        ]),
      );
    },
  );
  common(salvage.command('run').description('Starts the recovery; prints the PENDING SALVAGE transaction'))
    .option('--reference <reference>', 'your reference, unique per wallet')
    .action(async (opts: SalvageFlags, cmd: Command) => {
      const ctx = context(cmd);
      const tx = await ctx
        .client()
        .salvage.create(ctx.walletId(), { ...bodyOf(opts), ...(opts.reference ? { reference: opts.reference } : {}) });
      printTx(cmd, tx);
    });
}

function stakingCommands(program: Command): void {
  const staking = program.command('staking').description("Staking of the master address's coin (Tron: energy and bandwidth)");
  staking
    .command('show')
    .description('What is staked, lent, unlocking and withdrawable now')
    .action(async (_opts: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const state = await ctx.client().staking.get(ctx.walletId());
      ctx.out.result(state, () =>
        fields(state as unknown as Record<string, unknown>, [
          ['address', 'address'],
          ['balance', 'balance'],
          ['totalStaked', 'staked'],
          ['unlockPeriodDays', 'unlock days'],
        ]),
      );
    });
  for (const action of ['stake', 'unstake'] as const) {
    staking
      .command(action)
      .description(action === 'stake' ? 'Stakes coin for a resource' : "Starts unstaking: unlocked after the chain's period")
      .requiredOption('--amount <amount>', 'a decimal amount of the native coin', decimal)
      .addOption(new Option('--resource <resource>', 'what the stake gives').choices(['ENERGY', 'BANDWIDTH']).default('ENERGY'))
      .option('--reference <reference>', 'your reference, unique per wallet')
      .action(async (opts: { amount: string; resource: 'ENERGY' | 'BANDWIDTH'; reference?: string }, cmd: Command) => {
        const ctx = context(cmd);
        const body = { amount: opts.amount, resource: opts.resource, ...(opts.reference ? { reference: opts.reference } : {}) };
        const client = ctx.client();
        printTx(
          cmd,
          action === 'stake' ? await client.staking.stake(ctx.walletId(), body) : await client.staking.unstake(ctx.walletId(), body),
        );
      });
  }
  for (const action of ['restake', 'withdraw'] as const) {
    staking
      .command(action)
      .description(action === 'restake' ? 'Puts every pending unstake back into its stake' : 'Pays out what unstaking unlocked')
      .option('--reference <reference>', 'your reference, unique per wallet')
      .action(async (opts: { reference?: string }, cmd: Command) => {
        const ctx = context(cmd);
        const body = opts.reference ? { reference: opts.reference } : {};
        const client = ctx.client();
        printTx(
          cmd,
          action === 'restake' ? await client.staking.restake(ctx.walletId(), body) : await client.staking.withdraw(ctx.walletId(), body),
        );
      });
  }
}
