/**
 * fast-check values for the fuzz test (test/api/fuzz.test.ts): nasty values (NUL, unpaired
 * surrogates, huge and non-finite numbers, wrong types, deep nesting, odd property names)
 * and values derived from the service's own JSON schemas (from /openapi.json), clean or
 * with nasty values mixed in at every level.
 *
 * URLs are loopback only, so no request can make the service send traffic elsewhere.
 */
import fc from 'fast-check';

export type Schema = Record<string, any>;

export interface Pools {
  /** Real ids (wallets, addresses, assets, transactions, beneficiaries, rules), by path-parameter name. */
  ids: Record<string, string[]>;
  /** Every real id, for body fields and query filters that take one. */
  allIds: string[];
  /** Addresses that mean something to the service (its own, whitelisted, tokens). */
  addresses: string[];
  slugs: string[];
  symbols: string[];
}

const UUID_RE = /^\^\[0-9a-fA-F\]\{8\}-/;
export const randomUuid = fc.uuid();
export const hex = (n: number) => fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: n, maxLength: n });

/** Text that has broken services before: NUL, unpaired surrogates, long, odd scripts. */
export const NASTY_STRINGS = [
  'a\u0000b',
  '\u0000',
  '\ud800',
  'x\udc00y',
  '\udbff',
  'ok\ud83d',
  '\ud83d\ude00',
  '',
  ' ',
  '\u202e\u0301',
  '\uffff\ufffe',
  'a'.repeat(5000),
  "'; DROP TABLE wallets; --",
  '%00',
  '../../etc/passwd',
  'null',
  '0',
  '-1',
  '1e400',
  '0x',
  `0x${'AB'.repeat(20)}`,
  `0x${'ab'.repeat(20)}`,
  `0x${'aB'.repeat(20)}`,
  `0X${'ab'.repeat(20)}`,
  `0x${'00'.repeat(32)}`,
  '99999999999999999999999999999999999999999999999999999999999999999999999999999999',
  '0.0000000000000000000000000000000000000001',
  'NaN',
  'Infinity',
  '2026-13-45T99:99:99Z',
  '\t\n\r',
];

export const nastyString = fc.oneof(fc.constantFrom(...NASTY_STRINGS), fc.string({ unit: 'binary', maxLength: 30 }));

const nastyNumber = fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), -0, 0.1, 1e-300, -1, 0, 4294967296);

/** Arrays or objects nested past any depth a field takes. */
const deep = fc.tuple(fc.integer({ min: 20, max: 300 }), fc.boolean()).map(([depth, arrays]) => {
  let v: unknown = 'x';
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
});

export const nasty: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: nastyString },
  { weight: 2, arbitrary: nastyNumber },
  { weight: 2, arbitrary: fc.constantFrom<unknown>(null, true, false, [], {}, [[]], [null], { '': '' }) },
  { weight: 1, arbitrary: deep },
  { weight: 1, arbitrary: fc.dictionary(nastyString, nastyString, { maxKeys: 3 }) },
);

const loopbackUrl = fc.oneof(
  fc.constantFrom(
    'http://127.0.0.1:9/hook',
    'http://localhost:9/x',
    'https://127.0.0.1/',
    'http://[::1]:9/',
    'not a url',
    'ftp://127.0.0.1/',
  ),
  fc.string({ maxLength: 20 }).map((s) => `http://127.0.0.1:9/${encodeURIComponent(s)}`),
);

const amount = fc.oneof(
  fc.constantFrom('0.000001', '1', '0', '-1', '1.5', '100000000000', '1e5', '0x10', ' 1', '1.', '.5', '0.0000000000000000001'),
  fc.bigInt({ min: 0n, max: 10n ** 30n }).map(String),
  fc.tuple(fc.nat(1000), fc.nat(999999)).map(([a, b]) => `${a}.${b}`),
);

function addressArb(pools: Pools): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...pools.addresses),
    fc.constantFrom(...pools.addresses).map((a) => a.toLowerCase()),
    fc.constantFrom(...pools.addresses).map((a) => `0x${a.slice(2).toUpperCase()}`),
    hex(40).map((h) => `0x${h}`),
    hex(40).map((h) => `0x${h.toLowerCase()}`),
  );
}

/** Values for fields whose name says more than their schema. */
function hinted(name: string, schema: Schema, pools: Pools): fc.Arbitrary<unknown> | null {
  const n = name.toLowerCase();
  if (schema.type === 'object' || (schema.type === 'array' && schema.items?.type === 'object')) return null;
  if (n.endsWith('url')) return loopbackUrl;
  if (n === 'address' || n === 'verifyingcontract' || n === 'operator') return addressArb(pools);
  if (n === 'amount' || n === 'minamount' || n === 'maxamount') return amount;
  if (n === 'blockchain') return fc.constantFrom(...pools.slugs, 'nope');
  if (n === 'asset') return fc.constantFrom(...pools.symbols, 'nope');
  if (n === 'assets') return fc.oneof(fc.subarray(pools.symbols, { minLength: 1 }), fc.constantFrom(pools.symbols.join(',')));
  return null;
}

/**
 * A value that fits `schema`; when `dirty`, nasty values are mixed in at every level. (A
 * request is either clean or dirty as a whole: clean ones reach the services, dirty ones
 * the edge.)
 */
export function valueOf(schema: Schema, doc: Schema, pools: Pools, dirty: boolean, name = '', depth = 0): fc.Arbitrary<unknown> {
  const fitting = fitted(schema, doc, pools, dirty, name, depth);
  return dirty ? fc.oneof({ weight: 6, arbitrary: fitting }, { weight: 1, arbitrary: nasty }) : fitting;
}

export function fitted(schema: Schema, doc: Schema, pools: Pools, dirty: boolean, name: string, depth: number): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const ref = String(schema.$ref).split('/').pop()!;
    return fitted(doc.components.schemas[ref] ?? {}, doc, pools, dirty, name, depth);
  }
  const hint = hinted(name, schema, pools);
  if (hint) return hint;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s: Schema) => fitted(s, doc, pools, dirty, name, depth)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  if (schema.const !== undefined) return fc.constant(schema.const);
  switch (schema.type) {
    case 'string':
      return stringOf(schema, pools);
    case 'integer':
      return fc.integer({ min: Math.max(schema.minimum ?? -1000, -(2 ** 31)), max: Math.min(schema.maximum ?? 1000, 2 ** 31) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = depth > 6 ? fc.constant('x') : valueOf(schema.items ?? {}, doc, pools, dirty, name, depth + 1);
      return fc.array(items, {
        minLength: schema.minItems ?? 0,
        maxLength: Math.max(schema.minItems ?? 0, Math.min(schema.maxItems ?? 3, 3)),
      });
    }
    case 'object':
      return objectOf(schema, doc, pools, dirty, depth);
  }
  return fc.oneof(
    fc.string({ maxLength: 10 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.dictionary(nastyString, fc.string(), { maxKeys: 2 }),
  );
}

function stringOf(schema: Schema, pools: Pools): fc.Arbitrary<string> {
  const pattern: string | undefined = schema.pattern;
  if (pattern && UUID_RE.test(pattern))
    return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...pools.allIds) }, { weight: 1, arbitrary: randomUuid });
  if (pattern === '^0x[0-9a-fA-F]{64}$') return hex(64).map((h) => `0x${h}`);
  if (pattern) return fc.stringMatching(new RegExp(pattern)).filter((s) => s.length <= (schema.maxLength ?? 1000));
  if (schema.format === 'date-time')
    return fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString());
  const min = schema.minLength ?? 0;
  return fc.string({ minLength: min, maxLength: Math.min(schema.maxLength ?? 40, Math.max(min, 40)) });
}

function objectOf(schema: Schema, doc: Schema, pools: Pools, dirty: boolean, depth: number): fc.Arbitrary<unknown> {
  const props: Record<string, Schema> = schema.properties ?? {};
  const names = Object.keys(props);
  if (names.length === 0) {
    // Free-form client data (metadata, typed-data messages): odd keys, nested values.
    const value =
      depth > 4 || !dirty
        ? fc.oneof(fc.string(), fc.integer())
        : fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), nasty);
    return fc.dictionary(dirty ? fc.oneof(fc.string({ maxLength: 8 }), nastyString) : fc.string({ minLength: 1, maxLength: 8 }), value, {
      maxKeys: 4,
    });
  }
  const required: string[] = schema.required ?? [];
  const record = fc.record(Object.fromEntries(names.map((k) => [k, valueOf(props[k]!, doc, pools, dirty, k, depth + 1)])), {
    requiredKeys: required,
  });
  if (!dirty) return record;
  // Sometimes a field no schema names (a typo such as "ammount").
  return fc
    .tuple(record, fc.option(fc.tuple(fc.oneof(fc.constantFrom('ammount', 'x'), nastyString), nasty), { freq: 8 }))
    .map(([r, extra]) => (extra ? { ...(r as object), [extra[0]]: extra[1] } : r));
}
