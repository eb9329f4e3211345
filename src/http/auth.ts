/** `x-api-key` on every /v1 route: 401 without a live key, before the body is even read. */
import type { FastifyInstance } from 'fastify';
import { UnauthorizedError } from '../lib/errors.js';
import type { ApiKeyService } from '../modules/apikeys/service.js';
import { ErrorBody } from '../lib/schema.js';

export function installAuth(app: FastifyInstance, apiKeys: ApiKeyService): void {
  app.decorateRequest('auth', null as never);
  app.addHook('onRequest', async (req) => {
    const header = req.headers['x-api-key'];
    const key = Array.isArray(header) ? undefined : header;
    const auth = await apiKeys.authenticate(key);
    if (!auth) throw new UnauthorizedError(key ? 'Invalid API key' : 'Missing x-api-key header');
    req.auth = auth;
  });
  // Document the error responses every authenticated route can give.
  app.addHook('onRoute', (route) => {
    const schema = (route.schema ??= {}) as { response?: Record<string, unknown> };
    schema.response ??= {};
    for (const status of [400, 401, 404]) schema.response[status] ??= { $ref: `${ErrorBody.$id}#` };
  });
}
