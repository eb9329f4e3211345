import { Type } from '@sinclair/typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Envelope, aliasSchema, ok } from '../../lib/schema.js';
import { WalletParams } from '../wallets/schemas.js';
import { AddressParams } from '../addresses/schemas.js';
import { TransactionSchema } from '../transactions/schemas.js';
import type { SigningService } from './service.js';
import { MessageBody, TypedDataBody } from './schemas.js';

const TAGS = ['Signing'];

export const signingRoutes: FastifyPluginAsyncTypebox<{ service: SigningService }> = async (app, { service }) => {
  const typedData = {
    tags: TAGS,
    summary: 'Sign EIP-712 typed data with the master key',
    description:
      "Returns a SIGNED Transaction (SUCCESS, confirmed) whose `signedTransaction` is `{ r, s, signature, v }`, recoverable to the master address; `signed.success` is emitted. 400 (nothing written) for malformed types, unknown referenced types, bad Solidity types, domain or message values that do not fit their types, and a primary type that cannot be inferred. 422 `TYPED_DATA_NOT_SUPPORTED` (nothing written) on a Tron or Solana wallet. Held to the rules of a contract write: 422 `CONTRACT_WRITES_DISABLED` or `CONTRACT_NOT_ALLOWED` by the wallet's `configurations.contractWrites` for the verifying contract. A token authorisation over the master's tokens (EIP-2612 or DAI permit, EIP-3009 transfer authorisation, token meta-transaction, Permit2) must name the wallet's chain (400 `domain.chainId`) and at most one catalogued token (400), and obeys the whitelist (422 `NOT_WHITELISTED`) and AML screening (422 `AML_BLOCKED`) as an approve or transfer does. Decided by the transaction policies as a `CONTRACT_WRITE` (an authorisation of a catalogued token as its amount to its spender or recipient; other typed data as no amount to its verifying contract): 422 `POLICY_BLOCKED` unless allowed. Nothing is written on a refusal.",
    params: WalletParams,
    body: TypedDataBody,
    response: { 200: Envelope(Type.Ref(TransactionSchema)) },
  };
  app.post('/v1/wallets/:walletId/signing/typed-data', { schema: typedData }, async (req) =>
    ok(await service.signTypedData(req.auth, req.params.walletId, req.body), 'Typed data signed successfully'),
  );
  // The described service's other spelling: one handler, marked as an alias.
  app.post(
    '/v1/wallets/:walletId/sign/typed-data',
    { schema: aliasSchema(typedData, '/v1/wallets/{walletId}/signing/typed-data') },
    async (req) => ok(await service.signTypedData(req.auth, req.params.walletId, req.body), 'Typed data signed successfully'),
  );

  // Personal messages (EIP-191), by the master or by a child address; `sign/message` is an alias.
  for (const scope of ['wallet', 'address'] as const) {
    const child = scope === 'address';
    const base = child ? '/v1/wallets/:walletId/addresses/:addressId' : '/v1/wallets/:walletId';
    const schema = {
      tags: TAGS,
      summary: child
        ? 'Sign a message with a child address key (EIP-191; TIP-191 on Tron; ed25519 on Solana)'
        : 'Sign a message with the master key (EIP-191; TIP-191 on Tron; ed25519 on Solana)',
      description: `\`message\`: text, or bytes as 0x-prefixed hex. Signed as EIP-191 personal_sign (what \`personal_sign\` and viem's \`signMessage\` produce) on EVM chains, as TIP-191 (tronweb's \`trx.signMessageV2\`, checked with \`verifyMessageV2\`) on Tron, as Solana wallets' \`signMessage\` does on Solana (ed25519 over the message bytes themselves, UTF-8 for text), by the ${child ? 'child address (INTERNAL addresses only: 422 \`NO_PRIVATE_KEY\` otherwise)' : 'master address'}. Returns a SIGNED Transaction (SUCCESS, confirmed) whose \`signedTransaction\` is \`{ r, s, signature, v }\` (on Solana \`{ signature, publicKey }\`: the 64-byte signature in base58 and the signer's address); \`signed.success\` is emitted. 400 for an empty message or odd-length hex (nothing written); 422 \`MESSAGE_NAMES_SIGNER\` on Solana for bytes that contain the signer's own public key, as a transaction would (nothing written); 422 \`NOT_SUPPORTED\` on chains without personal messages.`,
      params: child ? AddressParams : WalletParams,
      body: MessageBody,
      response: { 200: Envelope(Type.Ref(TransactionSchema)) },
    };
    const handler = async (req: {
      auth: Parameters<SigningService['signMessage']>[0];
      params: { walletId: string; addressId?: string };
      body: { message: string };
    }) =>
      ok(
        await service.signMessage(req.auth, req.params.walletId, req.params.addressId ?? null, req.body.message),
        'Message signed successfully',
      );
    app.post(`${base}/signing/message`, { schema }, handler);
    const canonical = `${base}/signing/message`.replace(/:(\w+)/g, '{$1}');
    app.post(`${base}/sign/message`, { schema: aliasSchema(schema, canonical) }, handler);
  }
};
