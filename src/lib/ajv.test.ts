import { describe, expect, it } from 'vitest';
import { Type } from '@sinclair/typebox';
import { makeAjv } from './ajv.js';
import { Uuid } from './schema.js';

describe('makeAjv: date-time', () => {
  const valid = makeAjv(true).compile({ type: 'string', format: 'date-time' });

  it('takes RFC 3339 times JavaScript can hold', () => {
    for (const s of ['2026-01-01T00:00:00Z', '2026-06-30T23:59:59.999Z', '2026-01-01T00:00:00.123+02:00']) expect(valid(s), s).toBe(true);
  });

  it('refuses a leap second (RFC 3339 allows it; Date.parse cannot hold it) and impossible dates', () => {
    for (const s of ['2026-01-01T23:59:60Z', '2026-06-30T23:59:60.5Z', '2026-02-30T00:00:00Z', 'today']) expect(valid(s), s).toBe(false);
  });
});

describe('makeAjv: ids', () => {
  const schema = Type.Object({ id: Uuid(), ids: Type.Array(Uuid()), name: Type.String(), either: Type.Union([Uuid(), Type.String()]) });
  const ID = '01A2B3C4-D5E6-7F80-9A1B-2C3D4E5F6A7B';

  it('hands a UUID on in lower case, in a body or a query, in an array and in a union', () => {
    for (const coerce of [false, true]) {
      const check = makeAjv(coerce).compile(schema);
      const data = { id: ID, ids: [ID, ID.toLowerCase()], name: ID, either: ID };
      expect(check(data)).toBe(true);
      expect(data).toEqual({ id: ID.toLowerCase(), ids: [ID.toLowerCase(), ID.toLowerCase()], name: ID, either: ID.toLowerCase() });
    }
  });

  it('leaves what is no UUID as it is, and refuses it where an id is due', () => {
    const check = makeAjv(false).compile(schema);
    const data = { id: 'NOT-A-UUID', ids: [], name: 'x', either: 'ABC' };
    expect(check(data)).toBe(false);
    expect(data.id).toBe('NOT-A-UUID');
    const ok = { id: ID.toLowerCase(), ids: [], name: 'x', either: 'ABC' };
    expect(check(ok)).toBe(true);
    expect(ok.either).toBe('ABC');
  });
});
