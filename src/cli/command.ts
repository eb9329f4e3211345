/**
 * What every CLI command shares: the command shape the table (commands.ts) holds, the
 * dispatcher, and argument helpers. Light on purpose: `help`, a usage error and the dispatch
 * load only this and the table; a command's own file (and the service it needs) is loaded
 * when that command runs (context.ts has the helpers that start the service).
 */
import { ConfigError } from '../config/errors.js';
import { DataDirInUseError } from '../lib/data-dir-lock.js';

export interface Command {
  /** Arguments after the command name, for `help` (e.g. `<business name>`). */
  usage: string;
  /** One line for `help`. */
  summary: string;
  /**
   * Runs the command. A returned number is the exit code; a command that returns nothing
   * and leaves work running (`start`) keeps the process alive until it stops itself.
   */
  run(args: string[]): Promise<number | void>;
}

export type CommandTable = Record<string, Command>;

/** Wrong usage or refused input: the message goes to stderr and the exit code is 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The program's name in messages: what the operator typed is unknowable, so the bin name. */
export const PROGRAM = 'wallet-service';

export function helpText(table: CommandTable): string {
  const lines = Object.entries(table).map(([name, c]) => `  ${`${name} ${c.usage}`.trim()}\n      ${c.summary}`);
  return `usage: ${PROGRAM} <command> [arguments]\n\ncommands:\n${lines.join('\n')}\n\nWith no command: start (every role). api, worker and indexer alone mean start <role>.\n`;
}

/** One command's usage, for `<command> --help` and `help <command>`. */
export function commandHelp(name: string, c: Command): string {
  return `usage: ${PROGRAM} ${`${name} ${c.usage}`.trim()}\n\n${c.summary}\n`;
}

const HELP_FLAGS = new Set(['--help', '-h']);

/**
 * Dispatches argv to the command table. `api`, `worker` and `indexer` alone mean
 * `start <role>`; no command at all means `start`. `--help` (or `-h`) anywhere after a
 * command prints that command's usage and exits 0 without running it.
 */
export async function runCli(table: CommandTable, argv: string[], roles: readonly string[]): Promise<void> {
  let [name = 'start', ...rest] = argv;
  if (roles.includes(name)) {
    rest = [name, ...rest];
    name = 'start';
  }
  const find = (n: string | undefined) => (n !== undefined && Object.hasOwn(table, n) ? table[n] : undefined);
  if (name === 'help' || HELP_FLAGS.has(name)) {
    const about = find(rest[0]);
    process.stdout.write(about ? commandHelp(rest[0]!, about) : helpText(table));
    return;
  }
  const command = find(name);
  if (command && rest.some((a) => HELP_FLAGS.has(a))) {
    process.stdout.write(commandHelp(name, command));
    return;
  }
  try {
    if (!command) throw new UsageError(`unknown command "${name}"\n\n${helpText(table)}`);
    const code = await command.run(rest);
    if (typeof code === 'number') process.exitCode = code;
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(2);
    }
    if (err instanceof DataDirInUseError) {
      process.stderr.write(`refusing to start: ${err.message}\n`);
      process.exit(1);
    }
    // A refusal the operator must fix (a wrong or lost master key) carries its exit code: message only.
    const exitCode = (err as { exitCode?: unknown } | null)?.exitCode;
    if (typeof exitCode === 'number' && err instanceof Error) {
      process.stderr.write(`${err.message}\n`);
      process.exit(exitCode);
    }
    process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  }
}

/** `--name value` from an argument list. */
export function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}
