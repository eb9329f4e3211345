import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { TransactionSchema } from '../transactions/schemas.js';
import type { SigningService } from './service.js';
import { TypedDataBody } from './schemas.js';

export const signingRoutes: FastifyPluginAsyncTypebox<{ service: SigningService }> = async (app, { service }) => {
  app.post(
    '/v1/wallets/:walletId/signing/typed-data',
    {
      schema: {
        tags: ['Signing'],
        summary: 'Sign EIP-712 typed data with the master key',
        description:
          'Returns a SIGNED Transaction (SUCCESS, confirmed) whose `signedTransaction` is `{ r, s, signature, v }`, recoverable to the master address; `signed.success` is emitted. 400 (nothing written) for malformed types, unknown referenced types, bad Solidity types, domain or message values that do not fit their types, and a primary type that cannot be inferred.',
        params: WalletParams,
        body: TypedDataBody,
        response: { 200: Envelope(Type.Ref(TransactionSchema)) },
      },
    },
    async (req) => ok(await service.signTypedData(req.auth, req.params.walletId, req.body), 'Typed data signed successfully'),
  );
};
