/** AML screening's vocabulary (docs/aml.md), shared by its service, routes and the modules that screen. */

/**
 * CLEAR: every provider answered and none lists the address. FLAGGED: at least one lists it
 * (whatever the others said). NOT_SCREENED: none lists it, but at least one provider did not
 * answer (or no provider is in force on the chain).
 */
export type AmlStatus = 'CLEAR' | 'FLAGGED' | 'NOT_SCREENED';

/** What a deposit hit does (a wallet setting): hold it from sweeps and settlements until released, or only flag it. */
export type DepositHitAction = 'HOLD' | 'FLAG';
/** What a provider failure does to a payout (a wallet setting): refuse it (fail closed), or let it through NOT_SCREENED. */
export type ProviderFailureAction = 'BLOCK' | 'ALLOW';

export interface AmlSettings {
  onDepositHit: DepositHitAction;
  onProviderFailure: ProviderFailureAction;
}

export const DEFAULT_AML_SETTINGS: AmlSettings = { onDepositHit: 'HOLD', onProviderFailure: 'BLOCK' };

/** One address screened by every provider in force on its chain. */
export interface ScreeningResult {
  address: string;
  status: AmlStatus;
  /** The providers consulted, in order. */
  providers: string[];
  /** Those that list the address. */
  lists: string[];
  /** Those that did not answer, and why. */
  failed: { provider: string; error: string }[];
  checkedAt: Date;
}

/**
 * The public screening (`amlScreening` of a Transaction, the lookup's answer): the spec's
 * `{message, provider, status}` with `isBlacklisted`, when it was checked, which lists named
 * the address and, on a deposit, whether it is held and who released it.
 */
export interface AmlScreening {
  isBlacklisted: boolean;
  status: AmlStatus;
  /** The providers consulted, comma-separated ("ofac, tether, circle, sanctions-oracle"). */
  provider: string;
  message: string;
  checkedAt: string;
  lists: string[];
  failed: string[];
  held?: boolean;
  /** A deposit whose transaction had several payers: every one screened (its sender first). */
  senders?: string[];
  /** With `senders`, the one a list names. */
  address?: string;
  releasedAt?: string;
  releasedBy?: string;
}

/** Human names of the lists, for messages. */
const LABELS: Record<string, string> = {
  ofac: 'the OFAC SDN list',
  tether: "Tether's blacklist",
  circle: "Circle's blacklist",
  'sanctions-oracle': 'the sanctions oracle',
};

export function listLabel(provider: string): string {
  return LABELS[provider] ?? `the ${provider} list`;
}

/**
 * The screenings of the addresses one payout pays (a contract call's contract, recipient and
 * spender) as one: NOT_SCREENED when any went unscreened (naming every provider that did not
 * answer), FLAGGED when any is listed, CLEAR otherwise. Undefined for none.
 */
export function combineScreenings(screenings: readonly AmlScreening[]): AmlScreening | undefined {
  if (screenings.length <= 1) return screenings[0];
  const worst = screenings.find((s) => s.status === 'FLAGGED') ?? screenings.find((s) => s.status === 'NOT_SCREENED') ?? screenings[0]!;
  return {
    ...worst,
    isBlacklisted: screenings.some((s) => s.isBlacklisted),
    lists: [...new Set(screenings.flatMap((s) => s.lists))],
    failed: [...new Set(screenings.flatMap((s) => s.failed))],
  };
}

export function presentScreening(r: ScreeningResult): AmlScreening {
  const message =
    r.status === 'FLAGGED'
      ? `Address is on ${r.lists.map(listLabel).join(', ')}`
      : r.status === 'CLEAR'
        ? 'Address is not on any screened list'
        : r.providers.length === 0
          ? 'No AML provider is in force on this chain'
          : `Not screened: ${r.failed.map((f) => `${f.provider} did not answer (${f.error})`).join('; ')}`;
  return {
    isBlacklisted: r.status === 'FLAGGED',
    status: r.status,
    provider: r.providers.join(', '),
    message: message.slice(0, 500),
    checkedAt: r.checkedAt.toISOString(),
    lists: r.lists,
    failed: r.failed.map((f) => f.provider),
  };
}
