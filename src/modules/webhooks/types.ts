/**
 * Every event a webhook (and the event feed) can carry, as DESIGN section 7 names them, and
 * `webhook.test` of the test endpoint. The feed's `types` filter and the test trigger accept
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
  'signed.success',
  'signed.failed',
  'swap.success',
  'swap.failed',
  'custom-smart-contract.success',
  'custom-smart-contract.failed',
  'auto-settlement.success',
  'auto-settlement.failed',
  'webhook.test',
] as const;
export type WebhookEventName = (typeof WEBHOOK_EVENTS)[number];

const NAMES: ReadonlySet<string> = new Set(WEBHOOK_EVENTS);
export const isWebhookEvent = (name: string): name is WebhookEventName => NAMES.has(name);
