/**
 * The embedded default's demo data: one business, one master wallet per devnet chain
 * with the test tokens enabled, and `<data dir>/credentials.json` in the shape of DESIGN
 * section 8. Idempotent: a second start finds the same business and wallets, and the
 * stored (encrypted) keys are revealed again for the file.
 */
import { randomBytes } from 'node:crypto';
import { readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Services } from '../services.js';
import { createPublicClient, createWalletClient, http, parseEther, type Address, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { DevnetChain } from './devnet.js';
import { devnetChain } from './chain.js';
import { DashboardService } from '../dashboard/service.js';

export const DEMO_BUSINESS = 'Demo Business';
export const DEMO_DASHBOARD_LOGIN = 'demo@example.com';

export interface Credentials {
  baseUrl: string;
  business: { id: string; name: string; apiKey: string };
  wallets: { id: string; name: string; network: string; blockchain: string; address: string; apiKey: string }[];
  chains: {
    slug: string;
    chainId: number;
    rpcUrl: string;
    assets: { id: string; symbol: string; address: string; decimals: number }[];
    faucet: { address: string; privateKey: string };
    /** The devnet's sanctions oracle (AML screening; its owner is the faucet), where the chain has one. */
    sanctionsOracle?: string;
  }[];
  dashboard: { url: string; login: string; password: string };
}

export async function seedDemo(
  services: Services,
  chains: DevnetChain[],
  opts: { baseUrl: string; dataDir: string },
): Promise<Credentials> {
  const existing = await services.businesses.findByName(DEMO_BUSINESS);
  let business = existing;
  let businessKey: string | null = null;
  if (!business) {
    const created = await services.businesses.create(DEMO_BUSINESS);
    business = created.business;
    businessKey = created.apiKey;
  } else {
    businessKey = await services.apiKeys.revealBusinessKey(business.id);
  }
  if (!businessKey) throw new Error('the demo business has no live API key; delete the data directory to start over');

  const wallets: Credentials['wallets'] = [];
  for (const chain of chains) {
    const { slug } = chain.config.blockchain;
    let wallet = await services.wallets.findForBusiness(business.id, slug, chain.config.network);
    let apiKey: string | null;
    if (!wallet) {
      const created = await services.wallets.createForBusiness(business.id, {
        blockchain: slug,
        network: chain.config.network,
        name: `Demo ${chain.config.blockchain.name}`,
        description: 'Created by the embedded default',
      });
      wallet = created.wallet;
      apiKey = created.apiKey;
    } else {
      apiKey = await services.apiKeys.revealWalletKey(wallet.id);
    }
    if (!apiKey) throw new Error(`demo wallet ${wallet.id} has no live API key; regenerate it with the business key`);
    await fundMaster(chain, wallet.address);
    wallets.push({ id: wallet.id, name: wallet.name, network: wallet.network, blockchain: slug, address: wallet.address, apiKey });
  }

  // The dashboard user of the demo business; re-seeding keeps it (and its sessions) when
  // the password file is unchanged.
  const dashboard = { login: DEMO_DASHBOARD_LOGIN, password: await dashboardPassword(opts.dataDir) };
  await new DashboardService(services.db, services.clock).upsertUser(business.id, dashboard.login, dashboard.password);

  const credentials: Credentials = {
    baseUrl: opts.baseUrl,
    business: { id: business.id, name: business.name, apiKey: businessKey },
    wallets,
    chains: chains.map((chain) => {
      const handle = services.catalogue.findChain(chain.config.blockchain.slug, chain.config.network);
      return {
        slug: chain.config.blockchain.slug,
        chainId: chain.config.chainId,
        rpcUrl: chain.config.rpcUrl,
        assets: (handle?.assets ?? [])
          .filter((a) => !a.is_native)
          .map((a) => ({ id: a.id, symbol: a.symbol, address: a.address, decimals: a.decimals })),
        faucet: chain.faucet,
        ...(chain.config.sanctionsOracle ? { sanctionsOracle: chain.config.sanctionsOracle } : {}),
      };
    }),
    dashboard: {
      url: `${opts.baseUrl}/dashboard`,
      login: dashboard.login,
      password: dashboard.password,
    },
  };
  await writeCredentials(opts.dataDir, credentials);
  return credentials;
}

/**
 * A master address pays the gas of sweeps (it tops up child addresses) and of payouts:
 * the faucet gives each demo master native coin, once, with a real transfer.
 */
async function fundMaster(chain: DevnetChain, master: string): Promise<void> {
  if (chain.fundNative) return chain.fundNative(master);
  const viemChain = devnetChain(chain.config.chainId, chain.config.rpcUrl);
  const client = createPublicClient({ chain: viemChain, transport: http(chain.config.rpcUrl) });
  if ((await client.getBalance({ address: master as Address })) >= parseEther('1')) return;
  const faucet = createWalletClient({
    chain: viemChain,
    transport: http(chain.config.rpcUrl),
    account: privateKeyToAccount(chain.faucet.privateKey as Hex),
  });
  const hash = await faucet.sendTransaction({ to: master as Address, value: parseEther('100') });
  await client.waitForTransactionReceipt({ hash, pollingInterval: 100 });
}

export function credentialsPath(dataDir: string): string {
  return path.join(dataDir, 'credentials.json');
}

/** Written to a temporary name and renamed, so a reader never sees half a file. */
async function writeCredentials(dataDir: string, credentials: Credentials): Promise<void> {
  const file = credentialsPath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  await rename(tmp, file);
}

async function dashboardPassword(dataDir: string): Promise<string> {
  const file = path.join(dataDir, 'dashboard.password');
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch {
    const password = randomBytes(12).toString('base64url');
    await writeFile(file, `${password}\n`, { mode: 0o600 });
    return password;
  }
}
