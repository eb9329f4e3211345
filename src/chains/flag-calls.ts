/**
 * Boolean reads of one address each (`isBlackListed(address)`, `isSanctioned(address)`,
 * ...), many at once through Multicall3's `aggregate3` with `allowFailure` set: a call that
 * reverts (a token that does not answer the function) fails alone, the others still answer.
 * The ABI is the EVM's, which the TVM speaks too: the EVM and Tron families both lay their
 * screening reads out here (addresses as 20-byte hex).
 */

/** aggregate3((address,bool,bytes)[]) */
export const AGGREGATE3 = '0x82ad56cb';

/** The selectors of the reads screening makes (chains/screening.ts); flag-calls.test.ts checks them. */
export const FLAG_SELECTORS = {
  /** Tether's 2017 TetherToken (Ethereum, Tron): the public mapping `isBlackListed`. */
  tether: '0xe47d6060',
  /** Tether's newer TetherToken (WithBlockedList) and USDT0: `isBlocked(address)`. */
  'tether-v2': '0xfbac3951',
  /** Circle's FiatToken: `isBlacklisted(address)`. */
  circle: '0xfe575a87',
  /** The SanctionsList oracle: `isSanctioned(address)`. */
  sanctions: '0xdf592f7d',
} as const;

/** The same reads as function signatures (a node that takes a signature and arguments apart: Tron without Multicall3). */
export const FLAG_SIGNATURES: Readonly<Record<keyof typeof FLAG_SELECTORS, string>> = {
  tether: 'isBlackListed(address)',
  'tether-v2': 'isBlocked(address)',
  circle: 'isBlacklisted(address)',
  sanctions: 'isSanctioned(address)',
};

/** Calls per aggregate3: about 2,600 gas each, so a chunk stays far below any node's eth_call gas cap. */
export const FLAG_CHUNK = 400;

/** Which function of which contract answers a read. */
export function flagTarget(
  read: { kind: 'issuer'; token: string; blacklist: keyof typeof FLAG_SELECTORS } | { kind: 'sanctions'; oracle: string },
) {
  return read.kind === 'issuer'
    ? { target: read.token, fn: read.blacklist as keyof typeof FLAG_SELECTORS }
    : { target: read.oracle, fn: 'sanctions' as const };
}

/**
 * Every (read, address) pair as one call, answered through `run` (chunks of FLAG_CHUNK, all
 * at once), folded back per read: a read with any unanswered call is an Error naming it.
 */
export async function readFlags(
  reads: readonly ({ kind: 'issuer'; token: string; blacklist: keyof typeof FLAG_SELECTORS } | { kind: 'sanctions'; oracle: string })[],
  addresses: readonly string[],
  hex: (address: string) => string,
  run: (calls: FlagCall[]) => Promise<(boolean | null)[]>,
): Promise<(boolean[] | Error)[]> {
  if (reads.length === 0) return [];
  const calls: FlagCall[] = [];
  const args = addresses.map(hex);
  for (const read of reads) {
    const { target, fn } = flagTarget(read);
    const to = hex(target);
    for (const arg of args) calls.push({ target: to, selector: FLAG_SELECTORS[fn], arg });
  }
  const chunks: FlagCall[][] = [];
  for (let i = 0; i < calls.length; i += FLAG_CHUNK) chunks.push(calls.slice(i, i + FLAG_CHUNK));
  const answers = (await Promise.all(chunks.map(run))).flat();
  return reads.map((read, r) => {
    const mine = answers.slice(r * addresses.length, (r + 1) * addresses.length);
    if (mine.some((a) => a === null)) {
      const { target, fn } = flagTarget(read);
      return new Error(`${target} did not answer ${FLAG_SIGNATURES[fn]}`);
    }
    return mine as boolean[];
  });
}

export interface FlagCall {
  /** 20-byte hex contract address (0x…). */
  target: string;
  /** 4-byte selector, 0x…. */
  selector: string;
  /** 20-byte hex address argument (0x…). */
  arg: string;
}

const HEX20 = /^0x[0-9a-fA-F]{40}$/;
const word = (n: number) => n.toString(16).padStart(64, '0');
const addressWord = (a: string) => {
  if (!HEX20.test(a)) throw new Error(`flag call: not a 20-byte address: ${a}`);
  return a.slice(2).toLowerCase().padStart(64, '0');
};
/** One call's tuple: target, allowFailure = true, offset of callData (3 words), its length (36), selector + argument padded. */
const TUPLE_BYTES = 6 * 32;
const TUPLE_HEAD = `${word(1)}${word(0x60)}${word(36)}`;
const CALLDATA_PAD = '0'.repeat(56);

/** Calldata (0x…, selector included) of one aggregate3 of `calls`, each allowed to fail. */
export function encodeFlagCalls(calls: readonly FlagCall[]): string {
  const n = calls.length;
  const parts = [AGGREGATE3, word(0x20), word(n)];
  for (let i = 0; i < n; i++) parts.push(word(32 * n + TUPLE_BYTES * i));
  for (const c of calls) {
    if (!/^0x[0-9a-fA-F]{8}$/.test(c.selector)) throw new Error(`flag call: bad selector ${c.selector}`);
    parts.push(addressWord(c.target), TUPLE_HEAD, c.selector.slice(2).toLowerCase(), addressWord(c.arg), CALLDATA_PAD);
  }
  return parts.join('');
}

/**
 * aggregate3's `(bool success, bytes returnData)[]` as one answer per call: true or false
 * for a call that succeeded with one word (non-zero is true), null for one that reverted or
 * answered anything else (no such function: an empty return). Malformed data throws.
 */
export function decodeFlagResults(data: string, expected: number): (boolean | null)[] {
  const hex = data.startsWith('0x') ? data.slice(2) : data;
  if (!/^[0-9a-fA-F]*$/.test(hex) || hex.length % 64 !== 0) throw new Error('multicall returned malformed data');
  const bytes = hex.length / 2;
  const at = (pos: number): bigint => {
    if (!Number.isSafeInteger(pos) || pos < 0 || pos + 32 > bytes) throw new Error('multicall returned malformed data');
    return BigInt(`0x${hex.slice(pos * 2, pos * 2 + 64)}`);
  };
  const array = Number(at(0));
  const n = Number(at(array));
  if (n !== expected) throw new Error(`multicall returned ${n} results for ${expected} calls`);
  const out: (boolean | null)[] = [];
  const base = array + 32;
  for (let i = 0; i < n; i++) {
    const tuple = base + Number(at(base + 32 * i));
    const success = at(tuple) !== 0n;
    const bytesAt = tuple + Number(at(tuple + 32));
    const length = Number(at(bytesAt));
    if (!success || length !== 32) {
      out.push(null);
      continue;
    }
    out.push(at(bytesAt + 32) !== 0n);
  }
  return out;
}
