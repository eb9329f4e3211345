import { describe, expect, it } from 'vitest';
import { redirectTarget } from './sender.js';

describe('redirectTarget', () => {
  it('keeps origin and path, never query, fragment or credentials', () => {
    expect(redirectTarget('https://user:pw@hooks.example/next?sig=abc#frag', 'https://a.example/h')).toBe('https://hooks.example/next');
  });
  it('reads a relative Location against the webhook URL', () => {
    expect(redirectTarget('/moved?token=t', 'https://a.example/h')).toBe('https://a.example/moved');
  });
  it('cuts a long path at 200 characters and says so', () => {
    const shown = redirectTarget(`https://a.example/${'p'.repeat(500)}`, 'https://a.example/h');
    expect(shown).toHaveLength(203);
    expect(shown.endsWith('...')).toBe(true);
  });
  it('names a Location that does not parse without repeating it', () => {
    expect(redirectTarget('http://[bad', 'https://a.example/h')).toBe('an address that does not parse');
  });
});
