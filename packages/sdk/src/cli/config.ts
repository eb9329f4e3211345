/**
 * Profiles: where the CLI finds the service and its key. `wallet login` writes them to
 * `$WALLET_CONFIG`, or `$XDG_CONFIG_HOME/stablecoin-wallet/config.json` (default
 * `~/.config/…`), readable by its owner only (0600, its directory 0700). Flags win over the
 * environment (`WALLET_PROFILE`, `WALLET_BASE_URL`, `WALLET_API_KEY`, `WALLET_ID`), which
 * wins over the profile.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Profile {
  baseUrl: string;
  apiKey: string;
  /** The wallet wallet-scoped commands use unless --wallet says otherwise. */
  walletId?: string;
}

export interface ConfigFile {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
}

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WALLET_CONFIG) return path.resolve(env.WALLET_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'stablecoin-wallet', 'config.json');
}

export function readConfig(file = configPath()): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { profiles: {} };
    throw err;
  }
  const parsed = JSON.parse(text) as Partial<ConfigFile>;
  return { ...parsed, profiles: parsed.profiles ?? {} };
}

/** Writes the file whole (a temporary file renamed over it), never readable by others. */
export function writeConfig(config: ConfigFile, file = configPath()): void {
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

export interface Selected {
  profileName: string;
  baseUrl?: string;
  apiKey?: string;
  walletId?: string;
}

/** The profile and settings a command runs with. */
export function select(
  flags: { profile?: string; baseUrl?: string; apiKey?: string; wallet?: string },
  env: NodeJS.ProcessEnv = process.env,
  config: ConfigFile = readConfig(configPath(env)),
): Selected {
  const profileName = flags.profile ?? env.WALLET_PROFILE ?? config.defaultProfile ?? 'default';
  const profile = config.profiles[profileName];
  const pick = (...values: (string | undefined)[]) => values.find((v) => v !== undefined && v !== '');
  const out: Selected = { profileName };
  // A profile named on the command line brings its URL and its key together: a key left in
  // the environment (a production key a script exported) never goes to that profile's URL.
  const chosen = flags.profile !== undefined;
  const baseUrl = chosen
    ? pick(flags.baseUrl, profile?.baseUrl, env.WALLET_BASE_URL)
    : pick(flags.baseUrl, env.WALLET_BASE_URL, profile?.baseUrl);
  const apiKey = chosen ? pick(flags.apiKey, profile?.apiKey, env.WALLET_API_KEY) : pick(flags.apiKey, env.WALLET_API_KEY, profile?.apiKey);
  const walletId = pick(flags.wallet, env.WALLET_ID, profile?.walletId);
  if (baseUrl) out.baseUrl = baseUrl;
  if (apiKey) out.apiKey = apiKey;
  if (walletId) out.walletId = walletId;
  return out;
}
