import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Nullable, PagedEnvelope, PageQuery, Timestamp, Uuid, ok } from '../../lib/schema.js';
import { BeneficiaryParams } from '../beneficiaries/schemas.js';
import type { SettlementService } from './service.js';

const RunSchema = Type.Object({
  id: Uuid(),
  beneficiaryId: Uuid(),
  period: Type.String({
    description: "'DAILY:2026-01-01', 'WEEKLY:2025-12-29', 'MONTHLY:2026-01', 'YEARLY:2026', or 'deposit:<id>' for INSTANT",
  }),
  status: Type.Union(['pending', 'done', 'nothing', 'failed'].map((s) => Type.Literal(s))),
  transactionIds: Type.Array(Uuid(), { description: 'the WITHDRAW transactions the run created' }),
  error: Nullable(Type.String()),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const settlementRoutes: FastifyPluginAsyncTypebox<{ settlements: SettlementService }> = async (app, { settlements }) => {
  app.get(
    '/v1/wallets/:walletId/beneficiaries/:id/settlements',
    {
      schema: {
        tags: ['Beneficiaries'],
        summary: "A settlement beneficiary's settlement runs",
        description: 'Extension. Newest first, paginated. A run is one period (or, for INSTANT, one deposit) settled once.',
        params: BeneficiaryParams,
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: PagedEnvelope(RunSchema) },
      },
    },
    async (req) => {
      const { page = 1, limit = 100 } = req.query;
      const { items, meta } = await settlements.list(req.auth, req.params.walletId, req.params.id, page, limit);
      return ok(items, 'Settlements fetched successfully', { meta });
    },
  );
};
