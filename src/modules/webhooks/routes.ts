import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Envelope, PagedEnvelope, aliasSchema, ok } from '../../lib/schema.js';
import { TransactionSchema } from '../transactions/schemas.js';
import { WalletParams } from '../wallets/schemas.js';
import type { WebhookService } from './service.js';
import {
  NewWebhookSecretSchema,
  ResendBody,
  RotateSecretBody,
  TransactionWebhooksParams,
  WalletWebhooksQuery,
  WebhookLogEntrySchema,
  WebhookSecretStatusSchema,
} from './schemas.js';

/** The path forms carry no body: none, or `{}`. */
const EmptyBody = Type.Object({}, { additionalProperties: false });
const noBody = async (req: FastifyRequest) => {
  req.body ??= {};
};

export const webhookRoutes: FastifyPluginAsyncTypebox<{ webhooks: WebhookService }> = async (app, { webhooks }) => {
  const entry = Type.Ref(WebhookLogEntrySchema);

  app.get(
    '/v1/wallets/:walletId/transactions/:transactionsId/webhooks',
    {
      schema: {
        tags: ['Webhooks'],
        summary: "A transaction's webhook delivery log",
        description:
          'One entry per delivery, newest first, with its attempt count, last response and (extension) every attempt in `history`.',
        params: TransactionWebhooksParams,
        response: { 200: Envelope(Type.Array(entry)) },
      },
    },
    async (req) =>
      ok(
        await webhooks.log.listForTransaction(req.auth, req.params.walletId, req.params.transactionsId),
        'Webhook logs fetched successfully',
      ),
  );

  // Resend answers the Transaction (as the described service documents), the new delivery
  // beside it in `webhookLog`. The path form takes the transaction from the path.
  const resendSchema = {
    tags: ['Webhooks'],
    summary: "Resend a transaction's latest event",
    description:
      'Creates a new delivery (a new log entry) of the latest event of the transaction. Answers the Transaction in `data` and the new delivery in `webhookLog`. The receiver may process an already completed transaction again.',
    params: WalletParams,
    body: ResendBody,
    response: {
      200: Type.Object({ data: Type.Ref(TransactionSchema), webhookLog: entry, message: Type.String(), statusCode: Type.Literal(200) }),
    },
  };
  const resend = async (auth: FastifyRequest['auth'], walletId: string, transactionId: string) => {
    const { transaction, webhookLog } = await webhooks.log.resendTransaction(auth, walletId, transactionId);
    return ok(transaction, 'Webhook resent successfully', { webhookLog });
  };
  app.post('/v1/wallets/:walletId/transactions/webhooks/resend', { schema: resendSchema }, async (req) =>
    resend(req.auth, req.params.walletId, req.body.id),
  );
  app.post(
    '/v1/wallets/:walletId/transactions/:transactionsId/resend-webhook',
    {
      preValidation: noBody,
      schema: aliasSchema(
        { ...resendSchema, params: TransactionWebhooksParams, body: EmptyBody },
        'POST /v1/wallets/{walletId}/transactions/webhooks/resend',
      ),
    },
    async (req) => resend(req.auth, req.params.walletId, req.params.transactionsId),
  );

  const logSchema = {
    tags: ['Webhooks'],
    summary: 'Every webhook delivery of a wallet',
    description: 'Extension. Newest first, paginated.',
    params: WalletParams,
    querystring: WalletWebhooksQuery,
    response: { 200: PagedEnvelope(entry) },
  };
  const walletLog = async (req: FastifyRequest<{ Params: { walletId: string }; Querystring: { page?: number; limit?: number } }>) => {
    const { page = 1, limit = 100 } = req.query;
    const { items, meta } = await webhooks.log.listForWallet(req.auth, req.params.walletId, page, limit);
    return ok(items, 'Webhook logs fetched successfully', { meta });
  };
  app.get('/v1/wallets/:walletId/webhooks', { schema: logSchema }, walletLog);
  app.get('/v1/wallets/:walletId/webhook-logs', { schema: aliasSchema(logSchema, 'GET /v1/wallets/{walletId}/webhooks') }, walletLog);

  app.post(
    '/v1/wallets/:walletId/webhooks/test',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Send a signed test event',
        description:
          "Extension. Delivers a `webhook.test` event to the wallet's webhook URL through the normal pipeline (signatures, retries, log) and returns its log entry.",
        params: WalletParams,
        response: { 200: Envelope(entry) },
      },
    },
    async (req) => ok(await webhooks.log.sendTest(req.auth, req.params.walletId), 'Test event queued'),
  );

  app.get(
    '/v1/wallets/:walletId/webhooks/secret',
    {
      schema: {
        tags: ['Webhooks'],
        summary: "The wallet's webhook signing secret: whether it exists and what signs now",
        description: 'Extension. Never returns the secret itself. Without a secret, `webhook-signature` is keyed with the API key.',
        params: WalletParams,
        response: { 200: Envelope(WebhookSecretStatusSchema) },
      },
    },
    async (req) => ok(await webhooks.secrets.status(req.auth, req.params.walletId), 'Webhook secret status fetched successfully'),
  );

  app.post(
    '/v1/wallets/:walletId/webhooks/secret',
    {
      schema: {
        tags: ['Webhooks'],
        summary: 'Create or rotate the webhook signing secret',
        description:
          'Extension. Returns a new `whsec_` secret, shown only in this response. `webhook-signature` is keyed with it from the next attempt on; ' +
          'the previous secret (or, the first time, the API key) keeps signing beside it for `overlapSeconds` (default 86400), ' +
          'so the header carries both signatures, space-separated. `x-service-signature` stays keyed with the API key. The body is optional.',
        params: WalletParams,
        body: RotateSecretBody,
        response: { 200: Envelope(NewWebhookSecretSchema) },
      },
      // The body is optional: no body means the defaults.
      preValidation: async (req) => {
        req.body ??= {};
      },
    },
    async (req, reply) => {
      const created = await webhooks.secrets.rotate(req.auth, req.params.walletId, req.body.overlapSeconds);
      void reply.header('cache-control', 'no-store');
      return ok(created, 'Webhook secret created; it is not shown again');
    },
  );
};
