import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { TransactionSchema } from '../transactions/schemas.js';
import { WalletParams } from '../wallets/schemas.js';
import { AmlScreeningSchema, LookupQuery, ReleaseParams } from './schemas.js';
import type { AmlService } from './service.js';

const Screening = Type.Ref(AmlScreeningSchema);
const LOOKUP =
  "Screens an address against every list in force on the chain (docs/aml.md): the OFAC SDN list as imported (`aml import`), the stablecoin issuers' blacklists read on chain (Tether, Circle), the sanctions oracle, and any HTTP provider configured. Results are cached for a short time per (chain, address, provider). A bad address or an unknown blockchain is a 400 naming the field.";

export const amlRoutes: FastifyPluginAsyncTypebox<{ aml: AmlService }> = async (app, { aml }) => {
  app.get(
    '/v1/aml/lookup',
    {
      schema: {
        tags: ['AML'],
        summary: 'Screen an address (AML lookup)',
        description: LOOKUP,
        querystring: LookupQuery,
        response: { 200: Envelope(Screening) },
      },
    },
    async (req) => ok(await aml.lookup(req.auth, req.query), 'Anti Money Laundering lookup'),
  );

  app.get(
    '/v1/wallets/:walletId/aml/lookup',
    {
      schema: {
        tags: ['AML'],
        summary: "Screen an address on a wallet's chain",
        description: `${LOOKUP} Extension: the wallet names the chain (\`blockchain\`, if given, must be the wallet's).`,
        params: WalletParams,
        querystring: LookupQuery,
        response: { 200: Envelope(Screening) },
      },
    },
    async (req) => ok(await aml.lookup(req.auth, { ...req.query, walletId: req.params.walletId }), 'Anti Money Laundering lookup'),
  );

  app.post(
    '/v1/wallets/:walletId/transactions/:transactionId/aml/release',
    {
      schema: {
        tags: ['AML'],
        summary: 'Release a deposit held by AML screening',
        description:
          "Extension. A deposit from a listed sender is credited but held (`amlScreening.held`): not swept, auto-settled or settled. An operator releases it (a business API key, or the dashboard): its screening keeps what was found, with `releasedAt` and `releasedBy`, the release is written to the audit log, and the deposit's sweep and settlements proceed. 409 NOT_HELD when it is not held.",
        params: ReleaseParams,
        response: { 200: Envelope(Type.Ref(TransactionSchema)) },
      },
    },
    async (req) => ok(await aml.release(req.auth, req.params.walletId, req.params.transactionId, req.id), 'Deposit released'),
  );
};
