import { Type } from '@sinclair/typebox';
import { Nullable, PageQuery, Timestamp, Uuid } from '../../lib/schema.js';
import { API_KEY_SCOPES } from './scopes.js';

/** A restriction of a key (scopes.ts); a key created by a restricted key keeps its creator's. */
export const ApiKeyScopeSchema = Type.Union(
  API_KEY_SCOPES.map((s) => Type.Literal(s)),
  {
    description:
      "Restrictions: READ_ONLY: GET requests only, no key export, creates no key. NO_KEY_EXPORT: never `showPrivateKey`. A key created by a restricted key carries its creator's restrictions. Grants (only the operator gives them, with the `api-key` command; asking for one here is a 403 `KEY_GRANT_NOT_ALLOWED`): APPROVE: vote on approvals it is listed for; MANAGE_POLICIES: create, change and delete transaction policies.",
  },
);
const Scope = ApiKeyScopeSchema;

const RateLimit = Type.Integer({
  minimum: 0,
  maximum: 1_000_000,
  description: 'requests per second for this key, per instance; 0 = unlimited; null = the installation default (API_KEY_RATE_LIMIT)',
});

const keyProps = {
  id: Uuid(),
  name: Type.String(),
  prefix: Type.String({ description: 'the first characters of the key, to recognise it' }),
  scopes: Type.Array(Scope),
  rateLimit: Nullable(RateLimit),
  createdAt: Timestamp,
  lastUsedAt: Nullable(Type.String({ format: 'date-time', description: 'written every 30 s at most, so up to 30 s old' })),
  revokedAt: Nullable(Timestamp),
};

/** A business key as listed: never the key itself or its hash. */
export const ApiKeySchema = Type.Object(keyProps, { $id: 'ApiKey' });

/** The key in clear: only in the response that creates it. */
export const CreatedApiKeySchema = Type.Object({
  ...keyProps,
  apiKey: Type.String({ description: 'shown once; store it now' }),
});

export const CreateApiKeyBody = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 100, description: 'a label for people' })),
    scopes: Type.Optional(Type.Array(Scope, { uniqueItems: true, maxItems: API_KEY_SCOPES.length })),
    rateLimit: Type.Optional(Nullable(RateLimit)),
  },
  { additionalProperties: false },
);

export const ApiKeyParams = Type.Object({ keyId: Uuid('API key id') });

export const ListApiKeysQuery = Type.Object(
  {
    ...PageQuery,
    includeRevoked: Type.Optional(Type.Boolean({ default: false, description: 'also list revoked keys' })),
  },
  { additionalProperties: false },
);
