/**
 * Builds the HTTP API: Fastify with TypeBox schemas, strict validation, the spec's
 * envelope and error body, API-key authentication on /v1, OpenAPI 3.1 at /openapi.json,
 * the docs page at /docs, health, readiness and metrics.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from '../lib/logger.js';
import { ErrorBody } from '../lib/schema.js';
import type { Services } from '../services.js';
import { BlockchainSchema, AssetSchema } from '../modules/catalogue/schemas.js';
import { WalletConfigurationsSchema } from '../modules/wallets/configurations.js';
import { WalletSchema } from '../modules/wallets/schemas.js';
import { AddressSchema } from '../modules/addresses/schemas.js';
import { WalletAssetSchema } from '../modules/assets/schemas.js';
import { BalanceSchema } from '../modules/balances/schemas.js';
import { catalogueRoutes } from '../modules/catalogue/routes.js';
import { walletRoutes } from '../modules/wallets/routes.js';
import { addressRoutes } from '../modules/addresses/routes.js';
import { walletAssetRoutes } from '../modules/assets/routes.js';
import { balanceRoutes } from '../modules/balances/routes.js';
import { webhookRoutes } from '../modules/webhooks/routes.js';
import { transactionRoutes } from '../modules/transactions/routes.js';
import { depositRoutes } from '../modules/deposits/routes.js';
import { sweepRoutes } from '../modules/sweeps/routes.js';
import { withdrawalsRoutes } from '../modules/withdrawals/routes.js';
import { contractsRoutes } from '../modules/contracts/routes.js';
import { signingRoutes } from '../modules/signing/routes.js';
import { autoSettlementRoutes } from '../modules/autosettlements/routes.js';
import { beneficiaryRoutes } from '../modules/beneficiaries/routes.js';
import { BeneficiarySchema } from '../modules/beneficiaries/schemas.js';
import { settlementRoutes } from '../modules/settlements/routes.js';
import { stakingRoutes } from '../modules/staking/routes.js';
import { salvageRoutes } from '../modules/salvage/routes.js';
import { swapRoutes } from '../modules/swaps/routes.js';
import { rateRoutes } from '../modules/rates/routes.js';
import { WebhookLogEntrySchema } from '../modules/webhooks/schemas.js';
import { TransactionSchema } from '../modules/transactions/schemas.js';
import { apiKeyRoutes } from '../modules/apikeys/routes.js';
import { checkoutRoutes } from '../modules/checkouts/routes.js';
import { CheckoutSchema, PaymentLinkSchema, SLUG_MAX_LENGTH } from '../modules/checkouts/schemas.js';
import { amlRoutes } from '../modules/aml/routes.js';
import { AmlScreeningSchema } from '../modules/aml/schemas.js';
import { eventFeedRoutes } from '../modules/eventfeed/routes.js';
import { EventDeliverySchema, EventSchema } from '../modules/eventfeed/schemas.js';
import { ApiKeySchema } from '../modules/apikeys/schemas.js';
import { policyRoutes } from '../modules/policies/routes.js';
import { ApprovalSchema, PolicySchema } from '../modules/policies/schemas.js';
import { errorHandler, notFoundHandler } from './errors.js';
import { ERROR_CATALOGUE } from './error-catalogue.js';
import { installValidation } from './validation.js';
import { lazySerializerFactory } from './lazy-schemas.js';
import { sharedSerializerFactory } from './serializers.js';
import { installAuth } from './auth.js';
import { installMetrics, createRegistry } from './metrics.js';
import { RequestLog } from './request-log.js';
import { installOps, type OpsOptions } from './ops.js';
import type { Registry } from 'prom-client';

export interface BuildAppOptions {
  services: Services;
  logger: Logger;
  /** Largest accepted request body; the spec's bodies are small. */
  bodyLimit?: number;
  registry?: Registry;
  version?: string;
  /** What /readyz adds for the roles this process runs (runtime.ts). */
  roleChecks?: OpsOptions['roleChecks'];
  /** Reverse proxies trusted to name the client (TRUST_PROXY, Fastify's trustProxy); default none. */
  trustProxy?: boolean | number | string[];
  /** Compile each route's schemas at its first use, not at start (test worlds; lazy-schemas.ts). */
  lazySchemas?: boolean;
}

const SHARED_SCHEMAS = [
  BlockchainSchema,
  AssetSchema,
  WalletConfigurationsSchema,
  WalletSchema,
  AddressSchema,
  WalletAssetSchema,
  BalanceSchema,
  TransactionSchema,
  AmlScreeningSchema,
  WebhookLogEntrySchema,
  BeneficiarySchema,
  ApiKeySchema,
  PolicySchema,
  ApprovalSchema,
  PaymentLinkSchema,
  CheckoutSchema,
  EventDeliverySchema,
  EventSchema,
  errorBodyWithCodes(),
];

/**
 * ErrorBody with `error` listing the catalogue's codes, so the OpenAPI document (and the
 * SDK's types generated from it) name every code a client can receive. Serialisation
 * ignores `enum`, so a code outside the list (which test/errors/catalogue.test.ts forbids)
 * would still be sent, never turned into a 500.
 */
function errorBodyWithCodes() {
  const error = { ...ErrorBody.properties.error, enum: Object.keys(ERROR_CATALOGUE) };
  return { ...ErrorBody, properties: { ...ErrorBody.properties, error } };
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** /v1 and everything under it. */
const API_PATH = /^\/v1(?:[/?#]|$)/;
const SCHEME_AND_AUTHORITY = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * The path of a request target no route matched. (A matched one is judged by its route's
 * pattern: the router decodes `/%76%31/...` to a /v1 route.) A client or a proxy may send
 * the whole URL (RFC 9112's absolute-form), which Fastify routes by its path: the answer must
 * be marked as its origin-form twin's would be.
 */
function pathOf(url: string): string {
  return url.startsWith('/') ? url : url.replace(SCHEME_AND_AUTHORITY, '');
}

export async function buildApp(opts: BuildAppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: opts.logger as unknown as FastifyBaseLogger,
    bodyLimit: opts.bodyLimit ?? 256 * 1024,
    // Honour a caller's correlation id when it is sane; otherwise make one.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    return503OnClosing: true,
    // A path the router cannot read (broken percent-encoding, a segment past maxParamLength):
    // the error envelope too, not Fastify's own body without a requestId.
    frameworkErrors: errorHandler,
    // A payment link's page is /pay/<slug>, and a slug may be up to SLUG_MAX_LENGTH characters:
    // at Fastify's default (100) the router refused a longer one (400) at the link's own url.
    routerOptions: { maxParamLength: SLUG_MAX_LENGTH },
    // No log line for requests refused by authentication (request-log.ts).
    logController: new RequestLog(),
    // A hop count as Fastify does it at runtime (its types omit numbers): the n nearest hops.
    trustProxy:
      typeof opts.trustProxy === 'number'
        ? (_address: string, hop: number) => hop < (opts.trustProxy as number)
        : (opts.trustProxy ?? false),
    schemaController: { compilersFactory: { buildSerializer: opts.lazySchemas ? lazySerializerFactory() : sharedSerializerFactory() } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The spec reads GET .../balances filters from a JSON body, so GET must parse bodies.
  app.addHttpMethod('GET', { hasBody: true, overrideExisting: true });
  installJsonParser(app);
  installValidation(app, SHARED_SCHEMAS, { lazy: opts.lazySchemas ?? false });
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // A callback hook: no promise per request.
  app.addHook('onSend', (req, reply, payload, done) => {
    void reply.header('x-request-id', req.id);
    // API answers are one tenant's data and some carry secrets (a new or regenerated API
    // key, an exported private key): no cache may keep any of them. Every /v1 answer, so
    // a new secret-bearing route cannot forget it.
    if (API_PATH.test(req.routeOptions.url ?? pathOf(req.url))) void reply.header('cache-control', 'no-store');
    done(null, payload);
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Stablecoin Wallet Service API',
        version: '1.0.0',
        description:
          'Multi-blockchain stablecoin wallet and payments API. Every /v1 request carries `x-api-key`. Successful responses are `{ data, message, statusCode: 200, meta? }`; errors are `{ statusCode, message, error, details?, requestId }`.',
      },
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } } },
      security: [{ apiKey: [] }],
    },
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => (typeof json.$id === 'string' ? json.$id : `def-${i}`) },
  });
  // Swagger UI's assets ship inside the package: the docs page works offline.
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const registry = opts.registry ?? createRegistry();
  installMetrics(app, registry);
  installOps(app, { services: opts.services, roleChecks: opts.roleChecks });

  await app.register(async (v1) => {
    await installAuth(v1, opts.services.apiKeys, registry);
    const s = opts.services;
    await v1.register(catalogueRoutes, { catalogue: s.catalogue });
    await v1.register(walletRoutes, { wallets: s.wallets });
    await v1.register(addressRoutes, { addresses: s.addresses });
    await v1.register(walletAssetRoutes, { walletAssets: s.walletAssets });
    await v1.register(balanceRoutes, { balances: s.balances });
    await v1.register(webhookRoutes, { webhooks: s.webhooks });
    await v1.register(transactionRoutes, { transactions: s.transactions });
    await v1.register(depositRoutes, { deposits: s.deposits });
    await v1.register(sweepRoutes, { sweeps: s.sweeps });
    await v1.register(withdrawalsRoutes, { service: s.withdrawals });
    await v1.register(contractsRoutes, { service: s.contracts });
    await v1.register(signingRoutes, { service: s.signing });
    await v1.register(autoSettlementRoutes, { service: s.autoSettlements });
    await v1.register(beneficiaryRoutes, { beneficiaries: s.beneficiaries });
    await v1.register(settlementRoutes, { settlements: s.settlements });
    await v1.register(stakingRoutes, { staking: s.staking });
    await v1.register(salvageRoutes, { salvage: s.salvage });
    await v1.register(swapRoutes, { swaps: s.swapApi });
    await v1.register(rateRoutes, { rates: s.rates });
    await v1.register(apiKeyRoutes, { apiKeys: s.apiKeys });
    await v1.register(policyRoutes, { policies: s.policies });
    await v1.register(checkoutRoutes, { checkouts: s.checkouts });
    await v1.register(amlRoutes, { aml: s.aml });
    await v1.register(eventFeedRoutes, { feed: s.eventFeed });
  });

  // The operator's dashboard is registered beside the API by src/server.ts (buildServer).
  return app;
}

/** JSON bodies; an empty body counts as `{}` so all-optional requests need no body. */
function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  // Fastify's text/plain parser handed the routes a string: a JSON body sent as text/plain
  // was told "body must be object" instead of 415, as every other type is.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, {});
    return parse(req, body as string, done);
  });
}
