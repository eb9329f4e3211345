/**
 * Every transaction type, in the order the docs list them: the transactions module's list
 * filter and schema, the wallets module's analytics (counts per type) and the dashboard's
 * filters all name them.
 * It lives here, below both, because wallets cannot import the transactions module (the
 * transactions schemas import the wallets ones: the two would form a circle).
 */
export const TRANSACTION_TYPES = [
  'DEPOSIT',
  'WITHDRAW',
  'SALVAGE',
  'SIGNED',
  'CUSTOM_SMART_CONTRACT',
  'SWAP',
  'AUTO_SETTLEMENT',
  'STAKING',
  'UNSTAKING',
  'RESTAKING',
  'UNSTAKING_WITHDRAW',
] as const;

/** Every status a transaction can be in (the list filters of the API and the dashboard). */
export const TRANSACTION_STATUSES = ['PENDING', 'PENDING_APPROVAL', 'SUCCESS', 'FAILED', 'CANCELLED'] as const;
