import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, aliasSchema, ok } from '../../lib/schema.js';
import type { AuthContext } from '../apikeys/service.js';
import { WalletParams } from '../wallets/schemas.js';
import { AddressParams } from '../addresses/schemas.js';
import { TransactionSchema } from '../transactions/schemas.js';
import { lifecycleRoutes } from './lifecycle-routes.js';
import type { WithdrawalService } from './service.js';
import { GAS_HELP, IdempotencyHeaders, NetworkFeeSchema, WithdrawBody } from './schemas.js';

/** `/v1/wallets/:walletId/...` as the OpenAPI document writes it (`{walletId}`). */
const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

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
        description: `${BODY_HELP} ${GAS_HELP} Returns PENDING WITHDRAW transactions; \`withdraw.success\` or \`withdraw.failed\` follows.`,
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
        description: `${BODY_HELP} ${GAS_HELP} The child address pays the network fee in the native coin.`,
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

  // Sign-only, from the master (the child's twin) and from a child address; `/sign-only`
  // is the described service's other spelling of each (an alias, one handler).
  for (const scope of ['wallet', 'address'] as const) {
    const child = scope === 'address';
    const path = child ? '/v1/wallets/:walletId/addresses/:addressId/withdraw/sign' : '/v1/wallets/:walletId/withdraw/sign';
    const schema = {
      tags,
      summary: child
        ? 'Sign a withdrawal from a child address without broadcasting it'
        : 'Sign a withdrawal from the master address without broadcasting it',
      description: `${BODY_HELP} ${GAS_HELP} Returns SUCCESS SIGNED transactions whose \`signedTransaction\` is the raw signed transaction; on EVM chains it uses the ${child ? "address's" : "master address's"} next nonce without reserving it; on Tron it is the hex of the signed \`Transaction\` that \`/wallet/broadcasthex\` takes (\`hash\` is its txID), built with the node's expiration (about 60 s): broadcast it before then; \`signed.success\` follows.`,
      params: child ? AddressParams : WalletParams,
      headers: IdempotencyHeaders,
      body: WithdrawBody,
      response: { 200: result },
    };
    const handler = async (req: {
      auth: AuthContext;
      params: { walletId: string; addressId?: string };
      headers: { 'idempotency-key'?: string };
      body: WithdrawBody;
    }) =>
      ok(
        await service.sign(req.auth, {
          walletId: req.params.walletId,
          addressId: req.params.addressId ?? null,
          body: req.body,
          idempotencyKey: req.headers['idempotency-key'],
        }),
        'Transaction signed successfully',
      );
    app.post(path, { schema }, handler);
    app.post(`${path}-only`, { schema: aliasSchema(schema, openApiPath(path)) }, handler);
  }

  const fee = Envelope(NetworkFeeSchema);
  const FEE_HELP = `Extension. Same body as the withdrawal (${GAS_HELP}) \`networkFee\` (gas limit x fee cap, summed) and \`nativeBalance\` in the native coin; \`nativeBalanceInUSD\` is null while no rate source prices the native coin. A batch (\`assets\`) adds \`fees\` per item in request order and \`totalNetworkFee\`. \`fee\` and \`balance\` are deprecated aliases of \`networkFee\` and \`nativeBalance\`, kept for one version.`;
  app.post(
    '/v1/wallets/:walletId/withdraw/network-fee',
    {
      schema: {
        tags,
        summary: 'Estimate the network fee of a master-wallet withdrawal',
        description: FEE_HELP,
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
        description: FEE_HELP,
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
