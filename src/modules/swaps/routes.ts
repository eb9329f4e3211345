import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, ok } from '../../lib/schema.js';
import { AddressParams } from '../addresses/schemas.js';
import { TransactionSchema } from '../transactions/schemas.js';
import { WalletParams } from '../wallets/schemas.js';
import type { SwapApi } from './api.js';
import { SwapExecuteBody, SwapQuoteBody, SwapQuoteSchema } from './schemas.js';

// A chain without a router is refused by capability(adapter, 'swaps') (api.ts #actor): NOT_SUPPORTED;
// SWAP_NOT_AVAILABLE is the answer to a native coin asked of a router that swaps tokens only.
const WHERE =
  "On a chain with a swap router (EVM chains whose chains file names one; the devnet AMM in the embedded default); elsewhere 422 NOT_SUPPORTED. Both assets on the wallet's chain (422 CROSS_CHAIN_SWAP_NOT_SUPPORTED: no bridge); tokens only (a native coin: 422 SWAP_NOT_AVAILABLE).";

export const swapRoutes: FastifyPluginAsyncTypebox<{ swaps: SwapApi }> = async (app, { swaps }) => {
  const tags = ['Swaps'];
  for (const scope of ['wallet', 'address'] as const) {
    const child = scope === 'address';
    const prefix = child ? '/v1/wallets/:walletId/addresses/:addressId/swaps' : '/v1/wallets/:walletId/swaps';
    const who = child ? 'a child address' : 'the master address';
    app.post(
      `${prefix}/quote`,
      {
        schema: {
          tags,
          summary: `Quote a swap from ${who}`,
          description: `${WHERE} The route the \`order\` picks and its minimum output (\`minAmount\`: the reference, par for two assets of one currency or else the pools' mid price, less \`slippageTolerance\`; the quote itself for NO_SLIPPAGE): a pool that cannot give it is refused (422 SLIPPAGE_EXCEEDED). \`quoteId\` executes it until \`expiresAt\`.`,
          params: child ? AddressParams : WalletParams,
          body: SwapQuoteBody,
          response: { 200: Envelope(SwapQuoteSchema) },
        },
      },
      async (req) =>
        ok(
          await swaps.quote(req.auth, req.params.walletId, (req.params as { addressId?: string }).addressId ?? null, req.body),
          'Swap quote retrieved successfully',
        ),
    );
    app.post(
      `${prefix}/execute`,
      {
        schema: {
          tags,
          summary: `Execute a swap from ${who}`,
          description: `${WHERE} By \`quoteId\` (alone: a field the quote fixes given beside it is a 400) or with the quote's body. Quoted again before anything is written: a live quote keeps its \`minAmount\`, an expired one is re-quoted (its minimum never lowered) and never executed at its stale rate; a pool below the minimum is refused (422 SLIPPAGE_EXCEEDED). The minimum and a deadline are signed into the router call: a pool that moves after signing makes the swap revert. The input is held like a withdrawal's; a \`recipientAddress\` other than the sender follows the wallet whitelist. Returns a PENDING Transaction of type SWAP (\`toAmount\`, \`toAsset\`, \`toBlockchain\`); \`swap.success\` (with the amount the recipient received, read from the receipt's transfer logs) or \`swap.failed\` follows.`,
          params: child ? AddressParams : WalletParams,
          body: SwapExecuteBody,
          response: { 200: Envelope(Type.Ref(TransactionSchema)) },
        },
      },
      async (req) =>
        ok(
          await swaps.execute(req.auth, req.params.walletId, (req.params as { addressId?: string }).addressId ?? null, req.body),
          'Swap initiated successfully',
        ),
    );
  }
};
