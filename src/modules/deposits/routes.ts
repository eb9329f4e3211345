import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Envelope, aliasSchema, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { TransactionSchema } from '../transactions/schemas.js';
import { rescanTarget, type DepositService } from './service.js';

export const RescanBody = Type.Object(
  {
    transactionHash: Type.Optional(
      Type.String({
        // Hex on most families; an ed25519 family's transaction may be named by its first signature (base58).
        pattern: '^((0x)?[0-9a-fA-F]{64}|[1-9A-HJ-NP-Za-km-z]{64,88})$',
        description:
          'a mined transaction: its hash (EVM) or txID (Tron), 64 hex digits with or without 0x, or its signature (Solana), 64 to 88 base58 characters',
      }),
    ),
    blockNumber: Type.Optional(
      Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^[0-9]{1,20}$' })], {
        description: 'a block: its deposits to the wallet are recorded (a number, or its decimal text)',
      }),
    ),
  },
  { additionalProperties: false, description: 'exactly one of transactionHash and blockNumber' },
);

export const depositRoutes: FastifyPluginAsyncTypebox<{ deposits: DepositService }> = async (app, { deposits }) => {
  const schema = {
    tags: ['Deposits'],
    summary: 'Find missed deposits by transaction hash or block',
    description:
      'Records the deposits to this wallet (master or child addresses, enabled assets) made by a mined transaction (`transactionHash`) or in a block (`blockNumber`), if they are not recorded yet, and returns them. Idempotent. Exactly one of the two fields (400 naming both otherwise). 422 `TRANSACTION_NOT_FOUND` / `NO_DEPOSIT_FOUND` for a hash; a block without deposits to the wallet answers []; 422 `BLOCK_NOT_FOUND` beyond the head.',
    params: WalletParams,
    body: RescanBody,
    response: { 200: Envelope(Type.Array(Type.Ref(TransactionSchema))) },
  };
  const handler = async (req: FastifyRequest<{ Params: { walletId: string }; Body: Parameters<typeof rescanTarget>[0] }>) => {
    const target = rescanTarget(req.body);
    const found =
      'hash' in target
        ? await deposits.rescan(req.auth, req.params.walletId, target.hash)
        : await deposits.rescanBlock(req.auth, req.params.walletId, target.block);
    return ok(found, 'Deposits found');
  };
  app.post('/v1/wallets/:walletId/rescan/blocks', { schema }, handler);
  app.post('/v1/wallets/:walletId/deposit-finder', { schema: aliasSchema(schema, 'POST /v1/wallets/{walletId}/rescan/blocks') }, handler);
};
