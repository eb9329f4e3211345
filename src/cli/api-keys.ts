/**
 * `npm start -- api-key create|list|revoke`: a business's API keys from the command line,
 * through the same service and rules as `/v1/api-keys` (acting as the business, like its
 * dashboard). The new key is printed once, on stdout; nothing else ever prints a key.
 */
import type { AppConfig } from '../config/index.js';
import type { Logger } from '../lib/logger.js';
import { AppError } from '../lib/errors.js';
import { startRuntime } from '../runtime.js';
import type { Services } from '../services.js';
import type { ApiKeyView, AuthContext } from '../modules/apikeys/service.js';
import { API_KEY_SCOPES, type ApiKeyScope } from '../modules/apikeys/scopes.js';
import { businessOf } from './business-ref.js';

const USAGE = `usage: npm start -- api-key create --business <business id or name> [--name <label>] [--scope READ_ONLY|NO_KEY_EXPORT|APPROVE|MANAGE_POLICIES]... [--rate-limit <requests per second>]
       npm start -- api-key list   --business <business id or name> [--all]
       npm start -- api-key revoke <key id> --business <business id or name>
`;

interface Parsed {
  action: 'create' | 'list' | 'revoke';
  business: string;
  keyId?: string;
  name?: string;
  scopes: ApiKeyScope[];
  rateLimit?: number;
  all: boolean;
}

/** The arguments, checked before anything starts (the embedded default starts a database). */
export function parseApiKeyArgs(args: string[]): Parsed | string {
  const [action, ...rest] = args;
  if (action !== 'create' && action !== 'list' && action !== 'revoke') return `unknown action "${action ?? ''}"`;
  const parsed: Parsed = { action, business: '', scopes: [], all: false };
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i]!;
    const value = () => {
      const v = rest[++i];
      if (v === undefined || v.startsWith('--')) throw new Error(`${arg} needs a value`);
      return v;
    };
    try {
      if (arg === '--business') parsed.business = value();
      else if (arg === '--name' && action === 'create') parsed.name = value();
      else if (arg === '--scope' && action === 'create') {
        const scope = value().toUpperCase().replace(/-/g, '_');
        if (!(API_KEY_SCOPES as readonly string[]).includes(scope))
          return `unknown scope "${scope}"; scopes are ${API_KEY_SCOPES.join(', ')}`;
        if (!parsed.scopes.includes(scope as ApiKeyScope)) parsed.scopes.push(scope as ApiKeyScope);
      } else if (arg === '--rate-limit' && action === 'create') {
        const raw = value();
        if (!/^\d+$/.test(raw) || Number(raw) > 1_000_000) return '--rate-limit must be a whole number from 0 to 1000000 (0 = unlimited)';
        parsed.rateLimit = Number(raw);
      } else if (arg === '--all' && action === 'list') parsed.all = true;
      else if (action === 'revoke' && !arg.startsWith('--') && parsed.keyId === undefined) parsed.keyId = arg;
      else return `unexpected argument "${arg}"`;
    } catch (err) {
      return (err as Error).message;
    }
  }
  if (!parsed.business) return '--business is required';
  if (parsed.name !== undefined && parsed.name.length > 100) return '--name must be at most 100 characters';
  if (action === 'revoke' && !/^[0-9a-f-]{36}$/i.test(parsed.keyId ?? '')) return 'revoke needs the key id (from api-key list)';
  return parsed;
}

export async function apiKeyCommand(config: AppConfig, logger: Logger, args: string[]): Promise<void> {
  const parsed = parseApiKeyArgs(args);
  if (typeof parsed === 'string') {
    process.stderr.write(`${parsed}\n${USAGE}`);
    process.exit(2);
  }
  // The embedded PostgreSQL runs in its own process group: exit through the hooks that stop it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(130));
  const runtime = await startRuntime({ config, roles: [], logger });
  try {
    const named = await businessOf(runtime.services, parsed.business);
    if ('error' in named) {
      process.stderr.write(`${named.error}\n`);
      process.exitCode = 2;
      return;
    }
    // The operator at the command line acts as the business, as its dashboard does.
    const auth: AuthContext = { keyId: 'cli:operator', businessId: named.business.id, walletId: null, operator: true };
    await run(runtime.services, auth, parsed).catch((err: unknown) => {
      if (!(err instanceof AppError)) throw err;
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 2;
    });
  } finally {
    await runtime.stop();
  }
}

async function run(services: Services, auth: AuthContext, p: Parsed): Promise<void> {
  const keys = services.apiKeys;
  if (p.action === 'create') {
    const created = await keys.createBusinessKey(auth, {
      ...(p.name !== undefined ? { name: p.name } : {}),
      scopes: p.scopes,
      ...(p.rateLimit !== undefined ? { rateLimit: p.rateLimit } : {}),
    });
    process.stdout.write(`${JSON.stringify(created, null, 2)}\nStore the API key now: it is not shown again.\n`);
  } else if (p.action === 'list') {
    const rows: ApiKeyView[] = [];
    for (let page = 1; ; page++) {
      const { items, meta } = await keys.listBusinessKeys(auth, { page, limit: 100, includeRevoked: p.all });
      rows.push(...items);
      if (page >= meta.totalPages) break;
    }
    process.stdout.write(table(rows));
  } else {
    const revoked = await keys.revokeBusinessKey(auth, p.keyId!);
    process.stdout.write(`revoked ${revoked.prefix}… (${revoked.id}) at ${revoked.revokedAt}\n`);
  }
}

function table(rows: ApiKeyView[]): string {
  if (rows.length === 0) return 'no API keys\n';
  const head = ['id', 'prefix', 'name', 'scopes', 'rate limit', 'created', 'last used', 'revoked'];
  const body = rows.map((k) => [
    k.id,
    `${k.prefix}…`,
    k.name || '-',
    k.scopes.join(',') || '-',
    k.rateLimit === null ? 'default' : k.rateLimit === 0 ? 'unlimited' : `${k.rateLimit}/s`,
    k.createdAt,
    k.lastUsedAt ?? 'never',
    k.revokedAt ?? '-',
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    `${cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd()}\n`;
  return [line(head), ...body.map(line)].join('');
}
