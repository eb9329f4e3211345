/**
 * A client of a Tron full node's HTTP API (java-tron's `/wallet/*` and `/walletsolidity/*`
 * servlets, or a provider in front of them such as TronGrid), the one way the Tron family
 * talks to a node: the real one in production, the stand-in (src/devnet/tron) in the
 * embedded default and tests, exactly alike.
 *
 * java-tron answers HTTP 200 for most failures and reports them in the body (`{ "Error": … }`
 * or a `Return` with `result: false`); what a failure means is the caller's to judge, so this
 * client only throws for transport problems and non-JSON answers. It writes int64 fields
 * (balances in sun, fees) as bare JSON numbers that can exceed 2^53: they are parsed without
 * loss (integers outside the safe range come back as decimal strings; read money with BigInt).
 */

export interface TronNodeOptions {
  /** Per request; a node that does not answer in time is a transport error. */
  timeoutMs?: number;
  /** A provider's API key (TronGrid: the TRON-PRO-API-KEY header); never put in a URL. */
  apiKey?: string;
}

export class TronNodeError extends Error {
  constructor(
    message: string,
    readonly path: string,
    readonly status: number | null,
  ) {
    super(message);
    this.name = 'TronNodeError';
  }
}

export class TronNode {
  readonly #base: string;

  constructor(
    baseUrl: string,
    private readonly opts: TronNodeOptions = {},
  ) {
    this.#base = baseUrl.replace(/\/+$/, '');
  }

  /** POSTs `body` as JSON to `path` (e.g. `wallet/getnowblock`) and parses the answer losslessly. */
  async post<T = Record<string, unknown>>(path: string, body: Record<string, unknown> = {}): Promise<T> {
    const url = `${this.#base}/${path.replace(/^\/+/, '')}`;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.opts.apiKey) headers['TRON-PRO-API-KEY'] = this.opts.apiKey;
    let res: Response;
    try {
      res = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(body, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)),
        signal: AbortSignal.timeout(this.opts.timeoutMs ?? 15_000),
      });
    } catch (err) {
      throw new TronNodeError(`Tron node unreachable (${path}): ${(err as Error).message}`, path, null);
    }
    const text = await res.text();
    if (!res.ok) throw new TronNodeError(`Tron node answered HTTP ${res.status} for ${path}`, path, res.status);
    try {
      return parseLossless(text) as T;
    } catch {
      throw new TronNodeError(`Tron node answered ${path} with something that is not JSON`, path, res.status);
    }
  }
}

/**
 * JSON.parse, except that integer literals outside JavaScript's safe range are kept as
 * decimal strings instead of being rounded (Node 20 has no JSON.parse source access).
 * Numbers inside string literals are left alone.
 */
export function parseLossless(text: string): unknown {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      // Copy a string literal as it is, escapes included.
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      const m = /^-?\d+(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
      const literal = m ? m[0] : c;
      const isBigInteger = m && !m[1] && !m[2] && !Number.isSafeInteger(Number(literal));
      out += isBigInteger ? `"${literal}"` : literal;
      i += literal.length;
    } else {
      out += c;
      i++;
    }
  }
  return JSON.parse(out);
}
