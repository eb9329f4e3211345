/**
 * What each dashboard role may do (docs/dashboard.md, "Roles"). Every page reads for every
 * role; changes are checked here, route by route, before the service is called, and the
 * approvers of a payout are checked again by the policies (a role, a user id, and a
 * two-factor session: modules/policies/identity.ts).
 */
import { ForbiddenError } from '../lib/errors.js';
import type { Session } from './service.js';

export type Capability =
  /** Create wallets, switch assets and sweeping; create, deactivate and activate payment links. */
  | 'manage_wallets'
  /** API keys, webhook URLs, test events, resending deliveries. */
  | 'develop'
  /** Send a withdrawal from the form (through the policies like any other). */
  | 'withdraw'
  /** Vote on approval requests (with a two-factor session, and when listed by the rule). */
  | 'approve'
  /** Release a deposit AML screening holds (a compliance decision: its sweep and settlements proceed). */
  | 'release_held'
  /** Invite users, change roles, remove users. */
  | 'manage_team';

const ALLOWED: Record<Capability, readonly string[]> = {
  manage_wallets: ['owner', 'admin'],
  develop: ['owner', 'admin', 'developer'],
  withdraw: ['owner', 'admin'],
  approve: ['owner', 'admin', 'approver'],
  release_held: ['owner', 'admin'],
  manage_team: ['owner', 'admin'],
};

const WHAT: Record<Capability, string> = {
  manage_wallets: 'change wallets',
  develop: 'manage API keys and webhooks',
  withdraw: 'send withdrawals or hand out a wallet key that can',
  approve: 'approve payouts',
  release_held: 'release deposits held by AML screening',
  manage_team: 'manage the team',
};

export function can(session: Pick<Session, 'role'>, capability: Capability): boolean {
  return ALLOWED[capability].includes(session.role);
}

/**
 * Restrictions every business API key a role mints carries: a key that may write may pay
 * out over the API, so only a role that may withdraw mints one (a developer's keys read).
 */
export function mintedKeyRestrictions(session: Pick<Session, 'role'>): 'READ_ONLY'[] {
  return can(session, 'withdraw') ? [] : ['READ_ONLY'];
}

/**
 * Whether the role may revoke a business API key with these restrictions: what it could mint
 * (mintedKeyRestrictions). A developer revoking an owner's writing key would stop the
 * business's payouts over the API, which its own keys cannot make.
 */
export function mayRevokeKey(session: Pick<Session, 'role'>, scopes: readonly string[]): boolean {
  return mintedKeyRestrictions(session).every((r) => scopes.includes(r));
}

export function requireCan(session: Pick<Session, 'role'>, capability: Capability): void {
  if (!can(session, capability)) throw new ForbiddenError(`Your role (${session.role}) cannot ${WHAT[capability]}`);
}

/**
 * Which capability each change needs, by route (every POST is listed; one that is not is
 * refused, so a new form cannot forget its check). `null`: any signed-in user (signing out,
 * the account, votes, which the policies check themselves). The patterns are matched
 * against the route as registered (`/wallets/:walletId/withdraw`), which a parameter's
 * `:name` satisfies like any id.
 */
const POSTS: [RegExp, Capability | null][] = [
  [/^\/(logout|notice\/dismiss|login\/two-factor)$/, null],
  [/^\/account(\/.*)?$/, null],
  [/^\/approvals\/[^/]+\/(approve|reject|override)$/, null],
  [/^\/wallets$/, 'manage_wallets'],
  [/^\/wallets\/[^/]+\/(assets\/[^/]+|sweeping)$/, 'manage_wallets'],
  [/^\/wallets\/[^/]+\/addresses$/, 'develop'],
  [/^\/wallets\/[^/]+\/transactions\/[^/]+\/resend$/, 'develop'],
  [/^\/wallets\/[^/]+\/transactions\/[^/]+\/aml-release$/, 'release_held'],
  [/^\/wallets\/[^/]+\/withdraw$/, 'withdraw'],
  // Payment links take customers' money into a wallet: as changing the wallet's own settings.
  [/^\/payment-links(\/[^/]+\/active)?$/, 'manage_wallets'],
  // A wallet's new key pays out over the API: only roles that may withdraw hand one out.
  [/^\/developers\/[^/]+\/key$/, 'withdraw'],
  [/^\/developers(\/.*)?$/, 'develop'],
  [/^\/deliveries\/[^/]+\/resend$/, 'develop'],
  [/^\/(users|invitations)(\/.*)?$/, 'manage_team'],
];
const GETS: [RegExp, Capability][] = [
  [/^\/developers$/, 'develop'],
  [/^\/users$/, 'manage_team'],
  [/^\/wallets\/[^/]+\/withdraw$/, 'withdraw'],
];

/**
 * Throws the 403 a role gets for this request. `route` is the route the router matched, as
 * registered and without the /dashboard prefix (`/developers`, `/wallets/:walletId`), or null
 * when none did. Never the request's own path: the router decodes it first
 * (`/develop%65rs` is `/developers`) and the raw URL can be spelt many ways (an
 * absolute-form target, a `#`), so only what the router chose says which handler will run.
 */
export function checkRequest(session: Pick<Session, 'role'>, method: string, route: string | null): void {
  if (method === 'POST') {
    // A POST that reaches no route changes nothing, but is refused like an unlisted one.
    const entry = route === null ? undefined : POSTS.find(([re]) => re.test(route));
    if (!entry) throw new ForbiddenError('This change is not allowed from the dashboard');
    if (entry[1]) requireCan(session, entry[1]);
    return;
  }
  if (route === null) return; // the 404 page
  const entry = GETS.find(([re]) => re.test(route));
  if (entry) requireCan(session, entry[1]);
}
