// Account reads, each as of the requested commitment: getBalance, getAccountInfo,
// getMultipleAccounts, getTokenAccountsByOwner, getTokenAccountBalance, and rent.
import { invalidParams } from './errors.js';
import type { Commitment, Ledger } from './ledger.js';
import {
  addressParam,
  commitmentOf,
  configAt,
  contextSlot,
  encodeAccount,
  encodingOf,
  u64,
  withContext,
  type Method,
  type MethodContext,
} from './rpc-common.js';
import { isTokenProgram, parseMint, parseTokenAccount, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, uiTokenAmount } from './token.js';
import { addressBytes, addressFromBytes } from './wire.js';

const MAX_MULTIPLE_ACCOUNTS = 100;

const getBalance: Method = (params, ctx) => {
  const address = addressParam(params[0]);
  const cfg = configAt(params, 1);
  const commitment = commitmentOf(cfg);
  const slot = contextSlot(ctx, cfg, commitment);
  return withContext(slot, ctx.ledger.account(address, commitment)?.lamports ?? 0n);
};

const getAccountInfo: Method = (params, ctx) => {
  const address = addressParam(params[0]);
  const cfg = configAt(params, 1);
  const commitment = commitmentOf(cfg);
  const encoding = encodingOf(cfg, 'base58');
  const slot = contextSlot(ctx, cfg, commitment);
  const state = ctx.ledger.account(address, commitment);
  return withContext(slot, state ? encodeAccount(ctx, state, encoding, cfg, commitment) : null);
};

const getMultipleAccounts: Method = (params, ctx) => {
  const list = params[0];
  if (!Array.isArray(list)) throw invalidParams('Invalid params: invalid type: expected an array of public keys');
  if (list.length > MAX_MULTIPLE_ACCOUNTS) throw invalidParams(`Too many inputs provided; max ${MAX_MULTIPLE_ACCOUNTS}`);
  const addresses = list.map(addressParam);
  const cfg = configAt(params, 1);
  const commitment = commitmentOf(cfg);
  const encoding = encodingOf(cfg, 'base64');
  const slot = contextSlot(ctx, cfg, commitment);
  return withContext(
    slot,
    addresses.map((a) => {
      const state = ctx.ledger.account(a, commitment);
      return state ? encodeAccount(ctx, state, encoding, cfg, commitment) : null;
    }),
  );
};

// Addresses owned by a program now; recomputed only after state changes.
const ownedCache = new WeakMap<Ledger, { version: number; byProgram: Map<string, string[]> }>();
function ownedBy(ledger: Ledger, program: string): string[] {
  let c = ownedCache.get(ledger);
  if (!c || c.version !== ledger.version) {
    c = { version: ledger.version, byProgram: new Map() };
    ownedCache.set(ledger, c);
  }
  let list = c.byProgram.get(program);
  if (!list) {
    list = ledger.svm.getProgramAccounts(addressBytes(program)).map((aa) => addressFromBytes(aa.address));
    c.byProgram.set(program, list);
  }
  return list;
}

/** Token accounts of an owner as of a commitment, optionally of one mint. */
export function tokenAccountsOf(ledger: Ledger, owner: string, programs: string[], mint: string | undefined, commitment: Commitment) {
  const candidates = new Set<string>();
  for (const p of programs) for (const a of ownedBy(ledger, p)) candidates.add(a);
  for (const a of ledger.changedSince(commitment)) candidates.add(a);
  const out: { pubkey: string; state: NonNullable<ReturnType<Ledger['account']>> }[] = [];
  for (const pubkey of [...candidates].sort()) {
    const state = ledger.account(pubkey, commitment);
    if (!state || !programs.includes(state.owner)) continue;
    const t = parseTokenAccount(state.owner, state.data);
    if (t && t.owner === owner && (mint === undefined || t.mint === mint)) out.push({ pubkey, state });
  }
  return out;
}

const getTokenAccountsByOwner: Method = (params, ctx) => {
  const owner = addressParam(params[0]);
  const filter = params[1] as { mint?: unknown; programId?: unknown } | undefined;
  const cfg = configAt(params, 2);
  const commitment = commitmentOf(cfg);
  const encoding = encodingOf(cfg, 'base64');
  const slot = contextSlot(ctx, cfg, commitment);
  let programs: string[];
  let mint: string | undefined;
  if (filter && typeof filter === 'object' && filter.mint !== undefined) {
    mint = addressParam(filter.mint);
    const m = ctx.ledger.account(mint, commitment);
    if (!m || !parseMint(m.owner, m.data)) throw invalidParams('Invalid param: could not find mint');
    programs = [m.owner];
  } else if (filter && typeof filter === 'object' && filter.programId !== undefined) {
    const p = addressParam(filter.programId);
    if (!isTokenProgram(p)) throw invalidParams('Invalid param: unrecognized Token program id');
    programs = [p];
  } else {
    throw invalidParams('Invalid params: expected a filter object with `mint` or `programId`');
  }
  const list = tokenAccountsOf(ctx.ledger, owner, programs, mint, commitment);
  return withContext(
    slot,
    list.map(({ pubkey, state }) => ({ pubkey, account: encodeAccount(ctx, state, encoding, cfg, commitment) })),
  );
};

const getTokenAccountBalance: Method = (params, ctx) => {
  const address = addressParam(params[0]);
  const cfg = configAt(params, 1);
  const commitment = commitmentOf(cfg);
  const slot = contextSlot(ctx, cfg, commitment);
  const state = ctx.ledger.account(address, commitment);
  const t = state ? parseTokenAccount(state.owner, state.data) : null;
  if (!t) throw invalidParams('Invalid param: not a Token account');
  const m = ctx.ledger.account(t.mint, commitment);
  const mint = m ? parseMint(m.owner, m.data) : null;
  if (!mint) throw invalidParams('Invalid param: could not find mint');
  return withContext(slot, uiTokenAmount(t.amount, mint.decimals));
};

const getMinimumBalanceForRentExemption: Method = (params, ctx: MethodContext) => {
  const size = u64(params[0] ?? 0, 'data length');
  commitmentOf(configAt(params, 1));
  return ctx.ledger.svm.minimumBalanceForRentExemption(size);
};

export const accountMethods: Record<string, Method> = {
  getBalance,
  getAccountInfo,
  getMultipleAccounts,
  getTokenAccountsByOwner,
  getTokenAccountBalance,
  getMinimumBalanceForRentExemption,
};

export const TOKEN_PROGRAMS = [TOKEN_PROGRAM, TOKEN_2022_PROGRAM];
