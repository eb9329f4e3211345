/**
 * `x-api-key` on every /v1 route, before the body is even read: 401 without a live key,
 * 403 when the key's scopes refuse the method, 429 past a limit.
 *
 * A failed check must cost close to nothing, whatever number of addresses it comes from
 * (issue 24, item 2). The checks:
 * - the key itself, cheap refusals first (apikeys `check`): missing, not shaped like ours
 *   (no hash), known to be unknown (the negative cache: no database round trip);
 * - the failed-auth budget (`AUTH_FAILURE_BUDGET` per second, this process, all clients
 *   together), before the key's database lookup: it counts the lookups of keys that did not
 *   authenticate here lately and found nothing (requests of a key whose lookup is under way
 *   wait on it and take nothing: a new key's first burst is one lookup, one slot). Past it,
 *   until the second is over, such a
 *   key is refused (429, held like the per-address refusals) without a lookup, so a flood of
 *   random keys from any number of addresses sheds its own requests before it slows
 *   authenticated clients down; their keys are still looked up (no process keeps a good key);
 * - before both, failed authentications per client address (`AUTH_FAILURE_LIMIT` per
 *   `AUTH_FAILURE_WINDOW`, counted by @fastify/rate-limit in bounded LRU maps): past it, the
 *   address's requests are refused before their key is looked up, except a key
 *   that authenticated in this process lately (another client behind the same proxy keeps
 *   working; its key is still checked).
 * A refusal for failed authentications is held for `AUTH_FAILURE_DELAY_MS` before it is
 * sent (at most MAX_HELD at once, the rest at once): a client that waits for its answers,
 * as a guessing loop does, then sends a request per connection per delay instead of as
 * many as the instance can refuse. Refusals are not logged (request-log.ts); they are
 * counted in `api_auth_refusals_total` by reason.
 *
 * Then requests per second per key (`API_KEY_RATE_LIMIT`, or the key's own `rateLimit`).
 * Every 429 carries `Retry-After` and the IETF draft `RateLimit-*` headers; successful
 * requests carry the key's `RateLimit-*` headers too.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import { Counter, type Registry } from 'prom-client';
import { RateLimitedError, UnauthorizedError } from '../lib/errors.js';
import { assertMayWrite, type ApiKeyService, type AuthContext } from '../modules/apikeys/service.js';
import { ErrorBody } from '../lib/schema.js';
import { logAccepted, markRefused } from './request-log.js';
import { SnapshotStore } from './rate-store.js';

/** Counters kept per process; the oldest go first beyond this (a flood of addresses evicts its own). */
const LIMITER_ENTRIES = 10_000;
const KEY_WINDOW_MS = 1_000;
const SAFE_METHODS = new Set(['GET', 'HEAD']);
/** Refusals held back at once; beyond this they are sent without waiting (bounded memory). */
const MAX_HELD = 1_000;

type RefusalReason = 'missing' | 'malformed' | 'unknown' | 'address_limited' | 'shed';

/**
 * Lookups of keys that did not authenticate here lately, per second in this process, all
 * clients together: a lookup takes a slot before it starts (so lookups in flight count)
 * and gives it back when the key turns out good, so what stays spent are failed lookups.
 * A fixed one-second window (up to twice the budget across a window's edge is fine here).
 */
export class FailureBudget {
  #window = 0;
  #spent = 0;
  constructor(
    readonly perSecond: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Takes a slot; false (nothing taken) while this second's are all taken. Always true without a budget (0). */
  take(): boolean {
    if (this.perSecond <= 0) return true;
    if (this.#current() >= this.perSecond) return false;
    this.#spent++;
    return true;
  }

  /** Gives back a slot taken this second (a lookup that found a good key). */
  refund(): void {
    if (this.perSecond > 0 && this.#current() > 0) this.#spent--;
  }

  #current(): number {
    const window = Math.floor(this.now() / 1000);
    if (window !== this.#window) {
      this.#window = window;
      this.#spent = 0;
    }
    return this.#spent;
  }
}

interface Counted {
  max: number;
  remaining: number;
  timeWindow: number;
  ttl: number;
  ttlInSeconds: number;
}

function limitHeaderValues(c: Counted): Record<string, string | number> {
  return {
    'ratelimit-limit': c.max,
    'ratelimit-remaining': c.remaining,
    'ratelimit-reset': c.ttlInSeconds,
    'ratelimit-policy': `${c.max};w=${Math.max(1, Math.round(c.timeWindow / 1000))}`,
  };
}

function limitHeaders(reply: FastifyReply, c: Counted): void {
  void reply.headers(limitHeaderValues(c));
}

/**
 * An error answer (the body of errors.ts, DESIGN section 4) written on the socket at once:
 * no error object (no stack trace), no serializer, no send hooks. For the refusals a flood
 * gets by the thousand, where what a refusal costs is the point (request-log.ts already
 * keeps them out of the log). Always 429 here.
 */
function answerNow(
  req: FastifyRequest,
  reply: FastifyReply,
  code: 'AUTH_RATE_LIMITED',
  message: string,
  headers: Record<string, string | number>,
): void {
  const body = JSON.stringify({ statusCode: 429, message, error: code, requestId: req.id });
  reply.hijack();
  reply.raw.writeHead(429, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    // As app.ts's onSend hook sets them on every /v1 answer.
    'cache-control': 'no-store',
    'x-request-id': req.id,
  });
  reply.raw.end(body);
}

function refuse(reply: FastifyReply, c: Counted, code: 'RATE_LIMITED' | 'AUTH_RATE_LIMITED', what: string): never {
  const retryAfter = Math.max(1, c.ttlInSeconds);
  limitHeaders(reply, { ...c, remaining: 0, ttlInSeconds: retryAfter });
  void reply.header('retry-after', retryAfter);
  throw new RateLimitedError(code, `${what}; retry in ${retryAfter} s`, retryAfter);
}

export async function installAuth(app: FastifyInstance, apiKeys: ApiKeyService, registry?: Registry): Promise<void> {
  const { keyRate, authFailures, authFailureWindowS, authFailureDelayMs = 1_000, authFailureBudget = 0 } = apiKeys.limits;
  const refusals = new Counter({
    name: 'api_auth_refusals_total',
    help: 'API requests refused by authentication, by reason (refusals are not logged one by one)',
    labelNames: ['reason'] as const,
    registers: registry ? [registry] : [],
  });
  const budget = new FailureBudget(authFailureBudget);
  let held = 0;
  /**
   * Refuses for failed authentications (this address's, or every client's) after holding the
   * answer back a while, written on the socket itself (`answerNow`): these are the answers a
   * flood gets by the thousand.
   */
  const refuseFailures = async (req: FastifyRequest, reply: FastifyReply, c: Counted, message: string): Promise<void> => {
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
    const retryAfter = Math.max(1, c.ttlInSeconds);
    answerNow(req, reply, 'AUTH_RATE_LIMITED', `${message}; retry in ${retryAfter} s`, {
      ...limitHeaderValues({ ...c, remaining: 0, ttlInSeconds: retryAfter }),
      'retry-after': retryAfter,
    });
  };
  const refused = (req: FastifyRequest, reason: RefusalReason) => {
    markRefused(req);
    refusals.inc({ reason });
  };
  // global: false: nothing is counted by itself; the hook below decides what counts.
  await app.register(rateLimit, { global: false, enableDraftSpec: true, store: SnapshotStore as never });
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
    // A key that authenticated here lately passes the address limit and the budget (and is
    // still looked up). Hashed once for both questions.
    const probe = apiKeys.probe(key);
    const vouched = probe.refusal === null && probe.vouchedAt !== null;
    if (failures && !vouched) {
      const seen = await failures(req, { increment: false });
      if (!seen.isAllowed && seen.isExceeded) {
        refused(req, 'address_limited');
        return refuseFailures(req, reply, seen, 'Too many failed authentications from this address');
      }
    }
    // A slot is taken only by the request that starts a lookup (others of the same key wait
    // on it), and given back only by that request when the key is good.
    let took = false;
    const checked = await apiKeys.check(probe, () => vouched || (took = budget.take()));
    if (!checked.auth) {
      refused(req, checked.reason);
      if (checked.reason === 'shed') {
        const ttl = 1000 - (Date.now() % 1000);
        return refuseFailures(
          req,
          reply,
          { max: budget.perSecond, remaining: 0, timeWindow: 1000, ttl, ttlInSeconds: 1 },
          'Too many failed authentications on this instance; a key it has not seen lately must wait',
        );
      }
      const counted = failures ? await failures(req) : null;
      if (counted && !counted.isAllowed && counted.isExceeded) {
        return refuseFailures(req, reply, counted, 'Too many failed authentications from this address');
      }
      throw new UnauthorizedError(key ? 'Invalid API key' : 'Missing x-api-key header');
    }
    if (took) budget.refund();
    const auth = checked.auth;
    req.auth = auth;
    logAccepted(req);
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
