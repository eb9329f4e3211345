import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import type { WalletAssetService } from './service.js';
import { AddWalletAssetBody, UpdateWalletAssetBody, WalletAssetParams, WalletAssetSchema } from './schemas.js';

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

  app.post(
    '/v1/wallets/:walletId/assets',
    {
      schema: {
        tags: ['Wallet assets'],
        summary: 'Add (enable) an asset on a wallet',
        description:
          "`assetId`: an asset of the wallet's chain from GET /v1/assets (an asset of another chain is a 422 `ASSET_CHAIN_MISMATCH`). Its decimals() is read on chain first: a token that disagrees with the catalogue is a 422 `ASSET_DECIMALS_MISMATCH`, an unreachable chain a 503. Enabling an asset again returns the same wallet asset.",
        params: WalletParams,
        body: AddWalletAssetBody,
        response: { 200: Envelope(Type.Ref(WalletAssetSchema)) },
      },
    },
    async (req) =>
      ok(await walletAssets.setActive(req.auth, req.params.walletId, req.body.assetId, true, 'body'), 'Asset added successfully'),
  );

  app.delete(
    '/v1/wallets/:walletId/assets/:assetId',
    {
      schema: {
        tags: ['Wallet assets'],
        summary: 'Remove (disable) an asset from a wallet',
        description:
          'Disables it: the wallet asset stays, inactive, with its history (its transactions stay listed); deposits of it are no longer recorded and balances leave it out. `POST .../assets` enables it again.',
        params: WalletAssetParams,
        response: { 200: Envelope(Type.Ref(WalletAssetSchema)) },
      },
    },
    async (req) => ok(await walletAssets.setActive(req.auth, req.params.walletId, req.params.assetId, false), 'Asset removed successfully'),
  );
};
