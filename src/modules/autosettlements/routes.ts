import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { AddressParams } from '../addresses/schemas.js';
import type { AutoSettlementService } from './service.js';
import {
  AddressConfigSchema,
  AddressRuleParams,
  CreateRuleBody,
  RuleParams,
  RuleSchema,
  UpdateConfigBody,
  UpdateRuleBody,
  WalletConfigSchema,
} from './schemas.js';

const EXTENSION = 'Extension (not in the spec).';

export const autoSettlementRoutes: FastifyPluginAsyncTypebox<{ service: AutoSettlementService }> = async (app, { service }) => {
  const rule = RuleSchema;
  const tags = ['Auto-settlements'];
  const base = '/v1/wallets/:walletId';
  const addr = `${base}/addresses/:addressId`;

  // ---- master wallet ----
  app.get(
    `${base}/auto-settlements`,
    {
      schema: {
        tags,
        summary: "The wallet's auto-settlement configuration",
        params: WalletParams,
        response: { 200: Envelope(WalletConfigSchema) },
      },
    },
    async (req) => ok(await service.walletConfig(req.auth, req.params.walletId), 'Auto-settlement configuration retrieved successfully'),
  );
  app.patch(
    `${base}/auto-settlements`,
    {
      schema: {
        tags,
        summary: 'Switch the wallet configuration on or off, or rename it',
        description: `${EXTENSION} \`isActive\` is the wallet's master switch (the same flag as \`configurations.autoSettlement.isActive\`): off, no rule of the wallet or its addresses runs.`,
        params: WalletParams,
        body: UpdateConfigBody,
        response: { 200: Envelope(WalletConfigSchema) },
      },
    },
    async (req) =>
      ok(await service.updateWalletConfig(req.auth, req.params.walletId, req.body), 'Auto-settlement configuration updated successfully'),
  );
  app.get(
    `${base}/auto-settlements/rules`,
    { schema: { tags, summary: "The wallet's rules", params: WalletParams, response: { 200: Envelope(Type.Array(rule)) } } },
    async (req) => ok(await service.listRules(req.auth, req.params.walletId, null), 'Auto-settlement rules retrieved successfully'),
  );
  app.post(
    `${base}/auto-settlements/rules`,
    {
      schema: {
        tags,
        summary: 'Create a wallet rule',
        description: `${EXTENSION} Defaults: isActive true, order RECOMMENDED, slippageTolerance "0.5", minAmount "0", maxAmount null (no bound).`,
        params: WalletParams,
        body: CreateRuleBody,
        response: { 200: Envelope(rule) },
      },
    },
    async (req) => ok(await service.createRule(req.auth, req.params.walletId, null, req.body), 'Auto-settlement rule created successfully'),
  );
  app.get(
    `${base}/auto-settlements/rules/:id`,
    { schema: { tags, summary: 'One wallet rule', params: RuleParams, response: { 200: Envelope(rule) } } },
    async (req) =>
      ok(await service.getRule(req.auth, req.params.walletId, null, req.params.id), 'Auto-settlement rule retrieved successfully'),
  );
  app.patch(
    `${base}/auto-settlements/rules/:id`,
    {
      schema: {
        tags,
        summary: 'Update a wallet rule',
        description: `${EXTENSION} Partial, as the address-level PATCH.`,
        params: RuleParams,
        body: UpdateRuleBody,
        response: { 200: Envelope(rule) },
      },
    },
    async (req) =>
      ok(
        await service.updateRule(req.auth, req.params.walletId, null, req.params.id, req.body),
        'Auto-settlement rule updated successfully',
      ),
  );
  app.delete(
    `${base}/auto-settlements/rules/:id`,
    { schema: { tags, summary: 'Delete a wallet rule', description: EXTENSION, params: RuleParams, response: { 200: Envelope(rule) } } },
    async (req) =>
      ok(await service.deleteRule(req.auth, req.params.walletId, null, req.params.id), 'Auto-settlement rule deleted successfully'),
  );

  // ---- child address ----
  app.get(
    `${addr}/auto-settlements`,
    {
      schema: {
        tags,
        summary: "The address's auto-settlement configuration",
        params: AddressParams,
        response: { 200: Envelope(AddressConfigSchema) },
      },
    },
    async (req) =>
      ok(
        await service.addressConfig(req.auth, req.params.walletId, req.params.addressId),
        'Auto-settlement configuration retrieved successfully',
      ),
  );
  app.patch(
    `${addr}/auto-settlements`,
    {
      schema: {
        tags,
        summary: "Switch the address's own rules on or off",
        description: `${EXTENSION} Off, the address's deposits fall back to the wallet's rules.`,
        params: AddressParams,
        body: Type.Object({ isActive: Type.Boolean() }, { additionalProperties: false }),
        response: { 200: Envelope(AddressConfigSchema) },
      },
    },
    async (req) =>
      ok(
        await service.updateAddressConfig(req.auth, req.params.walletId, req.params.addressId, req.body),
        'Auto-settlement configuration updated successfully',
      ),
  );
  app.get(
    `${addr}/auto-settlements/rules`,
    { schema: { tags, summary: "The address's rules", params: AddressParams, response: { 200: Envelope(Type.Array(rule)) } } },
    async (req) =>
      ok(await service.listRules(req.auth, req.params.walletId, req.params.addressId), 'Auto-settlement rules retrieved successfully'),
  );
  app.post(
    `${addr}/auto-settlements/rules`,
    {
      schema: {
        tags,
        summary: 'Create an address rule',
        description: `${EXTENSION} An address rule takes the address's deposits before any wallet rule.`,
        params: AddressParams,
        body: CreateRuleBody,
        response: { 200: Envelope(rule) },
      },
    },
    async (req) =>
      ok(
        await service.createRule(req.auth, req.params.walletId, req.params.addressId, req.body),
        'Auto-settlement rule created successfully',
      ),
  );
  app.get(
    `${addr}/auto-settlements/rules/:id`,
    { schema: { tags, summary: 'One address rule', description: EXTENSION, params: AddressRuleParams, response: { 200: Envelope(rule) } } },
    async (req) =>
      ok(
        await service.getRule(req.auth, req.params.walletId, req.params.addressId, req.params.id),
        'Auto-settlement rule retrieved successfully',
      ),
  );
  app.patch(
    `${addr}/auto-settlements/rules/:id`,
    {
      schema: {
        tags,
        summary: 'Update an address rule (partial)',
        params: AddressRuleParams,
        body: UpdateRuleBody,
        response: { 200: Envelope(rule) },
      },
    },
    async (req) =>
      ok(
        await service.updateRule(req.auth, req.params.walletId, req.params.addressId, req.params.id, req.body),
        'Auto-settlement rule updated successfully',
      ),
  );
  app.delete(
    `${addr}/auto-settlements/rules/:id`,
    { schema: { tags, summary: 'Delete an address rule', params: AddressRuleParams, response: { 200: Envelope(rule) } } },
    async (req) =>
      ok(
        await service.deleteRule(req.auth, req.params.walletId, req.params.addressId, req.params.id),
        'Auto-settlement rule deleted successfully',
      ),
  );
};
