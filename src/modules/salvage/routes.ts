import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { TransactionSchema } from '../transactions/schemas.js';
import { WalletParams } from '../wallets/schemas.js';
import { SALVAGE_FEE_HELP, SalvageBody, SalvageFeeBody, SalvageFeeSchema } from './schemas.js';
import type { SalvageService } from './service.js';

const WHAT =
  "Recovers funds the withdrawal flows cannot move, from the master or an address of the wallet (its keys only): a token that is not an enabled asset of the wallet (unlisted ERC-20 / TRC-20, an unknown SPL token, whose emptied token account is closed with its rent back to the master), native coin left at a child address, or funds sent to one of our addresses on another chain of the wallet's family (`blockchainId` names a configured chain, or `rpcUrl` an EVM chain this installation does not configure: checked like a webhook target, used for this request only, never stored). `crossNetwork` with `rpcUrl` is a 400.";

export const salvageRoutes: FastifyPluginAsyncTypebox<{ salvage: SalvageService }> = async (app, { salvage }) => {
  const tags = ['Asset recovery'];
  app.post(
    '/v1/wallets/:walletId/salvage/network-fee',
    {
      schema: {
        tags,
        summary: 'Estimate the network fee of an asset recovery',
        description: `${WHAT} Returns the sender's native \`balance\` on that chain and the recovery transfer's \`fee\` (both in the native coin), and \`tokenBalance\` (the sender's balance of the token; null for the native coin).`,
        params: WalletParams,
        body: SalvageFeeBody,
        response: { 200: Envelope(SalvageFeeSchema) },
      },
    },
    async (req) => ok(await salvage.networkFee(req.auth, req.params.walletId, req.body), 'Network fee estimated successfully'),
  );
  app.post(
    '/v1/wallets/:walletId/salvage',
    {
      schema: {
        tags,
        summary: 'Recover assets from an address of the wallet',
        description: `${WHAT} ${SALVAGE_FEE_HELP}`,
        params: WalletParams,
        body: SalvageBody,
        response: { 200: Envelope(Type.Ref(TransactionSchema)) },
      },
    },
    async (req) => ok(await salvage.salvage(req.auth, req.params.walletId, req.body), 'Asset recovery initiated successfully'),
  );
};
