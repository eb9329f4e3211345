import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { AddressParams } from '../addresses/schemas.js';
import { TransactionSchema } from '../transactions/schemas.js';
import { lifecycleRoutes } from './lifecycle-routes.js';
import type { WithdrawalService } from './service.js';
import { IdempotencyHeaders, NetworkFeeSchema, WithdrawBody } from './schemas.js';

const BODY_HELP =
  'Single: top-level `assetId`, `address`, `amount` (plus optional `reference`, `note`, `metadata`). Batch: `assets` items `{ id, amount, address, reference?, note?, metadata? }` instead; every item is checked before anything is created and one bad item rejects the request; `data` is then an array in request order. A `reference` already used on the wallet returns the original transaction (409 if it names a different payment).';

export const withdrawalsRoutes: FastifyPluginAsyncTypebox<{ service: WithdrawalService }> = async (app, { service }) => {
  const tx = Type.Ref(TransactionSchema);
  const result = Envelope(Type.Union([tx, Type.Array(tx)]));
  const tags = ['Withdrawals'];

  app.post(
    '/v1/wallets/:walletId/withdraw',
    {
      schema: {
        tags,
        summary: 'Withdraw from the master wallet and broadcast',
        description: `${BODY_HELP} Returns PENDING WITHDRAW transactions; \`withdraw.success\` or \`withdraw.failed\` follows.`,
        params: WalletParams,
        headers: IdempotencyHeaders,
        body: WithdrawBody,
        response: { 200: result },
      },
    },
    async (req) =>
      ok(
        await service.withdraw(req.auth, {
          walletId: req.params.walletId,
          addressId: null,
          body: req.body,
          idempotencyKey: req.headers['idempotency-key'],
        }),
        'Withdrawal initiated successfully',
      ),
  );

  app.post(
    '/v1/wallets/:walletId/addresses/:addressId/withdraw',
    {
      schema: {
        tags,
        summary: 'Withdraw from a child address and broadcast',
        description: `${BODY_HELP} The child address pays the network fee in the native coin.`,
        params: AddressParams,
        headers: IdempotencyHeaders,
        body: WithdrawBody,
        response: { 200: result },
      },
    },
    async (req) =>
      ok(
        await service.withdraw(req.auth, {
          walletId: req.params.walletId,
          addressId: req.params.addressId,
          body: req.body,
          idempotencyKey: req.headers['idempotency-key'],
        }),
        'Withdrawal initiated successfully',
      ),
  );

  app.post(
    '/v1/wallets/:walletId/addresses/:addressId/withdraw/sign',
    {
      schema: {
        tags,
        summary: 'Sign a withdrawal from a child address without broadcasting it',
        description: `${BODY_HELP} Returns SUCCESS SIGNED transactions whose \`signedTransaction\` is the raw signed transaction; it uses the address's next nonce without reserving it.`,
        params: AddressParams,
        headers: IdempotencyHeaders,
        body: WithdrawBody,
        response: { 200: result },
      },
    },
    async (req) =>
      ok(
        await service.sign(req.auth, {
          walletId: req.params.walletId,
          addressId: req.params.addressId,
          body: req.body,
          idempotencyKey: req.headers['idempotency-key'],
        }),
        'Transaction signed successfully',
      ),
  );

  const fee = Envelope(NetworkFeeSchema);
  app.post(
    '/v1/wallets/:walletId/withdraw/network-fee',
    {
      schema: {
        tags,
        summary: 'Estimate the network fee of a master-wallet withdrawal',
        description: 'Extension. Same body as the withdrawal; `fee` (gas limit x fee cap) and `balance` in the native coin.',
        params: WalletParams,
        body: WithdrawBody,
        response: { 200: fee },
      },
    },
    async (req) =>
      ok(
        await service.networkFee(req.auth, { walletId: req.params.walletId, addressId: null, body: req.body }),
        'Network fee estimated successfully',
      ),
  );

  app.post(
    '/v1/wallets/:walletId/addresses/:addressId/withdraw/network-fee',
    {
      schema: {
        tags,
        summary: 'Estimate the network fee of a child-address withdrawal',
        description: 'Extension. Same body as the withdrawal; `fee` (gas limit x fee cap) and `balance` in the native coin.',
        params: AddressParams,
        body: WithdrawBody,
        response: { 200: fee },
      },
    },
    async (req) =>
      ok(
        await service.networkFee(req.auth, { walletId: req.params.walletId, addressId: req.params.addressId, body: req.body }),
        'Network fee estimated successfully',
      ),
  );

  // Cancel and retry, in the body form and the path form (lifecycle-routes.ts).
  lifecycleRoutes(app, service);
};
