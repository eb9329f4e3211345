// JSON as a Solana node speaks it: u64 values (lamports, slots, rentEpoch = u64::MAX) are bare
// JSON numbers, often above 2^53. JSON.parse/stringify would round them, so integers that
// do not fit a double travel as bigint on both sides.

const BIG = '\u0000big:';

/** Serializes with bigints written as bare JSON integers, exactly. */
export function stringifyJson(value: unknown): string {
  const text = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${BIG}${v.toString()}` : v));
  // The marker starts with a NUL, which JSON.stringify escapes inside ordinary strings as
  // \u0000, so only the replacer's own output can match here.
  return text.replace(/"\\u0000big:(-?\d+)"/g, '$1');
}

/**
 * Parses JSON; integer literals beyond Number.MAX_SAFE_INTEGER come back as bigint, every
 * other number as a number. Callers read integers through `toBigInt`, which takes both.
 */
export function parseJson(text: string): unknown {
  let marked = '';
  let last = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) {
      inString = true;
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < text.length && /[0-9.eE+-]/.test(text[j]!)) j++;
      const literal = text.slice(i, j);
      if (/^-?\d{16,}$/.test(literal) && !Number.isSafeInteger(Number(literal))) {
        marked += `${text.slice(last, i)}"${BIG}${literal}"`;
        last = j;
      }
      i = j - 1;
    }
  }
  if (last === 0) return JSON.parse(text);
  marked += text.slice(last);
  return JSON.parse(marked, (_k, v: unknown) => (typeof v === 'string' && v.startsWith(BIG) ? BigInt(v.slice(BIG.length)) : v));
}
