import { describe, expect, it } from 'vitest';
import { parseApiKeyArgs } from './api-keys.js';

describe('api-key arguments', () => {
  it('reads create, list and revoke', () => {
    expect(
      parseApiKeyArgs([
        'create',
        '--business',
        'Acme',
        '--name',
        'ci',
        '--scope',
        'no-key-export',
        '--scope',
        'READ_ONLY',
        '--rate-limit',
        '0',
      ]),
    ).toEqual({ action: 'create', business: 'Acme', name: 'ci', scopes: ['NO_KEY_EXPORT', 'READ_ONLY'], rateLimit: 0, all: false });
    expect(parseApiKeyArgs(['list', '--business', 'Acme', '--all'])).toMatchObject({ action: 'list', all: true });
    const id = '01900000-0000-7000-8000-000000000000';
    expect(parseApiKeyArgs(['revoke', id, '--business', 'Acme'])).toMatchObject({ action: 'revoke', keyId: id });
  });

  it('explains what is wrong', () => {
    expect(parseApiKeyArgs([])).toMatch(/unknown action/);
    expect(parseApiKeyArgs(['list'])).toBe('--business is required');
    expect(parseApiKeyArgs(['create', '--business'])).toBe('--business needs a value');
    expect(parseApiKeyArgs(['create', '--business', 'A', '--rate-limit', '1.5'])).toMatch(/--rate-limit/);
    expect(parseApiKeyArgs(['create', '--business', 'A', '--scope', 'ALL'])).toMatch(/unknown scope/);
    expect(parseApiKeyArgs(['revoke', '--business', 'A'])).toMatch(/key id/);
    expect(parseApiKeyArgs(['list', '--business', 'A', '--name', 'x'])).toMatch(/unexpected argument/);
  });
});
