/**
 * Cancel and retry of a withdrawal: the body form (`POST .../transactions/cancel { id }`)
 * and the path form the described service's clients call
 * (`POST .../transactions/{transactionsId}/cancel`, deprecated alias), one handler each.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Envelope, Uuid, aliasSchema, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { TransactionSchema } from '../transactions/schemas.js';
import type { WithdrawalService } from './service.js';
import { TransactionIdBody } from './schemas.js';

const PathParams = Type.Object({ walletId: Uuid('master wallet id'), transactionsId: Uuid('transaction id') });
const EmptyBody = Type.Object({}, { additionalProperties: false });

export function lifecycleRoutes(app: FastifyInstance, service: WithdrawalService): void {
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();
  const response = { 200: Envelope(Type.Ref(TransactionSchema)) };
  const forms = [
    {
      action: 'cancel',
      summary: 'Cancel a pending withdrawal',
      description:
        'Not yet broadcast: CANCELLED at once. Broadcast but not mined: a 0-value self-transfer with the same nonce and fees raised by at least 10% is sent; the withdrawal becomes CANCELLED when it is mined (or SUCCESS if the withdrawal is mined first, or if a reorganisation replaces the mined cancellation with the withdrawal before the cancellation is final). 409 when mined, failed or already cancelled, and when broadcast on a chain without nonces (Tron, Solana: there a sent transaction lands or expires).',
      run: async (auth: FastifyRequest['auth'], walletId: string, id: string) => {
        const r = await service.lifecycle.cancel(auth, walletId, id);
        return ok(r.transaction, r.pending ? 'Transaction cancellation submitted successfully' : 'Transaction cancelled successfully');
      },
    },
    {
      action: 'retry',
      summary: 'Retry a failed or stuck withdrawal',
      description:
        'FAILED: sent again with a new nonce and fees raised by at least 10%, after the balance check of a new withdrawal; PENDING and broadcast: replaced now with the same nonce and fees raised by at least 10%. The transaction is PENDING again. 409 when mined or cancelled; on a chain without nonces (Tron, Solana) a PENDING one is not replaced (409) but rebuilt and signed again automatically if it expires unmined.',
      run: async (auth: FastifyRequest['auth'], walletId: string, id: string) =>
        ok((await service.lifecycle.retry(auth, walletId, id)).transaction, 'Transaction retried successfully'),
    },
  ];
  for (const f of forms) {
    const schema = {
      tags: ['Transactions'],
      summary: f.summary,
      description: f.description,
      params: WalletParams,
      body: TransactionIdBody,
      response,
    };
    typed.post(`/v1/wallets/:walletId/transactions/${f.action}`, { schema }, async (req) =>
      f.run(req.auth, req.params.walletId, req.body.id),
    );
    typed.post(
      `/v1/wallets/:walletId/transactions/:transactionsId/${f.action}`,
      {
        preValidation: async (req) => {
          req.body ??= {};
        },
        schema: aliasSchema({ ...schema, params: PathParams, body: EmptyBody }, `POST /v1/wallets/{walletId}/transactions/${f.action}`),
      },
      async (req) => f.run(req.auth, req.params.walletId, req.params.transactionsId),
    );
  }
}
