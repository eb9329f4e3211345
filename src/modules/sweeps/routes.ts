import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, Uuid, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { TransactionSchema } from '../transactions/schemas.js';
import type { SweepService } from './service.js';

export const sweepRoutes: FastifyPluginAsyncTypebox<{ sweeps: SweepService }> = async (app, { sweeps }) => {
  app.post(
    '/v1/wallets/:walletId/transactions/sweep/assets',
    {
      schema: {
        tags: ['Deposits'],
        summary: 'Sweep a deposit to the master address now',
        description:
          "Extension. For a confirmed deposit to a child address that is not swept yet (auto-sweep off, below its threshold, or a failed sweep). Moves the address's whole balance of the asset; `deposit.swept.success` or `.failed` follows. 409 when already swept or not confirmed; 422 for deposits on the master or an external address.",
        params: WalletParams,
        body: Type.Object({ transactionId: Uuid('the deposit transaction id') }, { additionalProperties: false }),
        response: { 200: Envelope(Type.Ref(TransactionSchema)) },
      },
    },
    async (req) => ok(await sweeps.manualSweep(req.auth, req.params.walletId, req.body.transactionId), 'Sweep started'),
  );
};
