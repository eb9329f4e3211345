import { describe, expect, it } from 'vitest';
import { START, before, formatCursor, parseCursor } from './cursor.js';
import { ValidationError } from '../../lib/errors.js';

describe('event feed cursors', () => {
  it('round-trips a position', () => {
    const p = { txid: '18446744073709551615', id: '0190f0a2-7b3c-7d4e-8f00-112233445566' };
    expect(parseCursor(formatCursor(p), 'after')).toEqual(p);
    expect(parseCursor(formatCursor(START), 'after')).toEqual(START);
    expect(formatCursor(before('42'))).toBe('42.00000000-0000-0000-0000-000000000000');
  });

  it.each([
    '',
    'abc',
    '1',
    '01.0190f0a2-7b3c-7d4e-8f00-112233445566',
    '-1.0190f0a2-7b3c-7d4e-8f00-112233445566',
    '18446744073709551616.0190f0a2-7b3c-7d4e-8f00-112233445566',
    '1.0190F0A2-7B3C-7D4E-8F00-112233445566',
    '1.0190f0a2-7b3c-7d4e-8f00-112233445566\n',
    '1.0190f0a2-7b3c-7d4e-8f00-11223344556',
    '1.\u00000190f0a2-7b3c-7d4e-8f00-112233445566',
  ])('refuses %j with a 400 naming the field', (text) => {
    expect(() => parseCursor(text, 'Last-Event-ID')).toThrow(ValidationError);
    try {
      parseCursor(text, 'Last-Event-ID');
    } catch (err) {
      expect((err as ValidationError).details?.[0]?.field).toBe('Last-Event-ID');
    }
  });
});
