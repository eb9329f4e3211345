/**
 * The command tree of `wallet` (main.ts runs it). Global options work on every command;
 * `--help` on any of them prints its usage (exit 0). Exit codes: output.ts (EXIT).
 */
import { Command, CommanderError, Option } from 'commander';
import { SDK_VERSION } from '../version.js';
import { completionCommand } from './completion.js';
import { amlCommands } from './commands/aml.js';
import { approvalCommands } from './commands/approvals.js';
import { eventCommands } from './commands/events.js';
import { faucetCommand } from './commands/faucet.js';
import { loginCommands } from './commands/login.js';
import { paymentLinkCommands } from './commands/payment-links.js';
import { resourceCommands } from './commands/resources.js';
import { treasuryCommands } from './commands/treasury.js';
import { webhookCommands } from './commands/webhooks.js';
import { withdrawCommand } from './commands/withdraw.js';
import { EXIT, errorJson, errorText, exitCodeOf } from './output.js';

export function buildProgram(): Command {
  const program = new Command('wallet')
    .description('Command-line client of the stablecoin wallet service')
    .version(SDK_VERSION, '-v, --version')
    .option('--profile <name>', 'the stored profile to use (default: WALLET_PROFILE, else the default profile)')
    .option('--json', 'machine-readable output: one JSON document, or a JSON line per event')
    .option('--wallet <walletId>', "the wallet to work on (default: WALLET_ID, else the profile's)")
    .option('--base-url <url>', "the service (default: WALLET_BASE_URL, else the profile's)")
    .addOption(new Option('--api-key <key>', "the API key (default: WALLET_API_KEY, else the profile's); prefer login or the environment"))
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 refused or failed, 2 usage, 3 no key or not allowed, 4 not found, 5 service unavailable, 6 not confirmed.',
    );
  loginCommands(program);
  resourceCommands(program);
  withdrawCommand(program);
  webhookCommands(program);
  eventCommands(program);
  faucetCommand(program);
  amlCommands(program);
  approvalCommands(program);
  paymentLinkCommands(program);
  treasuryCommands(program);
  completionCommand(program);
  // Every command: commander's exits become ours (usage errors 2, help 0), checked in run().
  const configure = (cmd: Command) => {
    cmd.exitOverride();
    for (const sub of cmd.commands) configure(sub);
  };
  configure(program);
  return program;
}

/** Usage errors commander reports (exit code 2, as the server CLI). */
const USAGE_CODES = new Set([
  'commander.unknownOption',
  'commander.unknownCommand',
  'commander.missingArgument',
  'commander.missingMandatoryOptionValue',
  'commander.optionMissingArgument',
  'commander.invalidArgument',
  'commander.excessArguments',
  'commander.conflictingOption',
  // A group without its sub-command (`wallet webhooks`): its help, as an error.
  'commander.help',
]);

export async function run(argv: string[]): Promise<number> {
  const program = buildProgram();
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.OK;
  } catch (err) {
    if (err instanceof CommanderError) {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return EXIT.OK;
      return USAGE_CODES.has(err.code) ? EXIT.USAGE : err.exitCode || EXIT.USAGE;
    }
    process.stderr.write(json ? `${JSON.stringify(errorJson(err))}\n` : `${errorText(err)}\n`);
    return exitCodeOf(err);
  }
}
