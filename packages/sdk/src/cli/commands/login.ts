import type { Command } from 'commander';
import { WalletClient } from '../../client.js';
import { configPath, readConfig, writeConfig, type Profile } from '../config.js';
import { context, readLine } from '../context.js';
import { readCredentials } from '../credentials.js';
import { CliError, EXIT, table } from '../output.js';

interface LoginFlags {
  credentials?: string | true;
  chain?: string;
  business?: boolean;
}

export function loginCommands(program: Command): void {
  program
    .command('login')
    .description('Check an API key against the service and store it in a profile (a file only you can read)')
    .option('--credentials [file]', "use the embedded default's credentials.json (default: $DATA_DIR or .data)")
    .option('--chain <slug>', 'with --credentials: the demo wallet of this chain (default: the first)')
    .option('--business', 'with --credentials: the business key instead of a wallet key')
    .addHelpText(
      'after',
      '\nThe key comes from --api-key, WALLET_API_KEY, --credentials, or standard input (a prompt on a terminal).\n' +
        'Examples:\n  wallet login --credentials\n  wallet login --base-url https://wallet.example.com --wallet <wallet id> < key.txt',
    )
    .action(async (opts: LoginFlags, cmd: Command) => {
      const ctx = context(cmd);
      const flags = cmd.optsWithGlobals<{ baseUrl?: string; apiKey?: string; wallet?: string; profile?: string }>();
      const profile: Partial<Profile> = {};
      if (opts.credentials !== undefined) {
        const creds = readCredentials(opts.credentials);
        profile.baseUrl = creds.baseUrl;
        if (opts.business) profile.apiKey = creds.business.apiKey;
        else {
          const wallet = opts.chain ? creds.wallets.find((w) => w.blockchain === opts.chain) : creds.wallets[0];
          if (!wallet)
            throw new CliError(`no demo wallet on ${opts.chain} (have ${creds.wallets.map((w) => w.blockchain).join(', ')})`, EXIT.USAGE);
          profile.apiKey = wallet.apiKey;
          profile.walletId = wallet.id;
        }
      }
      // A credentials file gives a URL and its keys together: the environment's URL or key
      // never pairs with the other half (its key would go to another service).
      const fromFile = opts.credentials !== undefined;
      profile.baseUrl =
        flags.baseUrl ??
        (fromFile ? profile.baseUrl : (process.env.WALLET_BASE_URL ?? profile.baseUrl)) ??
        ctx.selected.baseUrl ??
        'http://127.0.0.1:8080';
      profile.apiKey = flags.apiKey ?? (fromFile ? profile.apiKey : (process.env.WALLET_API_KEY ?? profile.apiKey));
      if (!profile.apiKey) {
        const typed = await readLine('API key: ', { silent: true });
        profile.apiKey = typed?.trim() || undefined;
      }
      if (!profile.apiKey) throw new CliError('no API key given (--api-key, WALLET_API_KEY, --credentials or standard input)', EXIT.USAGE);
      const walletId = flags.wallet ?? profile.walletId;
      const client = new WalletClient({ baseUrl: profile.baseUrl, apiKey: profile.apiKey, maxRetries: 0 });
      // A request every key may make: the key works, and the URL is this service.
      await client.blockchains.list();
      if (walletId) await client.wallets.get(walletId);
      const saved: Profile = { baseUrl: profile.baseUrl, apiKey: profile.apiKey, ...(walletId ? { walletId } : {}) };
      const file = configPath();
      const config = readConfig(file);
      config.profiles[ctx.selected.profileName] = saved;
      config.defaultProfile ??= ctx.selected.profileName;
      writeConfig(config, file);
      const shown = {
        profile: ctx.selected.profileName,
        baseUrl: saved.baseUrl,
        walletId: saved.walletId ?? null,
        key: keyHint(saved.apiKey),
        file,
      };
      ctx.out.result(
        shown,
        () =>
          `Logged in: profile "${shown.profile}" -> ${shown.baseUrl} (key ${shown.key}${walletId ? `, wallet ${walletId}` : ''}); saved in ${file}`,
      );
    });

  program
    .command('logout')
    .description('Remove the selected profile')
    .action((_opts: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const file = configPath();
      const config = readConfig(file);
      const existed = delete config.profiles[ctx.selected.profileName];
      if (config.defaultProfile === ctx.selected.profileName) delete config.defaultProfile;
      writeConfig(config, file);
      ctx.out.result({ profile: ctx.selected.profileName, removed: existed }, () =>
        existed ? `Removed profile "${ctx.selected.profileName}"` : `No profile "${ctx.selected.profileName}"`,
      );
    });

  program
    .command('profiles')
    .description('List the stored profiles (keys are never shown)')
    .action((_opts: unknown, cmd: Command) => {
      const ctx = context(cmd);
      const config = readConfig();
      const rows = Object.entries(config.profiles).map(([name, p]) => ({
        name,
        default: name === (config.defaultProfile ?? 'default') ? '*' : '',
        baseUrl: p.baseUrl,
        walletId: p.walletId ?? null,
        key: keyHint(p.apiKey),
      }));
      ctx.out.result(rows, () =>
        table(rows, [
          ['default', ' '],
          ['name', 'profile'],
          ['baseUrl', 'service'],
          ['walletId', 'wallet'],
          ['key', 'key'],
        ]),
      );
    });
}

/** Enough of a key to tell which it is, never enough to use it. */
export const keyHint = (key: string) => `${key.slice(0, key.indexOf('_', 3) + 1 || 7)}…${key.slice(-4)}`;
