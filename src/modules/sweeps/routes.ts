import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Envelope, Uuid, aliasSchema, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { TransactionSchema } from '../transactions/schemas.js';
import type { SweepService } from './service.js';

const CANONICAL = 'POST /v1/wallets/{walletId}/transactions/sweep/assets';

export const sweepRoutes: FastifyPluginAsyncTypebox<{ sweeps: SweepService }> = async (app, { sweeps }) => {
  const schema = {
    tags: ['Deposits'],
    summary: 'Sweep a deposit to the master address now',
    description:
      "Extension. For a confirmed deposit to a child address (or an address whose key was imported) that is not swept yet (auto-sweep off, below its threshold, or a failed sweep). Moves the address's whole balance of the asset; `deposit.swept.success` or `.failed` follows. 409 when already swept or not confirmed; 422 for deposits on the master or an external address.",
    params: WalletParams,
    body: Type.Object({ transactionId: Uuid('the deposit transaction id') }, { additionalProperties: false }),
    response: { 200: Envelope(Type.Ref(TransactionSchema)) },
  };
  const sweep = async (auth: FastifyRequest['auth'], walletId: string, transactionId: string) =>
    ok(await sweeps.manualSweep(auth, walletId, transactionId), 'Sweep started');

  app.post('/v1/wallets/:walletId/transactions/sweep/assets', { schema }, async (req) =>
    sweep(req.auth, req.params.walletId, req.body.transactionId),
  );
  app.post('/v1/wallets/:walletId/sweep/assets', { schema: aliasSchema(schema, CANONICAL) }, async (req) =>
    sweep(req.auth, req.params.walletId, req.body.transactionId),
  );
  // The transaction from the path; no body, or `{}`.
  app.post(
    '/v1/wallets/:walletId/transactions/:transactionsId/sweep',
    {
      preValidation: async (req) => {
        req.body ??= {};
      },
      schema: aliasSchema(
        {
          ...schema,
          params: Type.Object({ walletId: Uuid('master wallet id'), transactionsId: Uuid('the deposit transaction id') }),
          body: Type.Object({}, { additionalProperties: false }),
        },
        CANONICAL,
      ),
    },
    async (req) => sweep(req.auth, req.params.walletId, req.params.transactionsId),
  );
};
