/**
 * Every event a webhook (and the event feed) can carry, as DESIGN section 7 names them, the
 * extensions' (approvals, recoveries, staking), and `webhook.test` of the test endpoint
 * (test/webhooks/event-names.test.ts checks that every name the source emits is here). The feed's `types` filter and the test trigger accept
 * these names only, so a typo is a 400 instead of a filter that silently matches nothing.
 */
export const WEBHOOK_EVENTS = [
  'deposit.processing',
  'deposit.success',
  'deposit.failed',
  'deposit.swept.success',
  'deposit.swept.failed',
  'withdraw.success',
  'withdraw.failed',
  // Transaction policies: a payout held for approval, and one refused before it was sent.
  'withdraw.pending_approval',
  'withdraw.cancelled',
  'signed.success',
  'signed.failed',
  'swap.success',
  'swap.failed',
  'custom-smart-contract.success',
  'custom-smart-contract.failed',
  'auto-settlement.success',
  'auto-settlement.failed',
  'salvage.success',
  'salvage.failed',
  // Tron staking (docs/tron.md): a stake, an unstake, a restake, a withdrawal of unlocked TRX.
  'staking.success',
  'staking.failed',
  'unstaking.success',
  'unstaking.failed',
  'restaking.success',
  'restaking.failed',
  'unstaking.withdraw.success',
  'unstaking.withdraw.failed',
  'webhook.test',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

const NAMES: ReadonlySet<string> = new Set(WEBHOOK_EVENTS);
export const isWebhookEvent = (name: string): name is WebhookEventName => NAMES.has(name);

/** A payment link's checkout sessions (docs/checkout.md): their `data` is the session, not a Transaction. */
export const CHECKOUT_EVENTS = [
  'checkout.processing',
  'checkout.partial',
  'checkout.settled',
  'checkout.expired',
  'checkout.invalid',
  'checkout.paid-late',
] as const;
export type CheckoutEventName = (typeof CHECKOUT_EVENTS)[number];

/** Every name the event feed carries (and its `types` filter takes): the Transaction events and the checkout sessions'. */
export const FEED_EVENTS = [...WEBHOOK_EVENTS, ...CHECKOUT_EVENTS] as const;
export type FeedEventName = (typeof FEED_EVENTS)[number];
const FEED_NAMES: ReadonlySet<string> = new Set(FEED_EVENTS);
export const isFeedEvent = (name: string): name is FeedEventName => FEED_NAMES.has(name);
