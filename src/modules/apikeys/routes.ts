/** Business API keys: create (shown once), list, get and revoke, with a business key. */
import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, PagedEnvelope, ok } from '../../lib/schema.js';
import type { ApiKeyService } from './service.js';
import { ApiKeyParams, ApiKeySchema, CreateApiKeyBody, CreatedApiKeySchema, ListApiKeysQuery } from './schemas.js';

export const apiKeyRoutes: FastifyPluginAsyncTypebox<{ apiKeys: ApiKeyService }> = async (app, { apiKeys }) => {
  app.post(
    '/v1/api-keys',
    {
      // Every field is optional: a POST without a body creates an unrestricted key.
      preValidation: async (req) => {
        req.body ??= {};
      },
      schema: {
        tags: ['API keys'],
        summary: 'Create a business API key (business key without restrictions)',
        description:
          'Extension. A business may hold several live business keys. The key is shown only in this response; afterwards only its prefix is listed.',
        body: CreateApiKeyBody,
        response: { 200: Envelope(CreatedApiKeySchema) },
      },
    },
    async (req) => ok(await apiKeys.createBusinessKey(req.auth, req.body), 'API key created successfully'),
  );

  app.get(
    '/v1/api-keys',
    {
      schema: {
        tags: ['API keys'],
        summary: "List the business's API keys (business key)",
        description: 'Newest first: prefix, scopes, rate limit, last use. Never the keys themselves.',
        querystring: ListApiKeysQuery,
        response: { 200: PagedEnvelope(Type.Ref(ApiKeySchema)) },
      },
    },
    async (req) => {
      const { page = 1, limit = 100, includeRevoked = false } = req.query;
      const { items, meta } = await apiKeys.listBusinessKeys(req.auth, { page, limit, includeRevoked });
      return ok(items, 'API keys fetched successfully', { meta });
    },
  );

  app.get(
    '/v1/api-keys/:keyId',
    {
      schema: {
        tags: ['API keys'],
        summary: 'Get a business API key (business key)',
        params: ApiKeyParams,
        response: { 200: Envelope(Type.Ref(ApiKeySchema)) },
      },
    },
    async (req) => ok(await apiKeys.getBusinessKey(req.auth, req.params.keyId), 'API key fetched successfully'),
  );

  app.delete(
    '/v1/api-keys/:keyId',
    {
      schema: {
        tags: ['API keys'],
        summary: 'Revoke a business API key (business key without restrictions)',
        description:
          'The key is refused from the next request on by the instance that revoked it, and by every other instance within 100 ms. Revoking a revoked key changes nothing.',
        params: ApiKeyParams,
        response: { 200: Envelope(Type.Ref(ApiKeySchema)) },
      },
    },
    async (req) => ok(await apiKeys.revokeBusinessKey(req.auth, req.params.keyId), 'API key revoked successfully'),
  );
};
