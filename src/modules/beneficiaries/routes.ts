import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, PagedEnvelope, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import type { BeneficiaryService } from './service.js';
import { BeneficiaryParams, BeneficiarySchema, CreateBeneficiaryBody, ListBeneficiariesQuery, UpdateBeneficiaryBody } from './schemas.js';

const Beneficiary = Type.Ref(BeneficiarySchema);

export const beneficiaryRoutes: FastifyPluginAsyncTypebox<{ beneficiaries: BeneficiaryService }> = async (app, { beneficiaries }) => {
  app.post(
    '/v1/wallets/:walletId/beneficiaries',
    {
      schema: {
        tags: ['Beneficiaries'],
        summary: 'Add a beneficiary',
        description:
          '`settlementFrequency` makes it a settlement beneficiary (`isSettlement`, an extension here, defaults to whether a frequency is given; `isSettlement: true` without one is a 400). One live beneficiary per address (409). While an active transaction policy with a `destination` condition applies to the wallet, changing who is a beneficiary needs a business key with MANAGE_POLICIES or a dashboard owner or admin (403 `POLICY_MANAGEMENT_NOT_ALLOWED`).',
        params: WalletParams,
        body: CreateBeneficiaryBody,
        response: { 200: Envelope(Beneficiary) },
      },
    },
    async (req) => ok(await beneficiaries.create(req.auth, req.params.walletId, req.body, req.id), 'Beneficiary created successfully'),
  );

  app.get(
    '/v1/wallets/:walletId/beneficiaries',
    {
      schema: {
        tags: ['Beneficiaries'],
        summary: "List a wallet's beneficiaries",
        description: 'Extension. Newest first, paginated; deleted ones only with `includeDeleted=true`.',
        params: WalletParams,
        querystring: ListBeneficiariesQuery,
        response: { 200: PagedEnvelope(Beneficiary) },
      },
    },
    async (req) => {
      const { items, meta } = await beneficiaries.list(req.auth, req.params.walletId, req.query);
      return ok(items, 'Beneficiaries fetched successfully', { meta });
    },
  );

  app.get(
    '/v1/wallets/:walletId/beneficiaries/:id',
    {
      schema: {
        tags: ['Beneficiaries'],
        summary: 'Get a beneficiary',
        description: 'Extension. A deleted beneficiary is returned with its `deletedAt`.',
        params: BeneficiaryParams,
        response: { 200: Envelope(Beneficiary) },
      },
    },
    async (req) => ok(await beneficiaries.get(req.auth, req.params.walletId, req.params.id), 'Beneficiary fetched successfully'),
  );

  app.patch(
    '/v1/wallets/:walletId/beneficiaries/:id',
    {
      schema: {
        tags: ['Beneficiaries'],
        summary: 'Update a beneficiary',
        description:
          'Partial update. `settlementFrequency` is required when the beneficiary ends up with `isSettlement` true and has none stored (400). A deleted beneficiary is a 404. While an active transaction policy with a `destination` condition applies to the wallet, changing `isWhitelisted` or `isActive` needs a business key with MANAGE_POLICIES or a dashboard owner or admin (403 `POLICY_MANAGEMENT_NOT_ALLOWED`).',
        params: BeneficiaryParams,
        body: UpdateBeneficiaryBody,
        response: { 200: Envelope(Beneficiary) },
      },
    },
    async (req) =>
      ok(await beneficiaries.update(req.auth, req.params.walletId, req.params.id, req.body, req.id), 'Beneficiary updated successfully'),
  );

  app.delete(
    '/v1/wallets/:walletId/beneficiaries/:id',
    {
      schema: {
        tags: ['Beneficiaries'],
        summary: 'Delete a beneficiary',
        description:
          'Soft delete: the beneficiary is returned with `deletedAt` set and stops counting for whitelisting and settlement. While an active transaction policy with a `destination` condition applies to the wallet, deleting one needs a business key with MANAGE_POLICIES or a dashboard owner or admin (403 `POLICY_MANAGEMENT_NOT_ALLOWED`).',
        params: BeneficiaryParams,
        response: { 200: Envelope(Beneficiary) },
      },
    },
    async (req) => ok(await beneficiaries.remove(req.auth, req.params.walletId, req.params.id, req.id), 'Beneficiary deleted successfully'),
  );
};
