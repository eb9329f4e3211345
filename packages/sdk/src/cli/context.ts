/**
 * What each command gets: the output, the client for the selected profile, and the wallet
 * it works on. Commands declare what they need and get a clear error (exit code 3) when the
 * profile lacks it.
 */
import type { Command } from 'commander';
import { WalletClient } from '../client.js';
import { select, type Selected } from './config.js';
import { CliError, EXIT, output, type Out } from './output.js';

export interface GlobalFlags {
  profile?: string;
  baseUrl?: string;
  apiKey?: string;
  wallet?: string;
  json?: boolean;
}

export interface Context {
  out: Out;
  selected: Selected;
  client(): WalletClient;
  /** The wallet to work on: --wallet, WALLET_ID, or the profile's. */
  walletId(): string;
  apiKey(): string;
}

export function context(cmd: Command): Context {
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  const selected = select(flags);
  const out = output(flags.json === true);
  let client: WalletClient | undefined;
  const notLoggedIn = (what: string) =>
    new CliError(
      `no ${what}: run \`wallet login\` (profile "${selected.profileName}"), or set WALLET_BASE_URL and WALLET_API_KEY`,
      EXIT.AUTH,
    );
  return {
    out,
    selected,
    client() {
      if (!selected.baseUrl) throw notLoggedIn('service URL');
      if (!selected.apiKey) throw notLoggedIn('API key');
      return (client ??= new WalletClient({ baseUrl: selected.baseUrl, apiKey: selected.apiKey }));
    },
    walletId() {
      if (!selected.walletId) {
        throw new CliError(
          'no wallet: pass --wallet <id>, set WALLET_ID, or log in with --wallet (a business key reaches several)',
          EXIT.USAGE,
        );
      }
      return selected.walletId;
    },
    apiKey() {
      if (!selected.apiKey) throw notLoggedIn('API key');
      return selected.apiKey;
    },
  };
}

/** Decimal amount to base units, exactly (no floating point). */
export function toBaseUnits(amount: string, decimals: number): bigint {
  const m = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!m) throw new CliError(`not an amount: ${JSON.stringify(amount)} (a decimal number such as 12.5)`, EXIT.USAGE);
  const fraction = m[2] ?? '';
  if (fraction.length > decimals) throw new CliError(`${amount} has more than ${decimals} decimals`, EXIT.USAGE);
  return BigInt(m[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

/** Reads a line from stdin (a prompt on a terminal, or what a script pipes in). */
export async function readLine(prompt: string, opts: { silent?: boolean } = {}): Promise<string | null> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: process.stdin.isTTY === true });
  if (opts.silent && process.stdin.isTTY) {
    // Echo nothing of a secret typed at the terminal.
    (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
      if (s.includes(prompt)) process.stderr.write(prompt);
    };
  }
  return new Promise((resolve) => {
    let answered = false;
    rl.question(prompt, (answer) => {
      answered = true;
      rl.close();
      if (opts.silent && process.stdin.isTTY) process.stderr.write('\n');
      resolve(answer);
    });
    rl.once('close', () => {
      if (!answered) resolve(null);
    });
  });
}
