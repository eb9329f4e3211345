/**
 * Secrets out of log lines, the second line of defence (the first is never logging them).
 * Works on the finished JSON line, so it sees everything pino writes, at any depth, after
 * every serializer (errors, requests, arrays, nested objects), and leaves the rest of the
 * line byte for byte (big integers keep their digits).
 *
 * - By name, at any depth: a property named like a secret (`apiKey`, `privateKey`, `seed`,
 *   `xprv`, `secret`, `password`, `mnemonic`, `authorization`, `x-api-key`, ...) has its
 *   whole value replaced, whatever its type.
 * - By shape, in every string: API keys (`sk_…`), webhook secrets (`whsec_…`), extended
 *   private keys (`xprv…`, `tprv…`), runs of 12 or more BIP39 English words, and the values
 *   of secret query parameters in URLs (`?x-api-key=`, `apiKey`, `key`, `token`, ...).
 * - 32-byte hex (a raw private key) or base58 of 64 bytes (an ed25519 secret key) in a
 *   property whose name suggests a key.
 *
 * - The configured chains' node URLs (addSecretUrl): everything after the host, where
 *   providers put their API key.
 *
 * The hot path is one regex test per line (and a substring search per node URL): a line
 * with nothing that looks like a secret name or shape is written as is
 * (bench/log-redaction.ts measures both paths).
 */
import { base58 } from '@scure/base';
import { wordlist } from '@scure/bip39/wordlists/english';

export const CENSOR = '[redacted]';

/** Property names (lower case, letters and digits only) whose values are secrets, whatever they hold. */
const SECRET_NAMES = new Set([
  'apikey',
  'xapikey',
  'privatekey',
  'mnemonic',
  'seed',
  'seedphrase',
  'xprv',
  'tprv',
  'xpriv',
  'secret',
  'secretkey',
  'privkey',
  'signingkey',
  'password',
  'passphrase',
  'masterkey',
  'kek',
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'sessionid',
  'accesstoken',
  'refreshtoken',
  'idtoken',
  'authtoken',
  'bearertoken',
  'csrftoken',
  'sessiontoken',
]);
// `secretkey`: the ed25519 convention (Solana keypairs, the Solana stand-in's faucet).
const SECRET_SUFFIXES = [
  'secret',
  'password',
  'passphrase',
  'privatekey',
  'apikey',
  'mnemonic',
  'seed',
  'xprv',
  'secretkey',
  'privkey',
  'signingkey',
];

/** Query parameters whose values are secrets (same normalisation). */
const SECRET_PARAMS = new Set([...SECRET_NAMES, 'key', 'token', 'auth', 'session', 'sig', 'signature', 'pass', 'pwd']);

const normal = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

export function isSecretName(name: string): boolean {
  const n = normal(name);
  return SECRET_NAMES.has(n) || SECRET_SUFFIXES.some((s) => n.endsWith(s));
}

/** A property whose name suggests a key: a 32-byte hex value in it is taken for a private key. */
function keyish(name: string): boolean {
  const n = normal(name);
  return n === 'pk' || n === 'sk' || n.includes('key') || n.includes('priv') || n.includes('secret') || n.includes('seed');
}

// Names and shapes that could need redacting; a line with neither these nor a long run of
// words is written as is (the hot path). `sk_` not after a letter or digit (`task_queues`).
const SUSPECT =
  /key|secret|seed|prv|priv|mnemonic|pass|pwd|token|auth|cookie|session|kek|sig|(?<![a-z0-9])sk_|whsec_|"pk"|"sk"|:\/\/[^\s/?#@"]*:[^\s/?#@]*@/i;

/** Whether the text has 12 words of 3 to 8 letters in a row (a mnemonic's shape), in one pass. */
function hasWordRun(s: string): boolean {
  let run = 0;
  let len = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90)) {
      len++;
      continue;
    }
    if (len >= 3 && len <= 8) {
      if (++run >= 12) return true;
    } else run = 0;
    len = 0;
    if (c === 32 || c === 10 || c === 9 || c === 13) continue; // whitespace
    if (c === 92) {
      const next = s.charCodeAt(i + 1); // an escaped \n, \t or \r inside a JSON string
      if (next === 110 || next === 116 || next === 114) {
        i++;
        continue;
      }
    }
    run = 0;
  }
  return len >= 3 && len <= 8 && run >= 11;
}

/** Cheap first: fewer than 11 separators cannot hold 12 words. */
function mayHoldMnemonic(s: string): boolean {
  let separators = 0;
  for (let i = s.indexOf(' '); i >= 0 && separators < 11; i = s.indexOf(' ', i + 1)) separators++;
  for (let i = s.indexOf('\\n'); i >= 0 && separators < 11; i = s.indexOf('\\n', i + 2)) separators++;
  return separators >= 11 && hasWordRun(s);
}

/** The password of a URL's userinfo (`postgres://user:password@host`, an RPC URL's basic auth). */
// A password may hold quotes (new URL and pg take ' as is, " percent-encoded or not).
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:/?#@"']*):[^\s/?#@]*@/gi;
const API_KEY = /(?<![A-Za-z0-9])(?:sk|whsec)_[A-Za-z0-9_+/=-]{20,}/g;
const EXTENDED_KEY = /(?<![A-Za-z0-9])[xtyzuvXTYZUV]prv[1-9A-HJ-NP-Za-km-z]{90,}/g;
const QUERY_PARAM = /(^|[?&;])([^=&#\s"';?]+)=([^&#\s"';]*)/g;
const WORD_RUN = /[A-Za-z]{3,8}(?:\s+[A-Za-z]{3,8}){11,}/g;
const HEX_32 = /^(?:0x)?[0-9a-fA-F]{64}$/;
/** Base58 long enough for 64 bytes: an ed25519 secret key (seed || public key) as Solana wallets write it. */
const BASE58_64 = /^[1-9A-HJ-NP-Za-km-z]{86,88}$/;

function isBase58Of64Bytes(text: string): boolean {
  if (!BASE58_64.test(text)) return false;
  try {
    return base58.decode(text).length === 64;
  } catch {
    return false;
  }
}
/** A JSON array of exactly 64 integers of at most 3 digits (compact, as JSON.stringify writes it). */
const BYTES_64 = /^\[(?:\d{1,3},){63}\d{1,3}\]/;
const BIP39 = new Set(wordlist);

function redactQuery(text: string): string {
  return text.replace(QUERY_PARAM, (all, sep: string, name: string) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name.replace(/\+/g, ' '));
    } catch {
      /* keep the raw name */
    }
    return SECRET_PARAMS.has(normal(decoded)) ? `${sep}${name}=${CENSOR}` : all;
  });
}

/**
 * Paths that carry a secret themselves: an invitation link (/dashboard/join/<token>) is a
 * bearer credential for a new account until it is used.
 */
const SECRET_PATH = /(\/join\/)[^/?#]+/i;

/** A URL with the values of its secret query parameters (names compared decoded and case-blind) and secret path segments replaced. */
export function redactUrl(url: string): string {
  const path = SECRET_PATH.test(url) ? url.replace(SECRET_PATH, `$1${CENSOR}`) : url;
  return path.includes('=') ? redactQuery(path) : path;
}

/** Runs of 12 or more consecutive BIP39 words become one CENSOR. */
function redactMnemonics(text: string): string {
  return text.replace(WORD_RUN, (run) => {
    const parts = run.split(/(\s+)/); // words at even indexes, the separators between them at odd ones
    const out: string[] = [];
    let i = 0;
    while (i < parts.length) {
      let j = i;
      while (j < parts.length && BIP39.has(parts[j]!.toLowerCase())) j += 2;
      if (j === i) {
        out.push(parts[i]!, parts[i + 1] ?? '');
        i += 2;
      } else {
        // parts[i..j) are BIP39 words and their separators, the last separator included.
        out.push(...((j - i) / 2 >= 12 ? [CENSOR, parts[j - 1] ?? ''] : parts.slice(i, j)));
        i = j;
      }
    }
    return out.join('');
  });
}

/** Every secret shape in a piece of text (a string value of a log line, or a message). */
export function redactText(text: string): string {
  let out = text;
  if (out.includes('sk_') || out.includes('whsec_')) out = out.replace(API_KEY, CENSOR);
  if (/prv/i.test(out)) out = out.replace(EXTENDED_KEY, CENSOR);
  if (out.includes('=')) out = redactQuery(out);
  if (out.includes('://')) out = out.replace(URL_PASSWORD, `$1:${CENSOR}@`);
  if (out.length >= 47 && hasWordRun(out)) out = redactMnemonics(out);
  return out;
}

/**
 * The configured chains' node URLs, as text to find -> its replacement, longest first.
 * Providers put their API key in the path (Alchemy `/v2/<key>`, Infura `/v3/<key>`,
 * QuickNode `/<token>/`, Ankr `/<chain>/<key>`), where no shape tells it from an ordinary
 * path, and client libraries name the URL in their errors (viem: `URL: https://…/v2/<key>`),
 * so a node outage wrote the key into every failed request's line. The URLs are known, so
 * everything after the host is replaced wherever one of them appears.
 */
let nodeUrls: [string, string][] = [];

/**
 * Registers a node URL whose path and query are secret in every log line of this process
 * (chains/registry.ts registers each configured chain's). A URL with no path or query has
 * nothing to hide.
 */
export function addSecretUrl(url: string): void {
  const forms: [string, string][] = [];
  const add = (host: string, rest: string) => {
    if (rest === '' || rest === '/') return;
    const text = `${host}${rest}`;
    const replacement = `${host}/${CENSOR}`;
    forms.push([text, replacement]);
    // As it stands inside a JSON string of the line (a quote or backslash escaped).
    const escaped = JSON.stringify(text).slice(1, -1);
    if (escaped !== text) forms.push([escaped, JSON.stringify(replacement).slice(1, -1)]);
  };
  // As written, and as the WHATWG URL writes it (viem names it so when it strips a userinfo).
  const written = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)(.*)$/i.exec(url);
  if (written) add(written[1]!, written[2]!);
  try {
    const parsed = new URL(url);
    add(parsed.host, `${parsed.pathname}${parsed.search}${parsed.hash}`);
  } catch {
    /* not a URL: the form as written is all there is */
  }
  const known = new Map(nodeUrls);
  for (const [text, replacement] of forms) known.set(text, replacement);
  nodeUrls = [...known].sort((a, b) => b[0].length - a[0].length);
}

function redactNodeUrls(line: string): string {
  // Most lines name no URL at all: one scan for a scheme's separator spares them the
  // search for each registered form (a URL is written with its scheme, inside JSON too).
  if (!line.includes('://')) return line;
  let out = line;
  for (const [text, replacement] of nodeUrls) if (out.includes(text)) out = out.split(text).join(replacement);
  return out;
}

/** The line with every secret replaced; unchanged (the same string) when nothing looks like one. */
export function redactLine(text: string): string {
  const line = nodeUrls.length ? redactNodeUrls(text) : text;
  if (!SUSPECT.test(line) && !mayHoldMnemonic(line)) return line;
  try {
    return new LineRedactor(line).run();
  } catch {
    // Not JSON after all (or nested past the stack): shapes are still caught.
    return redactText(line);
  }
}

const isSpace = (c: number) => c === 32 || c === 10 || c === 13 || c === 9;

/** Copies a JSON text through, replacing secret values; everything else is kept verbatim. */
class LineRedactor {
  private i = 0;
  private out = '';
  private last = 0;

  constructor(private readonly s: string) {}

  run(): string {
    this.ws();
    while (this.i < this.s.length) {
      this.value(null);
      this.ws();
      // pino writes one object and a newline; anything else is copied as is.
      if (this.i < this.s.length && !isSpace(this.s.charCodeAt(this.i))) throw new Error('not one JSON value');
    }
    return this.out + this.s.slice(this.last);
  }

  private ws(): void {
    while (isSpace(this.s.charCodeAt(this.i))) this.i++;
  }

  /** Moves past a number, true, false or null. */
  private primitive(): void {
    const start = this.i;
    for (let c = this.s.charCodeAt(this.i); this.i < this.s.length && c !== 44 && c !== 125 && c !== 93 && !isSpace(c);) {
      c = this.s.charCodeAt(++this.i);
    }
    if (this.i === start) throw new Error('expected a value');
  }

  /** Replaces s[from, to) with text in the output. */
  private replace(from: number, to: number, text: string): void {
    this.out += this.s.slice(this.last, from) + text;
    this.last = to;
  }

  private value(name: string | null): void {
    this.ws();
    const start = this.i;
    if (name !== null && isSecretName(name)) {
      this.skip();
      // A flag (`showPrivateKey: true`) or an absent value tells nothing.
      if (!/^(?:true|false|null)$/.test(this.s.slice(start, this.i))) this.replace(start, this.i, `"${CENSOR}"`);
      return;
    }
    const c = this.s[this.i];
    if (c === '"') {
      const end = this.stringEnd(this.i);
      const raw = this.s.slice(this.i, end);
      const text = raw.includes('\\') ? (JSON.parse(raw) as string) : raw.slice(1, -1);
      let clean = redactText(text);
      if (name !== null && keyish(name) && (HEX_32.test(text) || isBase58Of64Bytes(text))) clean = CENSOR;
      if (clean !== text) this.replace(start, end, JSON.stringify(clean));
      this.i = end;
    } else if (c === '{') {
      this.i++;
      this.ws();
      if (this.s[this.i] === '}') {
        this.i++;
        return;
      }
      for (;;) {
        this.ws();
        const end = this.stringEnd(this.i);
        const rawKey = this.s.slice(this.i, end);
        const key = rawKey.includes('\\') ? (JSON.parse(rawKey) as string) : rawKey.slice(1, -1);
        this.i = end;
        this.ws();
        if (this.s[this.i++] !== ':') throw new Error('expected :');
        this.value(key);
        this.ws();
        const next = this.s[this.i++];
        if (next === '}') return;
        if (next !== ',') throw new Error('expected , or }');
      }
    } else if (c === '[') {
      // An ed25519 secret key as its 64 bytes (a solana-keygen keypair file) in a key-named property.
      if (name !== null && keyish(name)) {
        const bytes = BYTES_64.exec(this.s.slice(this.i, this.i + 64 * 5 + 2));
        if (bytes && bytes[0].match(/\d+/g)!.every((b) => Number(b) <= 255)) {
          this.replace(start, this.i + bytes[0].length, `"${CENSOR}"`);
          this.i += bytes[0].length;
          return;
        }
      }
      this.i++;
      this.ws();
      if (this.s[this.i] === ']') {
        this.i++;
        return;
      }
      for (;;) {
        // Items inherit the array's name: `keys: ["<hex>"]` is a list of keys.
        this.value(name);
        this.ws();
        const next = this.s[this.i++];
        if (next === ']') return;
        if (next !== ',') throw new Error('expected , or ]');
      }
    } else {
      this.primitive();
    }
  }

  /** Moves past one value without looking inside. */
  private skip(): void {
    const c = this.s[this.i];
    if (c === '"') {
      this.i = this.stringEnd(this.i);
      return;
    }
    if (c === '{' || c === '[') {
      let depth = 0;
      do {
        const d = this.s[this.i];
        if (d === '"') {
          this.i = this.stringEnd(this.i);
          continue;
        }
        if (d === '{' || d === '[') depth++;
        else if (d === '}' || d === ']') depth--;
        this.i++;
      } while (depth > 0 && this.i < this.s.length);
      if (depth !== 0) throw new Error('unbalanced');
      return;
    }
    this.primitive();
  }

  /** The index just past the closing quote of the string starting at `at`. */
  private stringEnd(at: number): number {
    if (this.s[at] !== '"') throw new Error('expected a string');
    let j = at + 1;
    for (;;) {
      const q = this.s.indexOf('"', j);
      if (q < 0) throw new Error('unterminated string');
      let backslashes = 0;
      for (let k = q - 1; this.s[k] === '\\'; k--) backslashes++;
      if (backslashes % 2 === 0) return q + 1;
      j = q + 1;
    }
  }
}
