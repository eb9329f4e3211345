import { Type, type Static } from '@sinclair/typebox';
import { JsonObject } from '../../lib/schema.js';

const Member = Type.Object(
  { name: Type.String({ minLength: 1, maxLength: 128 }), type: Type.String({ minLength: 1, maxLength: 256 }) },
  { additionalProperties: false },
);

export const TypedDataBody = Type.Object(
  {
    domain: Type.Object(
      {
        name: Type.String({ maxLength: 256 }),
        version: Type.String({ maxLength: 64 }),
        chainId: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
        verifyingContract: Type.String({ minLength: 1, maxLength: 128, description: 'contract address' }),
        salt: Type.Optional(Type.String({ pattern: '^0x[0-9a-fA-F]{64}$', description: 'bytes32 as 0x-prefixed hex' })),
      },
      { additionalProperties: false },
    ),
    types: Type.Record(Type.String({ minLength: 1, maxLength: 128 }), Type.Array(Member, { maxItems: 128 }), {
      minProperties: 1,
      maxProperties: 128,
      description: 'EIP-712 struct definitions; EIP712Domain is optional (derived from domain when absent)',
    }),
    message: JsonObject,
    primaryType: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 128,
        description: 'extension; when absent, the one struct that no other struct refers to',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TypedDataRequest = Static<typeof TypedDataBody>;

export const MessageBody = Type.Object(
  {
    message: Type.String({
      minLength: 1,
      maxLength: 10_000,
      description:
        "text to sign, or bytes as 0x-prefixed hex (an even number of digits); signed as EIP-191 personal_sign (TIP-191 signMessageV2 on Tron; on Solana ed25519 over the bytes, as wallets' signMessage)",
      examples: ['Sign in to Example at 2026-01-01T00:00:00Z', '0x48656c6c6f'],
    }),
  },
  { additionalProperties: false },
);
export type MessageRequest = Static<typeof MessageBody>;
