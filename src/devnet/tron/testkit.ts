// Shared by the stand-in's tests: a stand-in with on-demand blocks, and tronweb 6.5.1 used
// exactly as a production adapter uses it (build, sign, sendRawTransaction, read back).
import { randomBytes } from 'node:crypto';
import { TronWeb } from 'tronweb';
import { startTronStandIn, type TronStandIn, type TronStandInOptions } from './index.js';

export const TOKENS = [
  { symbol: 'USDT', decimals: 6 },
  { symbol: 'USDC', decimals: 6 },
];

export async function startForTest(opts: Partial<TronStandInOptions> = {}): Promise<TronStandIn> {
  // Warnings only: a request the stand-in failed on is worth seeing next to the failing test.
  const logger = { info() {}, warn: (o: object, m?: string) => console.warn(m, o) };
  return startTronStandIn({ blockTimeMs: 0, tokens: TOKENS, logger, ...opts });
}

export interface Wallet {
  address: string;
  hex: string;
  privateKey: string;
}

export function newWallet(): Wallet {
  const privateKey = randomBytes(32).toString('hex');
  const address = TronWeb.address.fromPrivateKey(privateKey) as string;
  return { address, hex: TronWeb.address.toHex(address), privateKey };
}

export const tronWeb = (s: TronStandIn) => new TronWeb({ fullHost: s.url });

/** POST to a java-tron path, as tronweb's providers do. */
export async function post<T = any>(s: TronStandIn, path: string, body: unknown = {}): Promise<T> {
  const res = await fetch(`${s.url}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return (await res.json()) as T;
}

export async function get<T = any>(s: TronStandIn, path: string): Promise<T> {
  return (await (await fetch(`${s.url}/${path}`)).json()) as T;
}

/** Builds, signs and broadcasts a TRX transfer; returns tronweb's broadcast result. */
export async function sendTrx(s: TronStandIn, from: Wallet, to: string, sun: number) {
  const tw = tronWeb(s);
  const tx = await tw.transactionBuilder.sendTrx(to, sun, from.address);
  return tw.trx.sendRawTransaction(await tw.trx.sign(tx, from.privateKey));
}

/** A TRC-20 transfer through triggersmartcontract, as an adapter sends one. */
export async function sendToken(s: TronStandIn, from: Wallet, token: string, to: string, amount: bigint, feeLimit = 100_000_000) {
  const tw = tronWeb(s);
  const built = await tw.transactionBuilder.triggerSmartContract(
    token,
    'transfer(address,uint256)',
    { feeLimit },
    [
      { type: 'address', value: to },
      { type: 'uint256', value: amount.toString() },
    ],
    from.address,
  );
  return tw.trx.sendRawTransaction(await tw.trx.sign(built.transaction, from.privateKey));
}

export async function tokenBalance(s: TronStandIn, token: string, who: string): Promise<bigint> {
  const tw = tronWeb(s);
  tw.setAddress(who);
  const c = await tw.contract().at(token);
  return BigInt((await c.balanceOf(who).call()).toString());
}

export const info = (s: TronStandIn, txid: string) => post(s, 'wallet/gettransactioninfobyid', { value: txid });
export const account = (s: TronStandIn, hex: string) => post(s, 'wallet/getaccount', { address: hex });
export const balance = async (s: TronStandIn, hex: string): Promise<number> => (await account(s, hex)).balance ?? 0;

/** A funded, activated account (the faucet pays its activation). */
export async function fundedWallet(s: TronStandIn, sun: number, tokens?: Record<string, bigint>): Promise<Wallet> {
  const w = newWallet();
  await s.control.fund(w.address, { trx: sun, ...(tokens ? { tokens } : {}) });
  await s.control.produceBlocks(1);
  return w;
}

export const hexText = (hex: string) => Buffer.from(hex, 'hex').toString('utf8');
