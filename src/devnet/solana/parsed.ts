// The `jsonParsed` form of the instructions a wallet service meets most (System transfer and
// createAccount; SPL Token transfer, transferChecked, mintTo, closeAccount; associated token
// account create), named as agave's transaction-status parsers name them. Anything else stays
// in the partially decoded form (program, account addresses, base58 data), as a node leaves
// programs it has no parser for.
import { ASSOCIATED_TOKEN_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM, uiTokenAmount } from './token.js';
import { SYSTEM_PROGRAM, toBase58 } from './wire.js';

type Parsed = { program: string; programId: string; parsed: { type: string; info: Record<string, unknown> }; stackHeight: number | null };

const u64 = (d: Uint8Array, at: number) =>
  d.length >= at + 8 ? new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(at, true) : undefined;
const u32 = (d: Uint8Array, at: number) =>
  d.length >= at + 4 ? new DataView(d.buffer, d.byteOffset, d.byteLength).getUint32(at, true) : undefined;

function parseSystem(data: Uint8Array, a: (i: number) => string | undefined): Parsed['parsed'] | null {
  const kind = u32(data, 0);
  if (kind === 2) {
    const lamports = u64(data, 4);
    if (lamports === undefined || !a(0) || !a(1)) return null;
    return { type: 'transfer', info: { destination: a(1), lamports, source: a(0) } };
  }
  if (kind === 0 && data.length >= 52) {
    return {
      type: 'createAccount',
      info: { lamports: u64(data, 4), newAccount: a(1), owner: toBase58(data.subarray(20, 52)), source: a(0), space: u64(data, 12) },
    };
  }
  return null;
}

function parseToken(data: Uint8Array, a: (i: number) => string | undefined): Parsed['parsed'] | null {
  const amount = u64(data, 1);
  switch (data[0]) {
    case 3:
      return amount === undefined
        ? null
        : { type: 'transfer', info: { amount: amount.toString(), authority: a(2), destination: a(1), source: a(0) } };
    case 7:
      return amount === undefined
        ? null
        : { type: 'mintTo', info: { account: a(1), amount: amount.toString(), mint: a(0), mintAuthority: a(2) } };
    case 9:
      return { type: 'closeAccount', info: { account: a(0), destination: a(1), owner: a(2) } };
    case 12: {
      const decimals = data[9];
      if (amount === undefined || decimals === undefined) return null;
      return {
        type: 'transferChecked',
        info: { authority: a(3), destination: a(2), mint: a(1), source: a(0), tokenAmount: uiTokenAmount(amount, decimals) },
      };
    }
    default:
      return null;
  }
}

function parseAta(data: Uint8Array, a: (i: number) => string | undefined): Parsed['parsed'] | null {
  const type = data.length === 0 || data[0] === 0 ? 'create' : data[0] === 1 ? 'createIdempotent' : undefined;
  if (!type) return null;
  return { type, info: { account: a(1), mint: a(3), source: a(0), systemProgram: a(4), tokenProgram: a(5), wallet: a(2) } };
}

/** The parsed form, or null when the stand-in has no parser for this instruction. */
export function parseInstruction(programId: string, accounts: string[], data: Uint8Array, stackHeight: number | null): Parsed | null {
  const a = (i: number) => accounts[i];
  let program: string;
  let parsed: Parsed['parsed'] | null;
  if (programId === SYSTEM_PROGRAM) [program, parsed] = ['system', parseSystem(data, a)];
  else if (programId === TOKEN_PROGRAM) [program, parsed] = ['spl-token', parseToken(data, a)];
  else if (programId === TOKEN_2022_PROGRAM) [program, parsed] = ['spl-token-2022', parseToken(data, a)];
  else if (programId === ASSOCIATED_TOKEN_PROGRAM) [program, parsed] = ['spl-associated-token-account', parseAta(data, a)];
  else return null;
  return parsed ? { parsed, program, programId, stackHeight } : null;
}
