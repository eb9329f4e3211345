/**
 * Balances on Solana: an owner's SOL is its account's lamports; its balance of an SPL token is
 * the amount in its associated token account (derived from owner, mint and the mint's token
 * program, never stored). A deposit address is the owner: tokens sent to any other token
 * account of the owner are not counted, as in every wallet that shows one account per mint.
 *
 * Every query's account is read in one getMultipleAccounts (up to 100 accounts a call: a
 * node's limit), whatever mix of SOL and tokens is asked. The token program of each mint
 * (SPL Token or Token-2022) and its decimals are read once per process and remembered: a
 * mint never changes owner, and its decimals are fixed at creation.
 */
import type { Address } from '@solana/kit';
import type { BalanceQuery } from '../types.js';
import { u64, type SolanaNode } from './rpc.js';

/** A node's cap on getMultipleAccounts. */
const MAX_ACCOUNTS = 100;
/** A token account's `amount`: a u64 at bytes 64..72 (after mint and owner), in SPL Token and Token-2022 alike. */
const AMOUNT_OFFSET = 64;
/** A mint's `decimals`: a u8 after the optional mint authority (4 + 32 bytes) and the supply (8). */
const DECIMALS_OFFSET = 44;

/** What a transfer of a mint's tokens needs to know of it. */
export interface MintInfo {
  /** SPL Token or Token-2022. */
  program: string;
  decimals: number;
}

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** Both SPL token programs: an account they own is a token account, a mint or a multisig. */
export const TOKEN_PROGRAMS: readonly string[] = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM];

/**
 * Whether an account read is a token account already (owned by a token program): not when
 * nothing is there, nor when only lamports someone sent to the address are (a system account,
 * which the associated token account program takes over when it creates the account there).
 */
export const isTokenAccount = (a: { owner: string } | null): boolean => a !== null && TOKEN_PROGRAMS.includes(a.owner);

export class SolanaBalances {
  /** mint -> its token program and decimals, once known. */
  readonly #mints = new Map<string, MintInfo>();

  constructor(private readonly node: SolanaNode) {}

  /** Each mint's token program and decimals; throws when an account is no token mint. */
  async mintsOf(mints: string[]): Promise<Map<string, MintInfo>> {
    const unknown = [...new Set(mints)].filter((m) => !this.#mints.has(m));
    if (unknown.length) {
      const rpc = await this.node.rpc();
      for (let i = 0; i < unknown.length; i += MAX_ACCOUNTS) {
        const chunk = unknown.slice(i, i + MAX_ACCOUNTS);
        const { value } = await rpc
          .getMultipleAccounts(chunk as Address[], {
            commitment: 'confirmed',
            encoding: 'base64',
            dataSlice: { offset: DECIMALS_OFFSET, length: 1 },
          })
          .send();
        value.forEach((account, j) => {
          const owner = account?.owner as string | undefined;
          const decimals = account ? Buffer.from(account.data[0], 'base64') : Buffer.alloc(0);
          if (!owner || !TOKEN_PROGRAMS.includes(owner) || decimals.length !== 1) throw new Error(`${chunk[j]} is not an SPL token mint`);
          this.#mints.set(chunk[j]!, { program: owner, decimals: decimals[0]! });
        });
      }
    }
    return new Map(mints.map((m) => [m, this.#mints.get(m)!]));
  }

  /** The associated token account of `owner` for `mint`. */
  async tokenAccount(owner: string, mint: string): Promise<string> {
    const { program } = (await this.mintsOf([mint])).get(mint)!;
    return associatedTokenAccount(owner, mint, program);
  }

  /** Same order as the queries; an account that does not exist holds 0. */
  async getBalances(queries: BalanceQuery[]): Promise<bigint[]> {
    if (queries.length === 0) return [];
    const mints = await this.mintsOf(queries.flatMap((q) => (q.token === null ? [] : [q.token])));
    const accounts = await Promise.all(
      queries.map((q) => (q.token === null ? q.owner : associatedTokenAccount(q.owner, q.token, mints.get(q.token)!.program))),
    );
    const rpc = await this.node.rpc();
    const out: bigint[] = [];
    for (let i = 0; i < accounts.length; i += MAX_ACCOUNTS) {
      const chunk = accounts.slice(i, i + MAX_ACCOUNTS);
      const { value } = await rpc
        .getMultipleAccounts(chunk as Address[], {
          commitment: 'confirmed',
          encoding: 'base64',
          dataSlice: { offset: AMOUNT_OFFSET, length: 8 },
        })
        .send();
      value.forEach((account, j) => {
        const q = queries[i + j]!;
        if (!account) out.push(0n);
        else if (q.token === null) out.push(u64(account.lamports));
        // Only lamports someone sent to the address of a token account not created yet: no tokens.
        else if (!isTokenAccount(account)) out.push(0n);
        else out.push(readU64(Buffer.from(account.data[0], 'base64')));
      });
    }
    return out;
  }
}

/** The owner's associated token account (a program-derived address of owner, token program and mint). */
export async function associatedTokenAccount(owner: string, mint: string, tokenProgram: string): Promise<string> {
  const { findAssociatedTokenPda } = await import('@solana-program/token');
  const [address] = await findAssociatedTokenPda({
    owner: owner as Address,
    mint: mint as Address,
    tokenProgram: tokenProgram as Address,
  });
  return address;
}

function readU64(bytes: Buffer): bigint {
  if (bytes.length !== 8) throw new Error('not a token account: no amount');
  return bytes.readBigUInt64LE(0);
}

/** Where a Token-2022 mint's extensions start: the mint (82 bytes) padded to 165, then its account type. */
const EXTENSIONS_OFFSET = 166;
/** Token-2022's TransferFeeConfig extension type, and where its newer fee starts within it. */
const TRANSFER_FEE_CONFIG = 1;
const NEWER_FEE_OFFSET = 90;

/**
 * The transfer fee a Token-2022 mint's account data takes at `epoch` (TransferFeeConfig: the
 * newer fee from its epoch on, else the older; ceil(amount x basis points / 10,000), at most
 * the maximum fee), as a function of the amount; null when the mint has no such extension.
 */
export function transferFeeOf(data: Uint8Array, epoch: bigint): ((amount: bigint) => bigint) | null {
  const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  for (let at = EXTENSIONS_OFFSET; at + 4 <= bytes.length;) {
    const type = bytes.readUInt16LE(at);
    const length = bytes.readUInt16LE(at + 2);
    if (type === TRANSFER_FEE_CONFIG && at + 4 + length <= bytes.length && length >= NEWER_FEE_OFFSET + 18) {
      const config = bytes.subarray(at + 4, at + 4 + length);
      // A fee: epoch (u64), maximum fee (u64), basis points (u16); the older one at 72.
      const feeAt = (offset: number) => ({
        epoch: config.readBigUInt64LE(offset),
        maximum: config.readBigUInt64LE(offset + 8),
        basisPoints: BigInt(config.readUInt16LE(offset + 16)),
      });
      const newer = feeAt(NEWER_FEE_OFFSET);
      const fee = epoch >= newer.epoch ? newer : feeAt(NEWER_FEE_OFFSET - 18);
      return (amount) => {
        if (fee.basisPoints === 0n || amount === 0n) return 0n;
        const raw = (amount * fee.basisPoints + 9_999n) / 10_000n;
        return raw < fee.maximum ? raw : fee.maximum;
      };
    }
    if (type === 0) break;
    at += 4 + length;
  }
  return null;
}
