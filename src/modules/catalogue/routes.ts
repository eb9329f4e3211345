import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import type { CatalogueService } from './service.js';
import { BlockchainSchema } from './schemas.js';

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
};
