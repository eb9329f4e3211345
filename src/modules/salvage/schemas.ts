import { Type, type Static } from '@sinclair/typebox';
import { JsonObject, Nullable, Uuid } from '../../lib/schema.js';

const Address = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });

/** The described service's asset recovery fields; `reference` and `metadata` on execution only. */
const fields = {
  senderAddress: Address('an address of this wallet (the master or one of its addresses) holding what is recovered'),
  recipientAddress: Address('where the recovered funds go (the wallet whitelist applies)'),
  amount: Type.String({ maxLength: 160, description: "decimal string in the token's (or the native coin's) units, greater than 0" }),
  blockchainId: Uuid(
    "the blockchain (GET /v1/blockchains) the funds sit on, at the wallet's network: the wallet's own, or another of its family (funds sent to one of our addresses on the wrong chain)",
  ),
  tokenAddress: Type.Optional(Address("the token's contract (or mint); omitted (or the zero address): the native coin")),
  rpcUrl: Type.Optional(
    Type.String({
      maxLength: 2048,
      description:
        'an RPC endpoint of an EVM chain this installation does not configure: checked like a webhook target (no private or loopback address unless the operator allows them; HTTPS on mainnet) and used for this one request only (never stored)',
    }),
  ),
  isL2: Type.Optional(Type.Boolean({ description: 'accepted for compatibility; an EVM L2 is recovered like any EVM chain' })),
  crossNetwork: Type.Optional(
    Type.Boolean({ description: "the funds sit on another chain than the wallet's (blockchainId names it); with rpcUrl: 400" }),
  ),
};

export const SalvageFeeBody = Type.Object(fields, { additionalProperties: false });
export type SalvageFeeBody = Static<typeof SalvageFeeBody>;

export const SalvageBody = Type.Object(
  {
    ...fields,
    reference: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'client reference' })),
    metadata: Type.Optional(JsonObject),
  },
  { additionalProperties: false },
);
export type SalvageBody = Static<typeof SalvageBody>;

export const SalvageFeeSchema = Type.Object({
  balance: Type.String({ description: "the sender's native coin on that chain" }),
  fee: Type.String({ description: 'the network fee of the recovery transfer, in the native coin' }),
  tokenBalance: Nullable(Type.String({ description: "the sender's balance of the token (its units); null for the native coin" })),
});

/** The salvage route's documentation of who pays the fee, per family as the public API describes it. */
export const SALVAGE_FEE_HELP =
  "A child's fee is funded as a sweep's is (an EVM top-up, Tron energy lent from the master's stake and taken back, Solana's master as fee payer); on a chain named by `rpcUrl` the sender pays its own fee and the request follows the transfer to its receipt. The recipient follows the wallet's whitelist. Returns a Transaction of type SALVAGE (filter `type=SALVAGE`); `salvage.success` or `salvage.failed` follows.";
