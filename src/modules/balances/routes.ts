import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { AddressParams } from '../addresses/schemas.js';
import type { BalanceService } from './service.js';
import { AssetIdQuery, BalanceFilter, BalanceSchema } from './schemas.js';

export const balanceRoutes: FastifyPluginAsyncTypebox<{ balances: BalanceService }> = async (app, { balances }) => {
  const list = Envelope(Type.Array(Type.Ref(BalanceSchema)));
  const one = Envelope(Type.Ref(BalanceSchema));

  app.get(
    '/v1/wallets/:walletId/balances',
    {
      // A HEAD twin cannot carry the body schema the spec asks for.
      exposeHeadRoute: false,
      // Most GETs carry no body at all: validate that as "no filters". (A callback hook:
      // no promise per request on the hottest read route.)
      preValidation: (req, _reply, done) => {
        req.body ??= {};
        done();
      },
      schema: {
        tags: ['Balances'],
        summary: 'Read balances on chain',
        description:
          'Filters `address` and `asset_id` come from the JSON body (as the spec has it) or the query string; both optional. Without filters: every enabled asset of the master address.',
        params: WalletParams,
        querystring: BalanceFilter,
        body: Type.Optional(BalanceFilter),
        response: { 200: list },
      },
    },
    async (req) => {
      const address = req.body?.address ?? req.query.address;
      const assetId = req.body?.asset_id ?? req.query.asset_id;
      return ok(await balances.ofWallet(req.auth, req.params.walletId, { address, assetId }), 'Balances fetched successfully');
    },
  );

  app.get(
    '/v1/wallets/:walletId/balance',
    {
      schema: {
        tags: ['Balances'],
        summary: 'Balance of one asset of the master address',
        description: "Extension. Without `assetId`: the chain's native coin (as the described service answers).",
        params: WalletParams,
        querystring: AssetIdQuery,
        response: { 200: one },
      },
    },
    async (req) => ok(await balances.one(req.auth, req.params.walletId, req.query.assetId), 'Balance fetched successfully'),
  );

  app.get(
    '/v1/wallets/:walletId/addresses/:addressId/balances',
    {
      schema: {
        tags: ['Balances'],
        summary: 'Balances of a child address',
        description: 'Extension. Every enabled asset of the wallet, read on chain for this address.',
        params: AddressParams,
        response: { 200: list },
      },
    },
    async (req) => ok(await balances.ofAddress(req.auth, req.params.walletId, req.params.addressId), 'Balances fetched successfully'),
  );

  app.get(
    '/v1/wallets/:walletId/addresses/:addressId/balance',
    {
      schema: {
        tags: ['Balances'],
        summary: 'Balance of one asset of a child address',
        description: "Extension. Without `assetId`: the chain's native coin (as the described service answers).",
        params: AddressParams,
        querystring: AssetIdQuery,
        response: { 200: one },
      },
    },
    async (req) =>
      ok(await balances.one(req.auth, req.params.walletId, req.query.assetId, req.params.addressId), 'Balance fetched successfully'),
  );
};
