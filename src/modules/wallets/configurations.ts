/**
 * A wallet's `configurations` object (spec): defaults as the described service sets them
 * (auto-sweep on, threshold 0) and a validated deep merge for partial updates.
 */
import { Type, type Static } from '@sinclair/typebox';
import { addressKey } from '../../chains/address-key.js';

const RuleList = Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 100 });

/** Allow-list of contract addresses; the schema bounds it, the wallet's chain validates each entry. */
export const MAX_ALLOWED_CONTRACTS = 100;
const ContractList = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: MAX_ALLOWED_CONTRACTS });
const AML = {
  description:
    'extension: AML screening (docs/aml.md). `providers` (read-only): the lists screened on this chain. `onDepositHit`: a deposit from a listed sender is credited and HOLD (kept from sweeps and settlements until released) or FLAG (only marked). `onProviderFailure`: when a provider does not answer, payouts are refused (BLOCK, fail closed) or let through marked NOT_SCREENED (ALLOW). A wallet API key may only make these stricter.',
};
const DepositHit = Type.Union([Type.Literal('HOLD'), Type.Literal('FLAG')]);
const ProviderFailure = Type.Union([Type.Literal('BLOCK'), Type.Literal('ALLOW')]);
const CONTRACT_WRITES = {
  description:
    'extension: contract writes (contracts/write and contracts/write/sign) on/off, and an allow-list of the contracts they may call (empty: any). A wallet API key may only restrict this; relaxing it needs the business API key.',
};

export const WalletConfigurationsSchema = Type.Object(
  {
    addresses: Type.Object({
      isActive: Type.Boolean(),
      prefunding: Type.Object({ isActive: Type.Boolean(), rules: RuleList }),
    }),
    autoSettlement: Type.Object({ isActive: Type.Boolean(), rules: RuleList }),
    autoSweeping: Type.Object({ isActive: Type.Boolean(), threshold: Type.Number({ minimum: 0 }) }),
    withdrawal: Type.Object({
      gasless: Type.Object({ isActive: Type.Boolean(), operator: Type.String(), threshold: Type.Number({ minimum: 0 }) }),
    }),
    contractWrites: Type.Object({ isActive: Type.Boolean(), allowedContracts: Type.Array(Type.String()) }, CONTRACT_WRITES),
    aml: Type.Object(
      {
        provider: Type.String({ description: 'the providers in force, comma-separated (as in amlScreening.provider)' }),
        providers: Type.Array(Type.String()),
        onDepositHit: DepositHit,
        onProviderFailure: ProviderFailure,
      },
      AML,
    ),
  },
  { $id: 'WalletConfigurations' },
);
export type WalletConfigurations = Static<typeof WalletConfigurationsSchema>;

/** The PATCH shape: every field optional, unknown fields refused. */
export const WalletConfigurationsPatch = Type.Object(
  {
    addresses: Type.Optional(
      Type.Object(
        {
          isActive: Type.Optional(Type.Boolean()),
          prefunding: Type.Optional(
            Type.Object({ isActive: Type.Optional(Type.Boolean()), rules: Type.Optional(RuleList) }, { additionalProperties: false }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    autoSettlement: Type.Optional(Type.Object({ isActive: Type.Optional(Type.Boolean()) }, { additionalProperties: false })),
    autoSweeping: Type.Optional(
      Type.Object(
        { isActive: Type.Optional(Type.Boolean()), threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1e15 })) },
        { additionalProperties: false },
      ),
    ),
    withdrawal: Type.Optional(
      Type.Object(
        {
          gasless: Type.Optional(
            Type.Object(
              {
                isActive: Type.Optional(Type.Boolean()),
                operator: Type.Optional(Type.String({ maxLength: 200 })),
                threshold: Type.Optional(Type.Number({ minimum: 0, maximum: 1e15 })),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
    contractWrites: Type.Optional(
      Type.Object(
        { isActive: Type.Optional(Type.Boolean()), allowedContracts: Type.Optional(ContractList) },
        { additionalProperties: false, ...CONTRACT_WRITES },
      ),
    ),
    aml: Type.Optional(
      Type.Object(
        { onDepositHit: Type.Optional(DepositHit), onProviderFailure: Type.Optional(ProviderFailure) },
        { additionalProperties: false, ...AML },
      ),
    ),
  },
  { additionalProperties: false },
);
export type WalletConfigurationsPatch = Static<typeof WalletConfigurationsPatch>;

export function defaultWalletConfigurations(): WalletConfigurations {
  return {
    addresses: { isActive: true, prefunding: { isActive: false, rules: [] } },
    autoSettlement: { isActive: false, rules: [] },
    autoSweeping: { isActive: true, threshold: 0 },
    withdrawal: { gasless: { isActive: false, operator: '', threshold: 0 } },
    // Today's behaviour by default: any contract may be called.
    contractWrites: { isActive: true, allowedContracts: [] },
    // Screening is strict by default: a listed sender's deposit is held, and a provider that
    // does not answer blocks payouts (fail closed). `provider(s)` are filled in when shown.
    aml: { provider: '', providers: [], onDepositHit: 'HOLD', onProviderFailure: 'BLOCK' },
  };
}

/** Deep merge of plain objects; arrays and scalars in the patch replace. */
export function mergeConfigurations<T>(base: T, patch: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(patch)) return (patch === undefined ? base : patch) as T;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    out[key] = mergeConfigurations(out[key], value);
  }
  return out as T;
}

/** Stored configurations with any key added by a later version filled from the defaults. */
export function normaliseConfigurations(stored: unknown): WalletConfigurations {
  return mergeConfigurations(defaultWalletConfigurations(), stored);
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Whether `next` screens less strictly than `current`: only a business key may do that. */
export function relaxesAml(current: WalletConfigurations['aml'], next: WalletConfigurations['aml']): boolean {
  return (
    (current.onDepositHit === 'HOLD' && next.onDepositHit === 'FLAG') ||
    (current.onProviderFailure === 'BLOCK' && next.onProviderFailure === 'ALLOW')
  );
}

/**
 * Whether `next` allows contract writes that `current` refused: switched on again, the
 * allow-list removed, or a contract added to it. Only a business key may do that.
 */
export function relaxesContractWrites(
  current: WalletConfigurations['contractWrites'],
  next: WalletConfigurations['contractWrites'],
): boolean {
  if (next.isActive && !current.isActive) return true;
  if (current.allowedContracts.length === 0) return false;
  if (next.allowedContracts.length === 0) return true;
  const before = new Set(current.allowedContracts.map(addressKey));
  return next.allowedContracts.some((a) => !before.has(addressKey(a)));
}
