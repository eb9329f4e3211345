// SPL Token account and mint layouts, read the way a node's account decoder reads them, for
// token balances in transaction metadata and the `jsonParsed` account encoding.
import { addressFromBytes } from './wire.js';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
export const ASSOCIATED_TOKEN_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL';
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112';
const ACCOUNT_LEN = 165;
const MINT_LEN = 82;
// Token-2022 accounts longer than the base layout carry an account-type byte at offset 165.
const ACCOUNT_TYPE_MINT = 1;
const ACCOUNT_TYPE_ACCOUNT = 2;

export const isTokenProgram = (owner: string): boolean => owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM;

export interface TokenAccount {
  mint: string;
  owner: string;
  amount: bigint;
  delegate: string | null;
  state: 'uninitialized' | 'initialized' | 'frozen';
  isNative: bigint | null;
  delegatedAmount: bigint;
  closeAuthority: string | null;
}

export interface Mint {
  mintAuthority: string | null;
  supply: bigint;
  decimals: number;
  isInitialized: boolean;
  freezeAuthority: string | null;
}

const u64 = (d: Uint8Array, at: number) => new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(at, true);
const u32 = (d: Uint8Array, at: number) => new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(at, true);
const optionKey = (d: Uint8Array, at: number) => (u32(d, at) === 1 ? addressFromBytes(d.subarray(at + 4, at + 36)) : null);

/** A token account of either token program, or null for anything else (mints included). */
export function parseTokenAccount(owner: string, data: Uint8Array): TokenAccount | null {
  if (!isTokenProgram(owner) || data.length < ACCOUNT_LEN) return null;
  if (data.length > ACCOUNT_LEN && (owner !== TOKEN_2022_PROGRAM || data[ACCOUNT_LEN] !== ACCOUNT_TYPE_ACCOUNT)) return null;
  const stateByte = data[108];
  if (stateByte === 0 || stateByte === undefined || stateByte > 2) return null;
  return {
    mint: addressFromBytes(data.subarray(0, 32)),
    owner: addressFromBytes(data.subarray(32, 64)),
    amount: u64(data, 64),
    delegate: optionKey(data, 72),
    state: stateByte === 2 ? 'frozen' : 'initialized',
    isNative: u32(data, 109) === 1 ? u64(data, 113) : null,
    delegatedAmount: u64(data, 121),
    closeAuthority: optionKey(data, 129),
  };
}

export function parseMint(owner: string, data: Uint8Array): Mint | null {
  if (!isTokenProgram(owner) || data.length < MINT_LEN) return null;
  if (data.length !== MINT_LEN && (owner !== TOKEN_2022_PROGRAM || data[ACCOUNT_LEN] !== ACCOUNT_TYPE_MINT)) return null;
  if (data[45] !== 1) return null;
  return {
    mintAuthority: optionKey(data, 0),
    supply: u64(data, 36),
    decimals: data[44] ?? 0,
    isInitialized: true,
    freezeAuthority: optionKey(data, 46),
  };
}

/** The decimal string of `amount` base units: trailing zeros trimmed, "0" for zero. */
export function uiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const s = amount.toString().padStart(decimals + 1, '0');
  const whole = s.slice(0, s.length - decimals);
  const frac = s.slice(s.length - decimals).replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole;
}

export interface UiTokenAmount {
  amount: string;
  decimals: number;
  uiAmount: number | null;
  uiAmountString: string;
}

/**
 * `uiAmount` is a deprecated float kept by the node for old clients; in transaction token
 * balances it is null for a zero amount, in account reads it is 0.
 */
export function uiTokenAmount(amount: bigint, decimals: number, zeroAsNull = false): UiTokenAmount {
  const str = uiAmountString(amount, decimals);
  return {
    amount: amount.toString(),
    decimals,
    uiAmount: zeroAsNull && amount === 0n ? null : Number(str),
    uiAmountString: str,
  };
}

/** The `jsonParsed` form of a token account or mint, or null when the data is neither. */
export function jsonParsedToken(
  owner: string,
  data: Uint8Array,
  decimalsOf: (mint: string) => number | null,
  rentExempt: (len: number) => bigint,
): { program: string; parsed: { type: string; info: Record<string, unknown> }; space: bigint } | null {
  const program = owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token';
  const space = BigInt(data.length);
  const account = parseTokenAccount(owner, data);
  if (account) {
    const decimals = decimalsOf(account.mint);
    if (decimals === null) return null; // a node falls back to base64 when the mint is unknown
    const info: Record<string, unknown> = {
      isNative: account.isNative !== null,
      mint: account.mint,
      owner: account.owner,
      state: account.state,
      tokenAmount: uiTokenAmount(account.amount, decimals),
    };
    if (account.delegate) {
      info.delegate = account.delegate;
      info.delegatedAmount = uiTokenAmount(account.delegatedAmount, decimals);
    }
    if (account.isNative !== null) info.rentExemptReserve = uiTokenAmount(rentExempt(data.length), decimals);
    if (account.closeAuthority) info.closeAuthority = account.closeAuthority;
    return { program, parsed: { type: 'account', info }, space };
  }
  const mint = parseMint(owner, data);
  if (mint) {
    return {
      program,
      parsed: {
        type: 'mint',
        info: {
          decimals: mint.decimals,
          freezeAuthority: mint.freezeAuthority,
          isInitialized: mint.isInitialized,
          mintAuthority: mint.mintAuthority,
          supply: mint.supply.toString(),
        },
      },
      space,
    };
  }
  return null;
}
