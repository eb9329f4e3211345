import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import type { WalletAssetService } from './service.js';
import { UpdateWalletAssetBody, WalletAssetParams, WalletAssetSchema } from './schemas.js';

export const walletAssetRoutes: FastifyPluginAsyncTypebox<{ walletAssets: WalletAssetService }> = async (app, { walletAssets }) => {
  app.get(
    '/v1/wallets/:walletId/assets',
    {
      schema: {
        tags: ['Wallet assets'],
        summary: "List a wallet's assets",
        description: 'Extension. Every asset enabled (or disabled) on the wallet.',
        params: WalletParams,
        response: { 200: Envelope(Type.Array(Type.Ref(WalletAssetSchema))) },
      },
    },
    async (req) => ok(await walletAssets.list(req.auth, req.params.walletId), 'Wallet assets fetched successfully'),
  );

  app.patch(
    '/v1/wallets/:walletId/assets/:assetId',
    {
      schema: {
        tags: ['Wallet assets'],
        summary: 'Enable or disable an asset on a wallet',
        description:
          "`assetId` is the wallet asset's id or the catalogue asset's id; enabling a catalogue asset of the wallet's chain adds it.",
        params: WalletAssetParams,
        body: UpdateWalletAssetBody,
        response: { 200: Envelope(Type.Ref(WalletAssetSchema)) },
      },
    },
    async (req) =>
      ok(
        await walletAssets.setActive(req.auth, req.params.walletId, req.params.assetId, req.body.isActive),
        'Wallet asset updated successfully',
      ),
  );
};
