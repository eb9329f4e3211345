/**
 * fast-check arbitraries for HTTP requests derived from the service's own OpenAPI document.
 * Four kinds, so that both the edge and the services behind it are exercised:
 * - clean: values that fit each schema;
 * - example: a known-good request (given by the test), as is or with one leaf replaced by
 *   a nasty value or one odd property name added (this is what reaches the database with
 *   text it cannot store);
 * - dirty: schema-shaped values with nasty ones mixed in at every level;
 * - raw: bodies that are not what JSON.stringify writes.
 * Nasty values: NUL, unpaired surrogates, huge and non-finite numbers, wrong types, deep
 * nesting, unknown fields, raw bytes that are not JSON or not UTF-8.
 *
 * No generated URL names anything but the loopback address, so no request can make the
 * service send traffic elsewhere.
 */
import fc from 'fast-check';
import { fitted, hex, nasty, nastyString, randomUuid, type Pools, type Schema } from './fuzz-values.js';

export type { Pools, Schema };

/** A known-good request per operation ("POST /v1/wallets/{walletId}/withdraw"): body and query values. */
export type Examples = Record<string, Array<{ body?: unknown; query?: Record<string, string> }>>;

export interface FuzzRequest {
  path: string;
  query: string;
  /** Raw request body text, or undefined for none. */
  body?: string;
  headers: Record<string, string>;
}

/** Percent-encoding that also writes unpaired surrogates (as WTF-8 bytes), which encodeURIComponent refuses. */
export function pct(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const next = s.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
      out += encodeURIComponent(s[i]! + s[i + 1]!);
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(s[i]!);
    }
  }
  return out;
}

/** Raw bytes for a path segment or query value that no encoder would write. */
const rawOdd = fc.constantFrom('%00', '%FF', '%ED%A0%80', '%C0%AF', '%', '%zz', '..', '%2F', '%2e%2e', 'a'.repeat(3000), '%F0%9F%98');

const stringish = (v: unknown) => (typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));

/** Raw body texts that are not what JSON.stringify writes. */
const rawBodies = fc.constantFrom(
  '{',
  'null',
  '[]',
  '"text"',
  '1e400',
  '{"amount":1e400,"name":1e400}',
  '{"amount":123456789012345678901234567890123456789,"limit":1e308}',
  '{"__proto__":{"isAdmin":true}}',
  '{"constructor":{"prototype":{"x":1}}}',
  '{"name":"a","name":"b"}',
  '{"name":"\\u0000"}',
  '{"name":"\\ud800"}',
  '{"metadata":{"\\u0000":"x"}}',
  `${'['.repeat(20000)}${']'.repeat(20000)}`,
  `{"metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
  '\u0000',
  '\ufeff{}',
);

export interface Operation {
  method: string;
  path: string;
  op: Schema;
}

export function operations(doc: Schema): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries<Schema>(doc.paths)) {
    for (const [method, op] of Object.entries<Schema>(methods)) out.push({ method: method.toUpperCase(), path, op });
  }
  return out;
}

type Spot = { path: Array<string | number>; key: boolean };

/** Every place in a JSON value a nasty value can go: each value, and each object (for an odd property name). */
function spotsOf(value: unknown, path: Array<string | number> = []): Spot[] {
  const here: Spot[] = [{ path, key: false }];
  if (Array.isArray(value)) return [...here, ...value.flatMap((v, i) => spotsOf(v, [...path, i]))];
  if (value && typeof value === 'object') {
    return [...here, { path, key: true }, ...Object.entries(value).flatMap(([k, v]) => spotsOf(v, [...path, k]))];
  }
  return here;
}

function withNasty(example: unknown, spot: Spot, name: string, bad: unknown): unknown {
  const copy = structuredClone(example);
  if (spot.path.length === 0 && !spot.key) return bad;
  const parent = spot.path.slice(0, spot.key ? undefined : -1).reduce<any>((o, k) => o[k], copy);
  if (spot.key) parent[name] = bad;
  else parent[spot.path[spot.path.length - 1]!] = bad;
  return copy;
}

/** In an example: a fresh outside address, and (inside a string) a fresh token, so sending it twice is no conflict. */
export const OUTSIDE = '<outside address>';
export const FRESH = '<fresh>';

function withFresh(value: unknown, address: string): unknown {
  if (value === OUTSIDE) return address;
  if (typeof value === 'string') return value.replaceAll(FRESH, address.slice(2, 12));
  if (Array.isArray(value)) return value.map((v) => withFresh(v, address));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withFresh(v, address)]));
  return value;
}

/** Text PostgreSQL cannot store, the likeliest way past a schema to a 500. */
const textBreaker = fc.constantFrom('a\u0000b', '\u0000', '\ud800', 'x\udc00y', 'ok\ud83d');

/**
 * The example as is (a third of the time), or with one nasty value or odd property name
 * in it; half of the nasty values are text PostgreSQL cannot store.
 */
function mutated(example: unknown): fc.Arbitrary<unknown> {
  const spots = spotsOf(example);
  const bad = fc.oneof(textBreaker, nasty);
  const name = fc.oneof(textBreaker, nastyString);
  const changed = fc.tuple(fc.constantFrom(...spots), name, bad).map(([spot, n, b]) => withNasty(example, spot, n, b));
  return fc
    .tuple(fc.oneof({ weight: 1, arbitrary: fc.constant(example) }, { weight: 2, arbitrary: changed }), hex(40))
    .map(([value, h]) => withFresh(value, `0x${h.toLowerCase()}`));
}

export function requestOf(operation: Operation, doc: Schema, pools: Pools, examples: Examples): fc.Arbitrary<FuzzRequest> {
  const known = examples[`${operation.method} ${operation.path}`] ?? [];
  const fromExamples = known.map((e) => exampleRequest(operation, pools, e));
  return fc.oneof(
    { weight: 2, arbitrary: requestOfKind(operation, doc, pools, false) },
    { weight: 3, arbitrary: requestOfKind(operation, doc, pools, true) },
    ...fromExamples.map((arbitrary) => ({ weight: Math.max(1, Math.floor(5 / fromExamples.length)), arbitrary })),
  );
}

function realSegment(pools: Pools, name: string): fc.Arbitrary<string> {
  return fc.constantFrom(...(pools.ids[name] ?? pools.allIds)).map(pct);
}

function fillPath(operation: Operation, values: string[]): string {
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  return names.reduce((path, name, i) => path.replace(`{${name}}`, values[i]!), operation.path);
}

function exampleRequest(
  operation: Operation,
  pools: Pools,
  example: { body?: unknown; query?: Record<string, string> },
): fc.Arbitrary<FuzzRequest> {
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const path = fc.tuple(...names.map((n) => realSegment(pools, n))).map((values) => fillPath(operation, values));
  const body = example.body === undefined ? fc.constant(undefined) : mutated(example.body).map((v) => JSON.stringify(v));
  const query =
    example.query === undefined
      ? fc.constant('')
      : mutated(example.query).map((q) =>
          q && typeof q === 'object' && !Array.isArray(q)
            ? Object.entries(q)
                .map(([k, v]) => `${pct(k)}=${pct(stringish(v))}`)
                .join('&')
            : pct(stringish(q)),
        );
  return fc.record({ path, body, query }).map(({ path, body, query }): FuzzRequest => {
    const headers: Record<string, string> = body !== undefined ? { 'content-type': 'application/json' } : {};
    return { path, query, ...(body !== undefined ? { body } : {}), headers };
  });
}

function requestOfKind(operation: Operation, doc: Schema, pools: Pools, dirty: boolean): fc.Arbitrary<FuzzRequest> {
  const params: Schema[] = operation.op.parameters ?? [];
  const inPath = params.filter((p) => p.in === 'path');
  const inQuery = params.filter((p) => p.in === 'query');
  const inHeader = params.filter((p) => p.in === 'header');

  const real = (name: string) => realSegment(pools, name);
  const segment = (name: string) =>
    fc.oneof(
      { weight: 6, arbitrary: real(name) },
      { weight: 2, arbitrary: randomUuid },
      { weight: 1, arbitrary: nasty.map((v) => pct(stringish(v)) || 'x') },
      { weight: 1, arbitrary: rawOdd },
    );
  const byName = new Map(inPath.map((p) => [p.name as string, p]));
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const pathArb = fc
    .tuple(...names.map((n) => (dirty && byName.has(n) ? segment(n) : real(n))))
    .map((values) => fillPath(operation, values));

  const fittingValue = (p: Schema) => fitted(p.schema ?? {}, doc, pools, false, p.name, 1).map((v) => pct(stringish(v)));
  const queryValue = (p: Schema) =>
    dirty
      ? fc.oneof(
          { weight: 3, arbitrary: fittingValue(p) },
          { weight: 2, arbitrary: nasty.map((v) => pct(stringish(v))) },
          { weight: 1, arbitrary: rawOdd },
        )
      : fittingValue(p);
  const queryArb = fc
    .tuple(
      fc.tuple(...inQuery.map((p) => fc.option(queryValue(p), { freq: 2 }))),
      dirty
        ? fc.option(
            fc.tuple(fc.oneof(fc.constantFrom('x', 'x-api-key', 'page'), nastyString.map(pct), rawOdd), queryValue({ name: 'x' })),
            { freq: 3 },
          )
        : fc.constant(null),
    )
    .map(([values, extra]) => {
      const parts = inQuery.flatMap((p, i) => (values[i] === null ? [] : [`${pct(p.name)}=${values[i]}`]));
      if (extra) parts.push(`${extra[0]}=${extra[1]}`);
      return parts.join('&');
    });

  const bodySchema: Schema | undefined = operation.op.requestBody?.content?.['application/json']?.schema;
  const shaped = (schema: Schema) => fitted(schema, doc, pools, dirty, '', 0).map((v) => JSON.stringify(v));
  const bodyArb: fc.Arbitrary<string | undefined> = !dirty
    ? bodySchema
      ? shaped(bodySchema)
      : fc.constant(undefined)
    : bodySchema
      ? fc.oneof(
          { weight: 8, arbitrary: shaped(bodySchema) },
          { weight: 2, arbitrary: rawBodies },
          { weight: 1, arbitrary: fc.constant(undefined) },
        )
      : fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: rawBodies });

  const headerArb = fc.tuple(
    ...inHeader.map((p) =>
      fc.option(
        dirty
          ? fc.oneof(fc.string({ unit: 'binary-ascii', minLength: 1, maxLength: 40 }), fc.constantFrom('k\u00e9y', 'a'.repeat(300)))
          : fc.stringMatching(/^[A-Za-z0-9-]{8,40}$/),
        { freq: 2 },
      ),
    ),
  );

  return fc
    .record({ path: pathArb, query: queryArb, body: bodyArb, headerValues: headerArb })
    .map(({ path, query, body, headerValues }) => {
      const headers: Record<string, string> = {};
      inHeader.forEach((p, i) => {
        // Node's client refuses control characters in headers; a real client cannot send them either.
        const v = headerValues[i]?.replace(/[\u0000-\u001f\u007f]/g, '');
        if (v) headers[p.name] = v;
      });
      if (body !== undefined) headers['content-type'] = 'application/json';
      return { path, query, ...(body !== undefined ? { body } : {}), headers };
    });
}
