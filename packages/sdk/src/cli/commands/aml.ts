/** AML screening: `wallet aml lookup` (docs/aml.md on the service's side). */
import { Option, type Command } from 'commander';
import { context } from '../context.js';
import { fields } from '../output.js';

export function amlCommands(program: Command): void {
  const aml = program.command('aml').description('AML screening');
  aml
    .command('lookup')
    .description("Screens an address against every list in force: on the wallet's chain, or --blockchain's")
    .argument('<address>', "the address, in its chain's form")
    .option(
      '--blockchain <slug>',
      "a blockchain (GET /v1/blockchains) instead of the wallet's chain; needed with a business key and no wallet",
    )
    .addOption(new Option('--network <network>', 'with --blockchain: which network (default mainnet)').choices(['mainnet', 'testnet']))
    .action(async (address: string, opts: { blockchain?: string; network?: 'mainnet' | 'testnet' }, cmd: Command) => {
      const ctx = context(cmd);
      const client = ctx.client();
      const result = opts.blockchain
        ? await client.aml.lookup({ address, blockchain: opts.blockchain, ...(opts.network ? { network: opts.network } : {}) })
        : await client.aml.lookupForWallet(ctx.walletId(), { address });
      ctx.out.result(result, () =>
        fields(result as unknown as Record<string, unknown>, [
          ['address', 'address'],
          ['blockchain', 'blockchain'],
          ['status', 'status'],
          ['isBlacklisted', 'listed'],
          ['lists', 'lists'],
          ['failed', 'failed'],
          ['provider', 'providers'],
          ['checkedAt', 'checked'],
        ]),
      );
    });
}
