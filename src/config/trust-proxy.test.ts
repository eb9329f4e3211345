import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig as load } from './index.ts';
import { parseTrustProxy } from './trust-proxy.ts';

/** No chain family takes part: TRUST_PROXY is no chain setting (the families are the composition root's). */
const loadConfig = (env: NodeJS.ProcessEnv) => load(env, []);

describe('TRUST_PROXY', () => {
  it("takes Fastify's trustProxy forms: off by default, true, a hop count, or addresses and CIDR ranges", () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: '0' }).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '127.0.0.1, 10.0.0.0/8,::1,fd00::/8' }).trustProxy).toEqual([
      '127.0.0.1',
      '10.0.0.0/8',
      '::1',
      'fd00::/8',
    ]);
  });

  it('refuses anything else, naming the setting', () => {
    for (const bad of ['maybe', '10.0.0.0/33', '10.0.0.1,proxy.local', '1.2.3.4/8/9', '101', 'fd00::/129']) {
      expect(parseTrustProxy(bad)).toHaveProperty('problem');
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(ConfigError);
      expect(() => loadConfig({ TRUST_PROXY: bad })).toThrow(/TRUST_PROXY/);
    }
  });
});
