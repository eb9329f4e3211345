/**
 * Every error code a client can receive in `error`, with its HTTP status and what it
 * means: the one table http/errors.ts answers from and docs/api.md renders (between the
 * error-catalogue markers; `npm run docs:errors` rewrites it). test/errors/catalogue.test.ts
 * reads the source and fails when a code raised anywhere is missing here, when an entry is
 * raised nowhere, when a status disagrees with the error class that carries the code, or
 * when docs/api.md is stale.
 */

export interface ErrorEntry {
  status: number;
  /** One line for an API client: when this happens and what to do. */
  meaning: string;
}

export const ERROR_CATALOGUE = {
  // The request itself (http/ and the validators).
  VALIDATION_ERROR: { status: 400, meaning: 'A field is missing, of the wrong type, unknown or out of range; `details` names each field.' },
  MALFORMED_JSON: { status: 400, meaning: 'The body is not valid JSON.' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The body is larger than the accepted limit (256 KiB).' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'The body is not sent as `application/json`.' },
  ROUTE_NOT_FOUND: { status: 404, meaning: 'No route has this method and path.' },
  INTERNAL_ERROR: {
    status: 500,
    meaning: 'An unexpected failure; it is logged with the requestId. Nothing a client sends should cause it.',
  },
  CONCURRENT_UPDATE: {
    status: 503,
    meaning:
      'The database rolled the request back because of a concurrent change to the same records; nothing was written, send it again (`Retry-After: 1`).',
  },

  // Who is asking.
  UNAUTHORIZED: { status: 401, meaning: 'No `x-api-key`, or not a live key.' },
  FORBIDDEN: { status: 403, meaning: "The key's kind may not do this (a wallet key managing keys; key export switched off)." },
  KEY_READ_ONLY: { status: 403, meaning: 'A read-only key sent something other than GET.' },
  KEY_EXPORT_NOT_ALLOWED: { status: 403, meaning: 'The key may not export private keys.' },
  KEY_RESTRICTED: { status: 403, meaning: 'Only a business key without restrictions may revoke API keys.' },
  KEY_GRANT_NOT_ALLOWED: {
    status: 403,
    meaning: 'APPROVE and MANAGE_POLICIES are given by the operator only (the `api-key create --scope` command), never by another key.',
  },
  APPROVER_KEY: {
    status: 403,
    meaning:
      'A key with the APPROVE grant creates no API key or wallet (whose key it would hand out): it would approve what its own keys pay out.',
  },
  RATE_LIMITED: {
    status: 429,
    meaning: "The key's request rate (or the dashboard's sign-in attempts) ran out; retry after `Retry-After` seconds.",
  },
  AUTH_RATE_LIMITED: {
    status: 429,
    meaning: 'Too many failed authentications from this client address; retry after `Retry-After` seconds.',
  },
  STREAM_LIMIT_REACHED: {
    status: 429,
    meaning:
      'This API key (5 by default) or its business (50, whatever the keys) already has the most event streams this server keeps open; close one, or retry after `Retry-After` seconds.',
  },

  // Resources.
  NOT_FOUND: { status: 404, meaning: 'Unknown resource, or one of another wallet or business (indistinguishable on purpose).' },
  CHAIN_NOT_AVAILABLE: {
    status: 422,
    meaning: 'The blockchain and network are not configured on this installation (GET /v1/blockchains lists them).',
  },
  ASSET_NOT_AVAILABLE: { status: 422, meaning: "The asset is not in the chain's catalogue." },
  ASSET_NOT_ENABLED: { status: 422, meaning: 'The asset is not enabled on this wallet.' },
  ASSET_CHAIN_MISMATCH: { status: 422, meaning: 'The asset is on another chain than the wallet.' },
  ASSET_DECIMALS_MISMATCH: {
    status: 422,
    meaning: "The token contract's decimals on chain differ from the catalogue's; the operator must fix the chains file first.",
  },
  WALLET_INACTIVE: { status: 422, meaning: 'The wallet is deactivated; reactivate it first.' },

  // Addresses and beneficiaries.
  ADDRESSES_DISABLED: { status: 422, meaning: "Address creation is switched off in the wallet's configurations." },
  SLUG_TAKEN: { status: 409, meaning: 'Another payment link of this installation has this slug (compared without case); choose another.' },
  PAYMENT_LINK_INACTIVE: {
    status: 422,
    meaning: "The payment link is deactivated or has taken its `paymentLimit` of payments; the message is the link's `inactiveMessage`.",
  },
  ASSET_NOT_ACCEPTABLE: {
    status: 422,
    meaning: 'A payment link takes USD stablecoins only (tokens whose currency is USD), enabled on the wallet.',
  },
  ASSET_NOT_ACCEPTED: { status: 422, meaning: 'The payment link does not take that wallet and asset (its `accepts` lists what it does).' },
  LINK_NETWORKS_DIFFER: { status: 422, meaning: 'A payment link takes wallets of one network: all testnet or all mainnet.' },
  ADDRESS_LIMIT_REACHED: { status: 422, meaning: 'The wallet has used every derivation index it may issue.' },
  ADDRESS_EXISTS: { status: 409, meaning: "The address is the wallet's own master address." },
  ADDRESS_NOT_EXTERNAL: {
    status: 422,
    meaning:
      'The service already holds the key of this address (a master, child or imported address of some wallet), so it cannot be registered as external.',
  },
  NOT_EXTERNAL: { status: 422, meaning: 'Only external (whitelisted) addresses can be removed.' },
  KEY_IN_USE: {
    status: 409,
    meaning:
      'A sweep, recovery or transaction from the address is in flight; its imported key stays until it is final, then remove the address.',
  },
  BENEFICIARY_EXISTS: { status: 409, meaning: 'The address already is a beneficiary of this wallet; update it, or delete it first.' },
  BENEFICIARY_NOT_SETTLING: {
    status: 422,
    meaning:
      "A settlement run's beneficiary was deleted, deactivated, taken off settlement or replaced as the default before its payout was accepted; nothing was paid (the run's `error`).",
  },
  OWN_ADDRESS: { status: 422, meaning: "A beneficiary cannot be one of the wallet's own child addresses." },
  SAME_ADDRESS: { status: 422, meaning: "The address is the wallet's own master address." },

  // Withdrawals.
  INSUFFICIENT_BALANCE: {
    status: 422,
    meaning: 'The sender holds too little of the asset (or of the native coin for network fees), pending withdrawals counted.',
  },
  NOT_WHITELISTED: { status: 422, meaning: 'The wallet only pays whitelisted beneficiaries and the recipient is not one.' },
  TRANSFER_WOULD_FAIL: { status: 422, meaning: 'The chain refuses the transfer as made (it would revert); nothing was sent.' },
  REFERENCE_IN_USE: { status: 409, meaning: 'The reference is already used by another transaction of this wallet.' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, meaning: 'The Idempotency-Key was already used with a different request; use a new key.' },
  NOT_YET_SENT: { status: 409, meaning: 'The withdrawal is queued and not signed yet; there is nothing to speed up.' },
  NOT_RETRYABLE: {
    status: 409,
    meaning:
      'Only withdrawals can be retried; on a chain without nonces (Tron, Solana) a sent one is rebuilt when it expires, not replaced.',
  },
  NOT_CANCELLABLE: {
    status: 409,
    meaning: 'The transaction is not a withdrawal, it failed and nothing is pending, or it was sent on a chain without nonces.',
  },
  NOT_FINAL: { status: 409, meaning: 'The failed attempt is not deep enough to be final yet; retry later.' },
  ALREADY_MINED: { status: 409, meaning: 'The withdrawal was mined; it cannot be retried, cancelled or sped up.' },
  ALREADY_CANCELLED: { status: 409, meaning: 'The withdrawal was cancelled; make a new one.' },
  CANCELLATION_PENDING: { status: 409, meaning: 'The withdrawal is being cancelled.' },
  TRY_AGAIN: { status: 409, meaning: 'The transaction changed state during the operation; send the request again.' },
  CHAIN_REJECTED: { status: 422, meaning: 'A node refused the transaction as made (it would revert, a nonce is taken, ...).' },
  AML_BLOCKED: {
    status: 422,
    meaning:
      'AML screening found a recipient (a destination, beneficiary, contract or spender) on a list; `details` names the field and the list. Nothing was written or signed; the attempt is in the audit log.',
  },

  // Deposits, sweeps and webhooks.
  TRANSACTION_NOT_FOUND: { status: 422, meaning: 'No successful transaction with this hash is known to the chain.' },
  NO_DEPOSIT_FOUND: { status: 422, meaning: 'The transaction made no deposit of an enabled asset to this wallet.' },
  BLOCK_NOT_FOUND: { status: 422, meaning: "The block number is beyond the chain's head." },
  NOT_A_DEPOSIT: { status: 422, meaning: 'Only deposits are swept (or held and released by AML screening).' },
  NOT_SWEEPABLE: { status: 422, meaning: 'The deposit is already on the master address.' },
  ALREADY_SWEPT: { status: 409, meaning: 'The deposit has already been swept.' },
  DEPOSIT_NOT_CONFIRMED: { status: 409, meaning: 'Only confirmed deposits are swept.' },
  NOTHING_TO_SWEEP: { status: 422, meaning: 'The address holds none of this asset.' },
  AML_HELD: {
    status: 422,
    meaning: 'A deposit of this asset at this address is held by AML screening (a listed sender); an operator releases it first.',
  },
  NOT_HELD: { status: 409, meaning: 'The deposit is not held by AML screening (never held, or already released).' },
  FUNDS_IN_FLIGHT: {
    status: 409,
    meaning: 'What the address holds of the asset is held by its own withdrawals in flight: nothing is free to sweep until they settle.',
  },
  NO_EVENT: { status: 422, meaning: 'The transaction has no webhook event to resend yet.' },
  WEBHOOK_URL_NOT_SET: { status: 422, meaning: "Set the wallet's webhookUrl first." },

  // Contract calls, signing, auto-settlement.
  CONTRACT_WRITES_DISABLED: {
    status: 422,
    meaning: "Contract writes are switched off in the wallet's configurations (typed-data signing too: a contract acts on it).",
  },
  CONTRACT_NOT_ALLOWED: {
    status: 422,
    meaning: "The contract (a call's, or typed data's verifying contract) is not in the wallet's contract allow-list.",
  },
  NOT_A_CONTRACT: { status: 422, meaning: 'There is no contract code at the address.' },
  CONTRACT_REVERTED: { status: 422, meaning: 'The call reverts; `details` carries the decoded reason.' },
  CONTRACT_CALL_FAILED: { status: 422, meaning: "The contract's answer does not match the ABI given, or the call failed." },
  INSUFFICIENT_FUNDS_FOR_GAS: {
    status: 422,
    meaning: 'The sending address holds too little of the native coin for the gas the calls may need.',
  },
  NOT_SUPPORTED: { status: 422, meaning: 'The operation is not available on this chain (e.g. message signing).' },
  TYPED_DATA_NOT_SUPPORTED: {
    status: 422,
    meaning:
      "Typed-data (EIP-712) signing is not available on the wallet's chain (Tron, Solana); sign a message instead. Nothing is written.",
  },
  MESSAGE_NAMES_SIGNER: {
    status: 422,
    meaning:
      "A Solana message whose bytes contain the signer's own 32-byte public key, as a transaction's would: it is not signed, so a message signature can never authorise a transaction. Nothing is written.",
  },
  NO_PRIVATE_KEY: { status: 422, meaning: 'The service holds no key for an external address: it can only read and estimate.' },
  SWAP_NOT_AVAILABLE: {
    status: 422,
    meaning:
      'No swap router is configured for the chain, so a rule cannot change assets; or the router does not swap what was asked (a native coin).',
  },

  // Swaps.
  CROSS_CHAIN_SWAP_NOT_SUPPORTED: {
    status: 422,
    meaning: 'The two assets are on different chains: swaps stay on one chain (this service has no bridge).',
  },
  SLIPPAGE_EXCEEDED: {
    status: 422,
    meaning: 'The pool gives less than the minimum the slippage tolerance (or the quote) allows; nothing was sent. Quote again.',
  },
  NO_SWAP_ROUTE: { status: 422, meaning: 'No pool of the router swaps the two assets.' },
  QUOTE_USED: { status: 409, meaning: 'The quote has been executed already; ask for a new one.' },
  SWAP_IN_PROGRESS: { status: 409, meaning: 'Another swap from the same address is in flight; send this one once it ends.' },

  // Asset recovery (salvage).
  SENDER_NOT_IN_WALLET: {
    status: 422,
    meaning: 'senderAddress is not the master or an address of this wallet: no key of the wallet holds it.',
  },
  SALVAGE_NOT_NEEDED: {
    status: 422,
    meaning: "The funds are an enabled asset of the wallet, or the master's own native coin: withdraw them instead.",
  },
  SALVAGE_CHAIN_MISMATCH: {
    status: 422,
    meaning: "blockchainId names a chain of another family: the wallet's keys hold no address there.",
  },
  NOT_A_TOKEN: { status: 422, meaning: 'tokenAddress does not answer as a token (its decimals, its balanceOf) on that chain.' },
  RPC_URL_UNREACHABLE: {
    status: 422,
    meaning: "rpcUrl did not answer as a chain of the wallet's family (or failed during the request); nothing was sent.",
  },
  SALVAGE_IN_PROGRESS: { status: 409, meaning: 'Another recovery from the same address is in flight; send this one once it ends.' },

  // Staking (Tron's Stake 2.0).
  INSUFFICIENT_STAKE: {
    status: 422,
    meaning: 'Less is staked for the resource (and held by the master, not lent) than the amount to unstake.',
  },
  UNSTAKE_LIMIT_REACHED: {
    status: 422,
    meaning:
      'As many unstakes wait for their unlock as the chain allows (Tron: 32); the message names the next unlock date. Wait for it, or restake them.',
  },
  NOTHING_TO_RESTAKE: { status: 422, meaning: 'No unstake is pending, so there is nothing to put back into the stake.' },
  NOTHING_TO_WITHDRAW: { status: 422, meaning: 'No unstaked amount has unlocked yet; the message names the next unlock date.' },

  // Policies and approvals (docs/policies.md).
  POLICY_BLOCKED: {
    status: 422,
    meaning:
      'A transaction policy blocks the payout, or holds for approval one that cannot wait (a sign-only withdrawal, a contract write, a typed-data signature, a swap, an asset recovery); the message names the rule and why it matched. Nothing was reserved or written.',
  },
  POLICY_MANAGEMENT_NOT_ALLOWED: {
    status: 403,
    meaning:
      "Changing policies, or the beneficiaries of a wallet that a policy's destination condition reads, needs a business key with the MANAGE_POLICIES scope, or a dashboard owner or admin.",
  },
  NOT_AN_APPROVER: {
    status: 403,
    meaning:
      "The caller may not vote on this request: a key without the APPROVE scope or not among the request's approvers, or a dashboard user whose role cannot approve.",
  },
  TWO_FACTOR_REQUIRED: {
    status: 403,
    meaning: 'Approving from the dashboard, or turning two-factor sign-in off, needs a session signed in with a TOTP code.',
  },
  SELF_APPROVAL: { status: 403, meaning: 'The initiator of a payout cannot approve or reject it.' },
  EMAIL_TAKEN: {
    status: 409,
    meaning:
      'dashboard-user: the email belongs to a dashboard user of another business; a password reset names the business the user is in.',
  },
  ALREADY_VOTED: { status: 409, meaning: 'This approver has already voted on the request; approvers are counted once.' },
  APPROVAL_CLOSED: { status: 409, meaning: 'The request is already approved, rejected, expired or cancelled.' },
  APPROVAL_EXPIRED: {
    status: 409,
    meaning: 'The request passed its time to live before a decision; its payout is now CANCELLED (`withdraw.cancelled`).',
  },
  AWAITING_APPROVAL: { status: 409, meaning: 'The withdrawal waits for approval and was never sent: there is nothing to retry.' },
  LAST_OWNER: { status: 409, meaning: 'Dashboard: the business must keep an owner; make someone else owner first.' },
  USER_EXISTS: { status: 409, meaning: 'Dashboard: the email already has an account.' },

  // A dependency.
  AML_UNAVAILABLE: {
    status: 503,
    meaning:
      'AML screening could not be completed (a provider did not answer) and the wallet fails closed (`configurations.aml.onProviderFailure` BLOCK): nothing was written; retry later. /readyz names the provider.',
  },
  CHAIN_UNAVAILABLE: { status: 503, meaning: "A chain's RPC endpoint failed; safe to retry." },
  DATABASE_BUSY: {
    status: 503,
    meaning:
      'Every database connection of the instance stayed busy for 30 s. An open transaction of the request was rolled back, but a step it had already committed may stand: send it again with the same `reference` or `Idempotency-Key` (where it takes one), or look it up first.',
  },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function catalogueEntry(code: string): ErrorEntry | undefined {
  return Object.hasOwn(ERROR_CATALOGUE, code) ? ERROR_CATALOGUE[code as ErrorCode] : undefined;
}

export const ERROR_TABLE_START = '<!-- error-catalogue:start (generated from src/http/error-catalogue.ts; npm run docs:errors) -->';
export const ERROR_TABLE_END = '<!-- error-catalogue:end -->';

/** The catalogue as a Markdown table, by status then code. */
export function renderErrorTable(): string {
  const rows = Object.entries(ERROR_CATALOGUE as Record<string, ErrorEntry>)
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(([code, e]) => `| ${e.status} | \`${code}\` | ${e.meaning.replace(/\|/g, '\\|')} |`);
  return ['| Status | Code | Meaning |', '|---|---|---|', ...rows].join('\n');
}

/** `doc` with the text between the markers replaced by the current table. */
export function withErrorTable(doc: string): string {
  const start = doc.indexOf(ERROR_TABLE_START);
  const end = doc.indexOf(ERROR_TABLE_END);
  if (start < 0 || end < start) throw new Error('docs/api.md lacks the error-catalogue markers');
  return `${doc.slice(0, start + ERROR_TABLE_START.length)}\n${renderErrorTable()}\n${doc.slice(end)}`;
}
