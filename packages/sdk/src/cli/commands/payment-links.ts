/** Payment links and checkout sessions: `wallet payment-links …`, `wallet checkouts …` (docs/checkout.md on the service's side). */
import type { Command } from 'commander';
import { context } from '../context.js';
import { fields, table } from '../output.js';
import { collect, jsonObject, limitOptions, positiveInt } from './resources.js';

const LINK_FIELDS: [string, string][] = [
  ['id', 'id'],
  ['name', 'name'],
  ['slug', 'slug'],
  ['url', 'page'],
  ['amount', 'amount'],
  ['currency', 'currency'],
  ['active', 'active'],
  ['payments', 'payments'],
  ['paymentLimit', 'limit'],
  ['accepts', 'accepts'],
];

const CHECKOUT_FIELDS: [string, string][] = [
  ['id', 'id'],
  ['status', 'status'],
  ['amount', 'amount'],
  ['amountPaid', 'paid'],
  ['currency', 'currency'],
  ['address', 'address'],
  ['partial', 'partial'],
  ['overpaid', 'overpaid'],
  ['paidLate', 'late'],
  ['expiresAt', 'expires'],
];

interface CreateOptions {
  name: string;
  amount?: string;
  description?: string;
  assets?: string;
  paymentLimit?: string;
  slug?: string;
  redirectUrl?: string;
  successMessage?: string;
  inactiveMessage?: string;
  expiresIn?: string;
  tolerance?: string;
  metadata?: Record<string, unknown>;
}

export function paymentLinkCommands(program: Command): void {
  const links = program.command('payment-links').description('Payment links: a page at /pay/<slug> that takes stablecoin payments');
  links
    .command('create')
    .description("A new link taking the wallet's USD stablecoins (a business key: --wallet's)")
    .requiredOption('--name <name>', 'what the payer sees')
    .option('--amount <decimal>', 'the price in USD; left out: the payer chooses')
    .option('--description <text>')
    .option('--assets <symbols>', 'comma-separated symbols, e.g. USDC,USDT (default every enabled USD stablecoin)')
    .option('--payment-limit <n>', 'settled payments it takes, then it is inactive', positiveInt)
    .option('--slug <slug>', 'the page is /pay/<slug> (default: made from the name)')
    .option('--redirect-url <url>', 'where the payer goes once paid')
    .option('--success-message <text>')
    .option('--inactive-message <text>', 'shown once deactivated or at its limit')
    .option('--expires-in <minutes>', "how long a payer's session waits (default 30)", positiveInt)
    .option('--tolerance <percent>', 'how far short a payment may fall and still settle (default 0)')
    .option('--metadata <json>', 'key/value data kept on the link and its payments, as a JSON object', jsonObject)
    .action(async (opts: CreateOptions, cmd: Command) => {
      const ctx = context(cmd);
      // A wallet key's link takes its own wallet by default; a business key names one.
      const business = ctx.apiKey().startsWith('sk_biz_');
      const assets = opts.assets
        ?.split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const configurations = {
        ...(opts.expiresIn ? { expiresInMinutes: Number(opts.expiresIn) } : {}),
        ...(opts.tolerance ? { underpaymentTolerance: opts.tolerance } : {}),
      };
      const link = await ctx.client().paymentLinks.create({
        name: opts.name,
        ...(opts.amount ? { amount: opts.amount } : {}),
        ...(opts.description ? { description: opts.description } : {}),
        ...(opts.paymentLimit ? { paymentLimit: Number(opts.paymentLimit) } : {}),
        ...(opts.slug ? { slug: opts.slug } : {}),
        ...(opts.redirectUrl ? { redirectUrl: opts.redirectUrl } : {}),
        ...(opts.successMessage ? { successMessage: opts.successMessage } : {}),
        ...(opts.inactiveMessage ? { inactiveMessage: opts.inactiveMessage } : {}),
        // The service checks the values (strings and numbers); a wrong one is its 400, naming the field.
        ...(opts.metadata ? { metadata: opts.metadata as Record<string, string | number> } : {}),
        ...(Object.keys(configurations).length ? { configurations } : {}),
        ...(business || assets?.length ? { accepts: [{ walletId: ctx.walletId(), ...(assets?.length ? { assets } : {}) }] } : {}),
      });
      ctx.out.result(link, () => fields(link as unknown as Record<string, unknown>, LINK_FIELDS));
    });
  limitOptions(links.command('list').description('Links, newest first')).action(async (opts, cmd: Command) => {
    const ctx = context(cmd);
    const rows = await collect(ctx.client().paymentLinks.list(), opts);
    ctx.out.result(rows, () =>
      table(rows as unknown as Record<string, unknown>[], [
        ['id', 'id'],
        ['name', 'name'],
        ['slug', 'slug'],
        ['amount', 'amount'],
        ['active', 'active'],
        ['payments', 'payments'],
      ]),
    );
  });
  links
    .command('show')
    .alias('get')
    .description('One link')
    .argument('<paymentLinkId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const ctx = context(cmd);
      const link = await ctx.client().paymentLinks.get(id);
      ctx.out.result(link, () => fields(link as unknown as Record<string, unknown>, LINK_FIELDS));
    });
  for (const [name, active] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    links
      .command(name)
      .description(active ? 'Takes payments again' : 'Stops taking payments: the page shows its inactive message')
      .argument('<paymentLinkId>')
      .action(async (id: string, _opts, cmd: Command) => {
        const ctx = context(cmd);
        const link = await ctx.client().paymentLinks.update(id, { active });
        ctx.out.result(link, () => fields(link as unknown as Record<string, unknown>, LINK_FIELDS));
      });
  }

  const checkouts = program.command('checkouts').description("Checkout sessions: one payer's address, amount and deadline on a link");
  checkouts
    .command('create')
    .description('Starts a session on a link, as its page does for a payer')
    .argument('<paymentLinkId>')
    .option('--asset <symbol>', 'which asset the payer pays in (needed when the link takes several)')
    .option('--amount <decimal>', "overrides the link's amount")
    .option('--reference <reference>', 'your order number (kept on the session and its deposits)')
    .option('--email <email>')
    .action(async (id: string, opts: { asset?: string; amount?: string; reference?: string; email?: string }, cmd: Command) => {
      const ctx = context(cmd);
      const session = await ctx.client().checkouts.create(id, {
        ...(opts.asset ? { asset: opts.asset } : {}),
        ...(opts.amount ? { amount: opts.amount } : {}),
        ...(opts.reference ? { reference: opts.reference } : {}),
        ...(opts.email ? { email: opts.email } : {}),
      });
      ctx.out.result(session, () => fields(session as unknown as Record<string, unknown>, [...CHECKOUT_FIELDS, ['url', 'page']]));
    });
  limitOptions(checkouts.command('list').description("A link's sessions, newest first").argument('<paymentLinkId>')).action(
    async (id: string, opts, cmd: Command) => {
      const ctx = context(cmd);
      const rows = await collect(ctx.client().checkouts.list(id), opts);
      ctx.out.result(rows, () => table(rows as unknown as Record<string, unknown>[], CHECKOUT_FIELDS.slice(0, 6)));
    },
  );
  checkouts
    .command('show')
    .alias('get')
    .description('One session')
    .argument('<checkoutId>')
    .action(async (id: string, _opts, cmd: Command) => {
      const ctx = context(cmd);
      const session = await ctx.client().checkouts.get(id);
      ctx.out.result(session, () => fields(session as unknown as Record<string, unknown>, [...CHECKOUT_FIELDS, ['url', 'page']]));
    });
}
