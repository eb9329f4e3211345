import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, PagedEnvelope, PageQuery, Uuid, ok } from '../../lib/schema.js';
import type { CatalogueService } from './service.js';
import { AssetSchema, BlockchainSchema } from './schemas.js';

const AssetListQuery = Type.Object(
  {
    network: Type.Optional(Type.Union([Type.Literal('mainnet'), Type.Literal('testnet')])),
    symbol: Type.Optional(Type.String({ minLength: 1, maxLength: 16, description: 'any letter case' })),
    blockchainId: Type.Optional(Uuid("a blockchain's id (GET /v1/blockchains)")),
    ...PageQuery,
  },
  { additionalProperties: false, examples: [{ network: 'testnet', symbol: 'USDT', page: 1, limit: 20 }] },
);

export const catalogueRoutes: FastifyPluginAsyncTypebox<{ catalogue: CatalogueService }> = async (app, { catalogue }) => {
  app.get(
    '/v1/blockchains',
    {
      schema: {
        tags: ['Blockchains'],
        summary: 'List supported blockchains',
        description: 'Every blockchain of the catalogue; `isActive` tells whether this installation has it configured.',
        response: { 200: Envelope(Type.Array(Type.Ref(BlockchainSchema))) },
      },
    },
    async () => ok(await catalogue.listBlockchains(), 'Blockchains fetched successfully'),
  );

  app.get(
    '/v1/assets',
    {
      schema: {
        tags: ['Blockchains'],
        summary: 'List supported assets',
        description:
          'The assets this installation supports on its configured chains (the ids that `POST /v1/wallets/{walletId}/assets` enables). Filters `network`, `symbol`, `blockchainId`; paginated.',
        querystring: AssetListQuery,
        response: { 200: PagedEnvelope(Type.Ref(AssetSchema)) },
      },
    },
    async (req) => {
      const { page = 1, limit = 100, ...filter } = req.query;
      const { items, meta } = catalogue.listAssets(filter, page, limit);
      return ok(items, 'Assets fetched successfully', { meta });
    },
  );
};
