/**
 * A wallet's `configurations` object (spec): defaults as the described service sets them
 * (auto-sweep on, threshold 0) and a validated deep merge for partial updates.
 */
import { Type, type Static } from '@sinclair/typebox';

const RuleList = Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: 100 });

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
