import { describe, expect, it } from 'vitest';
import { isUnsafeText, MAX_DEPTH, unsafeInputIssue } from './safe-text.js';

describe('isUnsafeText', () => {
  it('refuses NUL and unpaired surrogates anywhere in a string', () => {
    for (const s of ['\u0000', 'a\u0000b', '\ud800', 'x\udbffy', '\udc00', 'a\udc00', 'ok\ud83d', '\ude00\ud83d']) {
      expect(isUnsafeText(s), JSON.stringify(s)).toBe(true);
    }
  });
  it('accepts everything else, including paired surrogates (emoji) and other control characters', () => {
    for (const s of ['', 'plain', '\ud83d\ude00', 'é\u0301', '\t\n\r\u0001\u007f', '\uffff\ufffd', '中文', 'a'.repeat(10_000)]) {
      expect(isUnsafeText(s), JSON.stringify(s)).toBe(false);
    }
  });
});

describe('unsafeInputIssue', () => {
  it('names the field of a bad value, at any depth and in arrays', () => {
    expect(unsafeInputIssue({ name: 'a\u0000b' }, 'body')).toMatchObject({ field: 'name' });
    expect(unsafeInputIssue({ metadata: { tags: ['ok', '\ud800'] } }, 'body')).toMatchObject({ field: 'metadata.tags.1' });
    expect(unsafeInputIssue({ assets: [{ note: 'x' }, { note: 'y\u0000' }] }, 'body')).toMatchObject({ field: 'assets.1.note' });
    expect(unsafeInputIssue('\u0000', 'body')).toMatchObject({ field: 'body' });
  });

  it('checks property names: the field is the object holding the bad name', () => {
    expect(unsafeInputIssue({ metadata: { 'k\u0000': 1 } }, 'body')).toMatchObject({
      field: 'metadata',
      message: expect.stringMatching(/property name/),
    });
    expect(unsafeInputIssue({ '\ud800': 1 }, 'querystring')).toMatchObject({ field: 'querystring' });
  });

  it('refuses non-finite numbers (1e999 parses as Infinity) and nesting past the limit', () => {
    expect(unsafeInputIssue({ amount: Infinity }, 'body')).toMatchObject({ field: 'amount', message: 'must be a finite number' });
    let deep: unknown = 'x';
    for (let i = 0; i < MAX_DEPTH + 1; i++) deep = [deep];
    expect(unsafeInputIssue({ metadata: deep }, 'body')?.message).toMatch(/nests deeper/);
    // A body nested far deeper than the stack would allow a recursive walk stops at the limit.
    let huge: unknown = 1;
    for (let i = 0; i < 100_000; i++) huge = { a: huge };
    expect(unsafeInputIssue(huge, 'body')?.message).toMatch(/nests deeper/);
  });

  it('passes ordinary requests, null-prototype objects (parsed query strings) and allowed depth', () => {
    const query = Object.assign(Object.create(null), { page: '1', assets: ['USDC', 'USDT'] });
    expect(unsafeInputIssue(query, 'querystring')).toBeNull();
    expect(unsafeInputIssue({ name: 'ok', amount: '1.5', n: 2, b: true, z: null, metadata: { '😀': ['é'] } }, 'body')).toBeNull();
    let deep: unknown = 'x';
    for (let i = 0; i < MAX_DEPTH - 1; i++) deep = [deep];
    expect(unsafeInputIssue(deep, 'body')).toBeNull();
    expect(unsafeInputIssue(undefined, 'body')).toBeNull();
  });
});
