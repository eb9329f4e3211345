/**
 * `x-api-key` on every /v1 route, before the body is even read: 401 without a live key,
 * 403 when the key's scopes refuse the method, 429 past a limit.
 *
 * Two limits, counted by @fastify/rate-limit in this process's memory (bounded LRU maps;
 * a limit per instance, which is what protects the instance):
 * - failed authentications per client address (`AUTH_FAILURE_LIMIT` per
 *   `AUTH_FAILURE_WINDOW`): past it, the address's requests are refused before their key is
 *   hashed or looked up, except a key that authenticated in this process lately (another
 *   client behind the same proxy keeps working; its key is still checked). Each such
 *   refusal is held for `AUTH_FAILURE_DELAY_MS` before it is sent (at most MAX_HELD at
 *   once, the rest at once): a client that waits for its answers, as a guessing loop
 *   does, then sends a request per connection per delay instead of as many as the
 *   instance can refuse, and leaves the instance to its other clients;
 * - requests per second per key (`API_KEY_RATE_LIMIT`, or the key's own `rateLimit`).
 * Both answer 429 with `Retry-After` and the IETF draft `RateLimit-*` headers; successful
 * requests carry the key's `RateLimit-*` headers too.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { RateLimitedError, UnauthorizedError } from '../lib/errors.js';
import { assertMayWrite, type ApiKeyService, type AuthContext } from '../modules/apikeys/service.js';
import { ErrorBody } from '../lib/schema.js';

/** Counters kept per process; the oldest go first beyond this (a flood of addresses evicts its own). */
const LIMITER_ENTRIES = 10_000;
const KEY_WINDOW_MS = 1_000;
const SAFE_METHODS = new Set(['GET', 'HEAD']);
/** Refusals held back at once; beyond this they are sent without waiting (bounded memory). */
const MAX_HELD = 1_000;

interface Counted {
  max: number;
  remaining: number;
  timeWindow: number;
  ttl: number;
  ttlInSeconds: number;
}

function limitHeaders(reply: FastifyReply, c: Counted): void {
  void reply.header('ratelimit-limit', c.max);
  void reply.header('ratelimit-remaining', c.remaining);
  void reply.header('ratelimit-reset', c.ttlInSeconds);
  void reply.header('ratelimit-policy', `${c.max};w=${Math.max(1, Math.round(c.timeWindow / 1000))}`);
}

function refuse(reply: FastifyReply, c: Counted, code: 'RATE_LIMITED' | 'AUTH_RATE_LIMITED', what: string): never {
  const retryAfter = Math.max(1, c.ttlInSeconds);
  limitHeaders(reply, { ...c, remaining: 0, ttlInSeconds: retryAfter });
  void reply.header('retry-after', retryAfter);
  throw new RateLimitedError(code, `${what}; retry in ${retryAfter} s`, retryAfter);
}

export async function installAuth(app: FastifyInstance, apiKeys: ApiKeyService): Promise<void> {
  const { keyRate, authFailures, authFailureWindowS, authFailureDelayMs = 1_000 } = apiKeys.limits;
  let held = 0;
  /** Refuses an address over its failure limit, after holding the answer back a while. */
  const refuseFailures = async (reply: FastifyReply, c: Counted): Promise<never> => {
    if (authFailureDelayMs > 0 && held < MAX_HELD) {
      held++;
      try {
        await new Promise((resolve) => setTimeout(resolve, authFailureDelayMs));
      } finally {
        held--;
      }
      const ttl = Math.max(0, c.ttl - authFailureDelayMs);
      c = { ...c, ttl, ttlInSeconds: Math.ceil(ttl / 1000) };
    }
    return refuse(reply, c, 'AUTH_RATE_LIMITED', 'Too many failed authentications from this address');
  };
  // global: false: nothing is counted by itself; the hook below decides what counts.
  await app.register(rateLimit, { global: false, enableDraftSpec: true });
  // `cache` (entries of the LRU store) is passed through to the store; the types omit it.
  const failures =
    authFailures > 0
      ? app.createRateLimit({ max: authFailures, timeWindow: authFailureWindowS * 1000, cache: LIMITER_ENTRIES } as never)
      : null;
  const rateOf = (auth: AuthContext) => auth.rateLimit ?? keyRate;
  const perKey = app.createRateLimit({
    keyGenerator: (req: FastifyRequest) => req.auth.keyId,
    max: (req: FastifyRequest) => rateOf(req.auth),
    timeWindow: KEY_WINDOW_MS,
    cache: LIMITER_ENTRIES,
  } as never);

  app.decorateRequest('auth', null as never);
  app.addHook('onRequest', async (req, reply) => {
    const header = req.headers['x-api-key'];
    const key = Array.isArray(header) ? undefined : header;
    if (failures) {
      const seen = await failures(req, { increment: false });
      if (!seen.isAllowed && seen.isExceeded && !apiKeys.vouches(key)) await refuseFailures(reply, seen);
    }
    const auth = await apiKeys.authenticate(key);
    if (!auth) {
      const counted = failures ? await failures(req) : null;
      if (counted && !counted.isAllowed && counted.isExceeded) await refuseFailures(reply, counted);
      throw new UnauthorizedError(key ? 'Invalid API key' : 'Missing x-api-key header');
    }
    req.auth = auth;
    if (!SAFE_METHODS.has(req.method)) assertMayWrite(auth);
    if (rateOf(auth) > 0) {
      const counted = await perKey(req);
      if (!counted.isAllowed) {
        if (counted.isExceeded) refuse(reply, counted, 'RATE_LIMITED', 'Request rate limit of this API key reached');
        limitHeaders(reply, counted);
      }
    }
  });
  // Document the error responses every authenticated route can give.
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {}) as { response?: Record<string, unknown> };
    schema.response ??= {};
    for (const status of [400, 401, 403, 404, 429]) schema.response[status] ??= { $ref: `${ErrorBody.$id}#` };
  });
}
