/**
 * `wallet faucet`: devnet coins and test tokens for an address, from the faucet account
 * the embedded default lists in credentials.json, on every family it runs:
 * - EVM (anvil): a real transfer from the faucet, an unlocked dev account
 *   (`eth_sendTransaction`; a token is an ERC-20 `transfer`), awaited until mined;
 * - Tron (the java-tron stand-in): its `/standin/fund` control route (TRX in sun, TRC-20
 *   base units), real transactions in the next block;
 * - Solana (the validator stand-in): its `standin_fund` (SOL) and `standin_mintTo` (SPL
 *   tokens to the owner's associated token account) JSON-RPC control methods.
 * The service sees each as a deposit when the address is one of its wallets'.
 */
import type { Command } from 'commander';
import { context, toBaseUnits } from '../context.js';
import { readCredentials, type DevnetCredentials } from '../credentials.js';
import { CliError, EXIT, fields } from '../output.js';

type Chain = DevnetCredentials['chains'][number];
type Family = 'evm' | 'tron' | 'solana';

const NATIVE: Record<Family, { decimals: number; symbol: (slug: string) => string }> = {
  evm: { decimals: 18, symbol: (slug) => (slug.includes('bsc') ? 'BNB' : 'ETH') },
  tron: { decimals: 6, symbol: () => 'TRX' },
  solana: { decimals: 9, symbol: () => 'SOL' },
};

export function familyOf(chain: Chain): Family {
  const a = chain.faucet.address;
  if (/^0x[0-9a-fA-F]{40}$/.test(a)) return 'evm';
  if (/^T[1-9A-HJ-NP-Za-km-z]{33}$/.test(a)) return 'tron';
  if (/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(a)) return 'solana';
  throw new CliError(`cannot tell the family of ${chain.slug} from its faucet address`);
}

interface FaucetFlags {
  asset: string;
  amount: string;
  chain?: string;
  credentials?: string | true;
}

export function faucetCommand(program: Command): void {
  program
    .command('faucet')
    .description("Devnets only: send native coin or a test token from the devnet's faucet to an address")
    .argument('[address]', "the address to fund (default: the profile wallet's master address)")
    .option('--asset <symbol>', 'native (default) or a test token symbol, e.g. USDC', 'native')
    .option('--amount <amount>', 'a decimal amount, e.g. 25', '10')
    .option('--chain <slug>', "the devnet (default: the profile wallet's chain)")
    .option('--credentials [file]', 'the credentials.json of `npm start` (default: $DATA_DIR or .data)')
    .action(async (address: string | undefined, opts: FaucetFlags, cmd: Command) => {
      const ctx = context(cmd);
      const creds = readCredentials(opts.credentials ?? true);
      let slug = opts.chain;
      if (!address || !slug) {
        const wallet = await ctx.client().wallets.get(ctx.walletId());
        address ??= wallet.address;
        slug ??= (wallet.blockchain as { slug: string }).slug;
      }
      const chain = creds.chains.find((c) => c.slug === slug);
      if (!chain)
        throw new CliError(`no devnet ${slug} in the credentials (have ${creds.chains.map((c) => c.slug).join(', ')})`, EXIT.USAGE);
      const family = familyOf(chain);
      const native = opts.asset.toLowerCase() === 'native' || opts.asset.toUpperCase() === NATIVE[family].symbol(chain.slug);
      const token = native ? null : chain.assets.find((a) => a.symbol.toUpperCase() === opts.asset.toUpperCase());
      if (!native && !token) {
        throw new CliError(
          `no test token ${opts.asset} on ${chain.slug} (have native, ${chain.assets.map((a) => a.symbol).join(', ')})`,
          EXIT.USAGE,
        );
      }
      const units = toBaseUnits(opts.amount, token ? token.decimals : NATIVE[family].decimals);
      if (units <= 0n) throw new CliError('the amount must be greater than 0', EXIT.USAGE);
      const sent = await FUND[family](chain, address, units, token);
      const result = {
        chain: chain.slug,
        address,
        asset: token ? token.symbol : NATIVE[family].symbol(chain.slug),
        amount: opts.amount,
        transactions: sent,
      };
      ctx.out.result(result, () =>
        fields(result as unknown as Record<string, unknown>, [
          ['chain', 'chain'],
          ['address', 'to'],
          ['asset', 'asset'],
          ['amount', 'amount'],
          ['transactions', 'transactions'],
        ]),
      );
    });
}

type Token = Chain['assets'][number] | null | undefined;

const FUND: Record<Family, (chain: Chain, to: string, units: bigint, token: Token) => Promise<string[]>> = {
  async evm(chain, to, units, token) {
    if (!/^0x[0-9a-fA-F]{40}$/.test(to)) throw new CliError(`not an EVM address: ${to}`, EXIT.USAGE);
    const tx = token
      ? { from: chain.faucet.address, to: token.address, data: `0xa9059cbb${word(BigInt(to))}${word(units)}` }
      : { from: chain.faucet.address, to, value: `0x${units.toString(16)}` };
    const hash = (await rpc(chain.rpcUrl, 'eth_sendTransaction', [tx])) as string;
    for (const deadline = Date.now() + 60_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 250))) {
      const receipt = (await rpc(chain.rpcUrl, 'eth_getTransactionReceipt', [hash])) as { status?: string } | null;
      if (receipt) {
        if (receipt.status !== '0x1') throw new CliError(`the faucet transfer ${hash} reverted`);
        return [hash];
      }
    }
    throw new CliError(`the faucet transfer ${hash} was not mined within 60 s`, EXIT.UNAVAILABLE);
  },
  async tron(chain, to, units, token) {
    const res = await post(`${chain.rpcUrl.replace(/\/+$/, '')}/standin/fund`, {
      address: to,
      ...(token ? { tokens: { [token.symbol]: units.toString() } } : { trx: units.toString() }),
    });
    return (res as { txids: string[] }).txids;
  },
  async solana(chain, to, units, token) {
    if (!token) return [(await rpc(chain.rpcUrl, 'standin_fund', [to, units.toString()])) as string];
    const minted = (await rpc(chain.rpcUrl, 'standin_mintTo', [token.address, to, units.toString()])) as { signature: string };
    return [minted.signature];
  },
};

const word = (n: bigint) => n.toString(16).padStart(64, '0');

async function post(url: string, body: unknown): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch (err) {
    throw new CliError(`cannot reach the devnet at ${url}: ${(err as Error).message} (is \`npm start\` running?)`, EXIT.UNAVAILABLE);
  }
  const text = await res.text();
  if (!res.ok) throw new CliError(`the devnet refused: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as unknown;
}

async function rpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const answer = (await post(url, { jsonrpc: '2.0', id: 1, method, params })) as { result?: unknown; error?: { message: string } };
  if (answer.error) throw new CliError(`the devnet refused ${method}: ${answer.error.message}`);
  return answer.result;
}
