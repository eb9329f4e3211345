import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, PagedEnvelope, PageQuery, ok } from '../../lib/schema.js';
import type { WalletService } from './service.js';
import { WalletDetailSchema } from './details.js';
import { CreateWalletBody, RegeneratedKeySchema, UpdateWalletBody, WalletParams, WalletSchema, WalletWithKeySchema } from './schemas.js';

export const walletRoutes: FastifyPluginAsyncTypebox<{ wallets: WalletService }> = async (app, { wallets }) => {
  app.post(
    '/v1/wallets',
    {
      schema: {
        tags: ['Wallets'],
        summary: 'Create a master wallet (business key)',
        description:
          "Extension. Creates a master wallet on a configured blockchain and network and returns its API key once. The wallet's key carries the restrictions of the key that created it (`apiKeyScopes`); a READ_ONLY key creates none.",
        body: CreateWalletBody,
        response: { 200: Envelope(WalletWithKeySchema) },
      },
    },
    async (req) => {
      const { wallet, apiKey, apiKeyScopes } = await wallets.create(req.auth, req.body);
      return ok({ ...wallet, apiKey, apiKeyScopes }, 'Wallet created successfully');
    },
  );

  app.get(
    '/v1/wallets',
    {
      schema: {
        tags: ['Wallets'],
        summary: 'List master wallets (business key)',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: PagedEnvelope(Type.Ref(WalletSchema)) },
      },
    },
    async (req) => {
      const { page = 1, limit = 100 } = req.query;
      const { items, meta } = await wallets.list(req.auth, page, limit);
      return ok(items, 'Wallets fetched successfully', { meta });
    },
  );

  app.get(
    '/v1/wallets/:walletId',
    {
      schema: {
        tags: ['Wallets'],
        summary: 'Get a master wallet',
        description: 'With `assets` (the wallet assets) and `analytics` (address counts, transactions by type and status).',
        params: WalletParams,
        response: { 200: Envelope(WalletDetailSchema) },
      },
    },
    async (req) => ok(await wallets.get(req.auth, req.params.walletId), 'Wallet fetched successfully'),
  );

  app.patch(
    '/v1/wallets/:walletId',
    {
      schema: {
        tags: ['Wallets'],
        summary: 'Update a master wallet',
        description:
          'Partial update of name, description, isActive and configurations (deep-merged). Any key may deactivate the wallet; reactivating a deactivated one needs the business key (403 for a wallet key). Answers the wallet as GET does (with `assets` and `analytics`).',
        params: WalletParams,
        body: UpdateWalletBody,
        response: { 200: Envelope(WalletDetailSchema) },
      },
    },
    async (req) => ok(await wallets.update(req.auth, req.params.walletId, req.body), 'Wallet updated successfully'),
  );

  app.post(
    '/v1/wallets/:walletId/api-key/regenerate',
    {
      schema: {
        tags: ['Wallets'],
        summary: "Regenerate a wallet's API key (business key)",
        description:
          'The previous key stops working at once. The new key is shown only in this response; it carries the restrictions of the key that asked for it (`scopes`).',
        params: WalletParams,
        response: { 200: Envelope(RegeneratedKeySchema) },
      },
    },
    async (req) => ok(await wallets.regenerateKey(req.auth, req.params.walletId), 'API key regenerated successfully'),
  );
};
