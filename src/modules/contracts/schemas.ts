import { Type, type Static } from '@sinclair/typebox';
import { TransactionSchema } from '../transactions/schemas.js';

/** The spec leaves the number of calls open; 20 bounds the RPC work one request can cause. */
export const MAX_CALLS = 20;

/**
 * One ABI entry as solc and the usual tools emit it. Extra keys some tools add (`gas`,
 * `signature`) are allowed and ignored; the entries' contents are checked by the chain
 * adapter, which reports a malformed ABI as a 400 naming the entry.
 */
const AbiEntry = Type.Object(
  {
    type: Type.String({ description: 'function, constructor, event, error, fallback or receive' }),
    name: Type.Optional(Type.String({ maxLength: 256 })),
    inputs: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 256 })),
    outputs: Type.Optional(Type.Array(Type.Unknown(), { maxItems: 256 })),
    stateMutability: Type.Optional(Type.String({ maxLength: 32 })),
    constant: Type.Optional(Type.Boolean()),
    payable: Type.Optional(Type.Boolean()),
    anonymous: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

export const ContractCall = Type.Object(
  {
    address: Type.String({ minLength: 1, maxLength: 128, description: 'the contract' }),
    method: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'function name, or its full signature (e.g. `transfer(address,uint256)`) to pick an overload',
    }),
    parameters: Type.Array(Type.Unknown(), {
      maxItems: 256,
      description: 'arguments in ABI order; integers as decimal strings (numbers up to 2^53 also accepted), tuples as objects or arrays',
    }),
    abi: Type.Array(AbiEntry, { minItems: 1, maxItems: 2000, description: 'ABI entries; must contain the method' }),
    value: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description:
          "extension: native coin sent with the call, a decimal string in the coin's units (payable functions only; default 0). It moves the wallet's funds: whitelist and balance rules apply.",
      }),
    ),
  },
  { additionalProperties: false },
);

export type ContractCalls = Static<typeof ContractCall>[];

/**
 * `calls` (1 to 20), or one call given by its fields at the top level, as the described
 * service's documentation shows them (`address`, `method`, `parameters`, `abi`, and the
 * `value` extension). Both at once is a 400 (body.ts).
 */
export const ContractCallsBody = Type.Object(
  {
    calls: Type.Optional(
      Type.Array(ContractCall, { minItems: 1, maxItems: MAX_CALLS, description: 'the calls, in order; or give one call at the top level' }),
    ),
    address: Type.Optional(ContractCall.properties.address),
    method: Type.Optional(ContractCall.properties.method),
    parameters: Type.Optional(ContractCall.properties.parameters),
    abi: Type.Optional(ContractCall.properties.abi),
    value: ContractCall.properties.value,
  },
  {
    additionalProperties: false,
    description:
      'Either `calls: [...]` or a single call as top-level `address`, `method`, `parameters`, `abi` (and `value`); a single call answers as a one-element `calls`.',
  },
);
export type ContractCallsRequest = Static<typeof ContractCallsBody>;

export const ReadResult = Type.Union([Type.String(), Type.Array(Type.String())], {
  description: 'one call: the value as a string; several: an array in call order',
});

export const NetworkFee = Type.Object({
  balance: Type.String({ description: "the sender's native-coin balance, in the coin's units" }),
  fee: Type.String({ description: 'estimated gas x current max fee per gas (summed over the calls), in the native coin' }),
});

export const TransactionOrList = Type.Union([Type.Ref(TransactionSchema), Type.Array(Type.Ref(TransactionSchema))], {
  description: 'one call: a Transaction; several: an array in call order',
});

/** What the network-fee route's `balance` and `fee` mean, per family. */
export const NETWORK_FEE_HELP =
  "`balance`: the sender's native-coin balance; `fee`: estimated gas x current max fee per gas, summed over the calls, in the native coin (on Tron: energy x energy price + bandwidth x its price, in TRX).";
