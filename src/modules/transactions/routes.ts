import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, PagedEnvelope, Uuid, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { AddressParams } from '../addresses/schemas.js';
import type { TransactionService } from './service.js';
import { TransactionListQuery, TransactionSchema } from './schemas.js';

export const transactionRoutes: FastifyPluginAsyncTypebox<{ transactions: TransactionService }> = async (app, { transactions }) => {
  const tx = Type.Ref(TransactionSchema);
  const description =
    'Filters: id, hash, status (PENDING, SUCCESS, FAILED, CANCELLED), type, assets (comma-separated symbols), reference, startDate and endDate (ISO 8601, inclusive); order DESC (default) or ASC by creation time; page and limit (max 100).';

  app.get(
    '/v1/wallets/:walletId/addresses/:addressId/transactions',
    {
      schema: {
        tags: ['Transactions'],
        summary: "A child address's transactions",
        description,
        params: AddressParams,
        querystring: TransactionListQuery,
        response: { 200: PagedEnvelope(tx) },
      },
    },
    async (req) => {
      const { items, meta } = await transactions.list(req.auth, req.params.walletId, req.query, req.params.addressId);
      return ok(items, 'Transactions fetched successfully', { meta });
    },
  );

  app.get(
    '/v1/wallets/:walletId/transactions',
    {
      schema: {
        tags: ['Transactions'],
        summary: "A wallet's transactions",
        description: `Extension. ${description}`,
        params: WalletParams,
        querystring: TransactionListQuery,
        response: { 200: PagedEnvelope(tx) },
      },
    },
    async (req) => {
      const { items, meta } = await transactions.list(req.auth, req.params.walletId, req.query);
      return ok(items, 'Transactions fetched successfully', { meta });
    },
  );

  app.get(
    '/v1/wallets/:walletId/transactions/:transactionsId',
    {
      schema: {
        tags: ['Transactions'],
        summary: 'One transaction',
        description: 'Extension.',
        params: Type.Object({ walletId: Uuid('master wallet id'), transactionsId: Uuid('transaction id') }),
        response: { 200: Envelope(tx) },
      },
    },
    async (req) => ok(await transactions.get(req.auth, req.params.walletId, req.params.transactionsId), 'Transaction fetched successfully'),
  );
};
