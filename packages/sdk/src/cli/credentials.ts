/**
 * The embedded default's `credentials.json` (written by `npm start` in its data directory):
 * the demo business and wallets with their keys, and each devnet with its faucet. `login
 * --credentials` and `faucet` read it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CliError, EXIT } from './output.js';

export interface DevnetCredentials {
  baseUrl: string;
  business: { id: string; name: string; apiKey: string };
  wallets: { id: string; name: string; network: string; blockchain: string; address: string; apiKey: string }[];
  chains: {
    slug: string;
    chainId: number;
    rpcUrl: string;
    assets: { id: string; symbol: string; address: string; decimals: number }[];
    faucet: { address: string; privateKey: string };
  }[];
}

/** `$DATA_DIR/credentials.json`, else `.data/credentials.json` (what `npm start` writes). */
export function defaultCredentialsPath(env: NodeJS.ProcessEnv = process.env): string {
  return path.resolve(env.DATA_DIR || '.data', 'credentials.json');
}

export function readCredentials(file: string | true | undefined): DevnetCredentials {
  const where = typeof file === 'string' ? path.resolve(file) : defaultCredentialsPath();
  try {
    return JSON.parse(readFileSync(where, 'utf8')) as DevnetCredentials;
  } catch (err) {
    throw new CliError(
      `cannot read ${where}: ${(err as Error).message} (it is written by \`npm start\`; pass --credentials <file>)`,
      EXIT.USAGE,
    );
  }
}
