import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, PageMeta, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import type { AddressService } from './service.js';
import {
  AddressParams,
  AddressSchema,
  AnalyticsSchema,
  CreateAddressBody,
  WhitelistBody,
  GetAddressQuery,
  ListAddressesQuery,
  UpdateAddressBody,
} from './schemas.js';

export const addressRoutes: FastifyPluginAsyncTypebox<{ addresses: AddressService }> = async (app, { addresses }) => {
  app.get(
    '/v1/wallets/:walletId/addresses',
    {
      schema: {
        tags: ['Addresses'],
        summary: "List a wallet's child addresses",
        description: 'Newest first, paginated, with address analytics.',
        params: WalletParams,
        querystring: ListAddressesQuery,
        response: {
          200: Type.Object({
            data: Type.Array(Type.Ref(AddressSchema)),
            analytics: AnalyticsSchema,
            meta: PageMeta,
            message: Type.String(),
            statusCode: Type.Literal(200),
          }),
        },
      },
    },
    async (req) => {
      const { page = 1, limit = 100, type, isActive } = req.query;
      const result = await addresses.list(req.auth, req.params.walletId, { page, limit, type, isActive });
      return ok(result.items, 'Addresses fetched successfully', { analytics: result.analytics, meta: result.meta });
    },
  );

  app.post(
    '/v1/wallets/:walletId/addresses',
    {
      // Every body field is optional (spec), so a POST with no body and no Content-Type is
      // "all defaults". Without this, no parser runs, the body stays undefined and the
      // object schema refused it with 400 "body must be object".
      preValidation: async (req) => {
        req.body ??= {};
      },
      schema: {
        tags: ['Addresses'],
        summary: 'Create a child deposit address',
        params: WalletParams,
        body: CreateAddressBody,
        response: { 200: Envelope(Type.Ref(AddressSchema)) },
      },
    },
    async (req) => ok(await addresses.create(req.auth, req.params.walletId, req.body), 'Address created successfully'),
  );

  app.get(
    '/v1/wallets/:walletId/addresses/:addressId',
    {
      schema: {
        tags: ['Addresses'],
        summary: 'Get a child address',
        description:
          'With `showPrivateKey=true` the response adds `privateKey`. The key is derived only then, and every export is written to the audit log. Export is off by default on mainnet.',
        params: AddressParams,
        querystring: GetAddressQuery,
        response: { 200: Envelope(Type.Ref(AddressSchema)) },
      },
    },
    async (req) =>
      ok(
        await addresses.get(req.auth, req.params.walletId, req.params.addressId, {
          showPrivateKey: req.query.showPrivateKey ?? false,
          requestId: req.id,
        }),
        'Address fetched successfully',
      ),
  );

  app.patch(
    '/v1/wallets/:walletId/addresses/:addressId',
    {
      schema: {
        tags: ['Addresses'],
        summary: 'Update a child address',
        description: 'Extension. Partial update of name, metadata, isActive and configurations.',
        params: AddressParams,
        body: UpdateAddressBody,
        response: { 200: Envelope(Type.Ref(AddressSchema)) },
      },
    },
    async (req) =>
      ok(await addresses.update(req.auth, req.params.walletId, req.params.addressId, req.body), 'Address updated successfully'),
  );

  app.post(
    '/v1/wallets/:walletId/addresses/whitelist',
    {
      schema: {
        tags: ['Addresses'],
        summary: 'Register an external address',
        description:
          'Extension. An address the service holds no key for (type EXTERNAL): watched for deposits and counted in `externalAddressesCount`, never swept or exported. Every wallet registering the same outside address gets its own deposit records. 409 `ADDRESS_EXISTS` when already on this wallet; 422 `ADDRESS_NOT_EXTERNAL` for any master or child address of the service (whichever wallet holds it).',
        params: WalletParams,
        body: WhitelistBody,
        response: { 200: Envelope(Type.Ref(AddressSchema)) },
      },
    },
    async (req) => ok(await addresses.whitelist(req.auth, req.params.walletId, req.body), 'Address whitelisted successfully'),
  );

  app.delete(
    '/v1/wallets/:walletId/addresses/whitelist/:addressId',
    {
      schema: {
        tags: ['Addresses'],
        summary: 'Remove an external address',
        description: 'Extension. Stops watching it; its recorded deposits remain. Internal addresses cannot be removed (422).',
        params: AddressParams,
        response: { 200: Envelope(Type.Ref(AddressSchema)) },
      },
    },
    async (req) =>
      ok(await addresses.removeWhitelisted(req.auth, req.params.walletId, req.params.addressId), 'Address removed successfully'),
  );
};
