// What every method shares: reading params the way agave does (positional, config object last),
// commitment and minContextSlot, the response context, and account encodings.
import { invalidParams, RPC, RpcError } from './errors.js';
import type { AccountState, Commitment, Ledger, TokenBalanceRecord } from './ledger.js';
import { jsonParsedToken, parseMint, uiTokenAmount } from './token.js';
import { fromBase58, toBase58, toBase64 } from './wire.js';

/** The agave version whose RPC this stand-in follows (reported by getVersion and contexts). */
export const API_VERSION = '3.0.0';

export interface MethodContext {
  ledger: Ledger;
  now(): number;
  /** Asks for a snapshot soon (state changed outside block production). */
  touched(): void;
}

export type Params = unknown[];
export type Method = (params: Params, ctx: MethodContext) => unknown;

export type Config = Record<string, unknown>;

/** The config object at position i, or {} when absent or null. */
export function configAt(params: Params, i: number): Config {
  const c = params[i];
  if (c === undefined || c === null) return {};
  if (typeof c !== 'object' || Array.isArray(c)) throw invalidParams('Invalid params: invalid type: expected a config object');
  return c as Config;
}

const LEGACY_COMMITMENT: Record<string, Commitment> = {
  processed: 'processed',
  confirmed: 'confirmed',
  finalized: 'finalized',
  recent: 'processed',
  single: 'confirmed',
  singleGossip: 'confirmed',
  root: 'finalized',
  max: 'finalized',
};

/** A node's default commitment is finalized. */
export function commitmentOf(cfg: Config, fallback: Commitment = 'finalized'): Commitment {
  const c = cfg.commitment;
  if (c === undefined || c === null) return fallback;
  const mapped = typeof c === 'string' ? LEGACY_COMMITMENT[c] : undefined;
  if (!mapped)
    throw invalidParams(`Invalid params: unknown variant \`${String(c)}\`, expected one of \`processed\`, \`confirmed\`, \`finalized\``);
  return mapped;
}

/** The slot a read at this commitment answers as of, checked against minContextSlot. */
export function contextSlot(ctx: MethodContext, cfg: Config, commitment: Commitment): bigint {
  const slot = ctx.ledger.blockAt(commitment).slot;
  if (cfg.minContextSlot !== undefined && cfg.minContextSlot !== null) {
    const min = u64(cfg.minContextSlot, 'minContextSlot');
    if (slot < min)
      throw new RpcError(RPC.MIN_CONTEXT_SLOT_NOT_REACHED, 'Minimum context slot has not been reached', { contextSlot: slot });
  }
  return slot;
}

export const withContext = (slot: bigint, value: unknown) => ({ context: { apiVersion: API_VERSION, slot }, value });

export function u64(v: unknown, what: string): bigint {
  if (typeof v === 'bigint' && v >= 0n) return v;
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  throw invalidParams(`Invalid params: invalid type: expected u64 for ${what}`);
}

export function addressParam(v: unknown): string {
  if (typeof v !== 'string') throw invalidParams('Invalid params: invalid type: expected a base-58 encoded public key');
  let bytes: Uint8Array;
  try {
    bytes = fromBase58(v);
  } catch {
    throw invalidParams('Invalid param: Invalid');
  }
  if (bytes.length !== 32) throw invalidParams('Invalid param: WrongSize');
  return v;
}

export function decimalsOf(ledger: Ledger, commitment: Commitment) {
  return (mint: string): number | null => {
    const m = ledger.account(mint, commitment);
    return m ? (parseMint(m.owner, m.data)?.decimals ?? null) : null;
  };
}

export type AccountEncoding = 'base58' | 'base64' | 'jsonParsed';

export function encodingOf(cfg: Config, fallback: AccountEncoding = 'base64'): AccountEncoding {
  const e = cfg.encoding ?? fallback;
  if (e === 'base58' || e === 'base64' || e === 'jsonParsed') return e;
  if (e === 'base64+zstd') throw invalidParams('Invalid params: base64+zstd encoding is not supported by the stand-in');
  throw invalidParams(`Invalid params: unknown variant \`${String(e)}\``);
}

/** An account as `getAccountInfo` renders it: the UiAccount of the requested encoding. */
export function encodeAccount(
  ctx: MethodContext,
  state: AccountState,
  encoding: AccountEncoding,
  cfg: Config,
  commitment: Commitment,
): Record<string, unknown> {
  let data: unknown;
  let bytes = state.data;
  const slice = cfg.dataSlice as { offset?: unknown; length?: unknown } | undefined;
  if (slice && encoding !== 'jsonParsed') {
    const offset = Number(u64(slice.offset, 'dataSlice.offset'));
    const length = Number(u64(slice.length, 'dataSlice.length'));
    bytes = bytes.subarray(offset, offset + length);
  }
  if (encoding === 'jsonParsed') {
    data = jsonParsedToken(state.owner, state.data, decimalsOf(ctx.ledger, commitment), (len) =>
      ctx.ledger.svm.minimumBalanceForRentExemption(BigInt(len)),
    ) ?? [toBase64(state.data), 'base64'];
  } else if (encoding === 'base58') {
    if (bytes.length > 128) throw invalidParams('Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.');
    data = [toBase58(bytes), 'base58'];
  } else {
    data = [toBase64(bytes), 'base64'];
  }
  return {
    data,
    executable: state.executable,
    lamports: state.lamports,
    owner: state.owner,
    rentEpoch: state.rentEpoch,
    space: BigInt(state.data.length),
  };
}

/** Token balances in transaction metadata (uiAmount null for zero, as a node writes them). */
export const renderTokenBalances = (list: TokenBalanceRecord[]) =>
  list.map((t) => ({
    accountIndex: t.accountIndex,
    mint: t.mint,
    owner: t.owner,
    programId: t.programId,
    uiTokenAmount: uiTokenAmount(t.amount, t.decimals, true),
  }));
