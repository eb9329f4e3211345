/**
 * USD quotes and what is computed from them, in bigint arithmetic only: judging a price
 * feed's round (refused when stale, carried over, non-positive or from the future), the
 * USD value of an amount, and the rate as text. Pure functions: rates/service.ts reads the
 * feeds and decides where a quote comes from.
 */
import type { PriceFeedRound } from '../../chains/types.js';
import { formatAmount } from '../../lib/money.js';

export interface UsdQuote {
  /** USD per whole unit of the asset, in units of 10^-decimals. */
  rate: bigint;
  decimals: number;
  /** A price feed's round, or the asset's peg (RATES_PEG_FALLBACK). */
  source: 'feed' | 'peg';
  /** Unix seconds of the feed's round; null for the peg. */
  updatedAt: number | null;
  /** Epoch ms after which the round is past its staleness limit; Infinity for the peg. */
  validUntil: number;
}

export type NoRateReason = 'NO_SOURCE' | 'STALE' | 'INVALID' | 'UNAVAILABLE';

export type Lookup = { quote: UsdQuote } | { quote: null; reason: NoRateReason; detail: string };

export const PEG_QUOTE: UsdQuote = Object.freeze({ rate: 1n, decimals: 0, source: 'peg', updatedAt: null, validUntil: Infinity });

/** A round stamped more than this ahead of our clock is not believed (clock skew aside). */
const FUTURE_SKEW_SECONDS = 300;
/** More decimals than any feed uses: the answer would not be a price. */
const MAX_FEED_DECIMALS = 36;

/**
 * Whether a feed's latest round may be used now: `heartbeat` is the feed's own limit
 * (seconds between guaranteed rounds), `grace` the slack for the next round to land.
 */
export function judgeRound(round: PriceFeedRound, heartbeat: number, grace: number, nowMs: number): Lookup {
  const now = Math.floor(nowMs / 1000);
  if (round.decimals > MAX_FEED_DECIMALS) return refuse('INVALID', `the feed reports ${round.decimals} decimals`);
  if (round.answer <= 0n) return refuse('INVALID', `the feed answers ${round.answer} (not a price)`);
  if (round.updatedAt === 0) return refuse('INVALID', `round ${round.roundId} never completed`);
  if (round.updatedAt > now + FUTURE_SKEW_SECONDS) return refuse('INVALID', `round ${round.roundId} is stamped in the future`);
  // Deprecated on OCR feeds (always equal to roundId there); 0 means the feed does not report it.
  if (round.answeredInRound > 0n && round.answeredInRound < round.roundId) {
    return refuse('STALE', `round ${round.roundId} carries the answer of round ${round.answeredInRound}`);
  }
  const age = now - round.updatedAt;
  if (age > heartbeat + grace) return refuse('STALE', `last updated ${age} s ago; the feed's heartbeat is ${heartbeat} s`);
  return {
    quote: {
      rate: round.answer,
      decimals: round.decimals,
      source: 'feed',
      updatedAt: round.updatedAt,
      validUntil: (round.updatedAt + heartbeat + grace) * 1000,
    },
  };
}

function refuse(reason: NoRateReason, detail: string): Lookup {
  return { quote: null, reason, detail };
}

/**
 * The USD value of `amount` base units of an asset with `decimals`, as a decimal string
 * with at most the asset's own decimals, rounded down (towards zero): a 6-decimal token's
 * value has 6 fraction digits at most, an 18-decimal token's 18. At a rate of exactly 1
 * the value is the amount itself, digit for digit.
 */
export function usdValue(amount: bigint, decimals: number, quote: UsdQuote): string {
  return formatAmount((amount * quote.rate) / 10n ** BigInt(quote.decimals), decimals);
}

/** The rate as a decimal string, with the feed's precision ("1", "0.9997"). */
export function rateText(quote: UsdQuote): string {
  return formatAmount(quote.rate, quote.decimals);
}
