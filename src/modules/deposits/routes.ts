import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { TransactionSchema } from '../transactions/schemas.js';
import type { DepositService } from './service.js';

export const depositRoutes: FastifyPluginAsyncTypebox<{ deposits: DepositService }> = async (app, { deposits }) => {
  app.post(
    '/v1/wallets/:walletId/rescan/blocks',
    {
      schema: {
        tags: ['Deposits'],
        summary: 'Find a missed deposit by transaction hash',
        description:
          'Extension. Records the deposits to this wallet (master or child addresses, enabled assets) made by a mined transaction, if they are not recorded yet, and returns them. Idempotent. 422 when the transaction is unknown or made no such deposit.',
        params: WalletParams,
        body: Type.Object({ transactionHash: Type.String({ pattern: '^0x[0-9a-fA-F]{64}$' }) }, { additionalProperties: false }),
        response: { 200: Envelope(Type.Array(Type.Ref(TransactionSchema))) },
      },
    },
    async (req) => ok(await deposits.rescan(req.auth, req.params.walletId, req.body.transactionHash), 'Deposits found'),
  );
};
