/**
 * Dashboard accounts: users (one business each), password checks with a progressive delay
 * on failures by (account, client) (throttle.ts), known devices, and sessions. A session acts
 * with its business's authority, the same AuthContext a business API key gives, so every
 * page goes through the API's own rules.
 *
 * Known devices: a successful sign-in gives the browser a device token for the account (a
 * random token in its device cookie, stored hashed, valid for DEVICE_TTL_MS after its last
 * use; a cookie holds up to MAX_DEVICE_TOKENS, one per account). A later attempt on the same
 * account that carries it is throttled by that device's own failures only, so a stranger
 * guessing the password, however patiently, never delays the owner's known browsers. Every
 * failed check of an existing account is on the audit trail (`dashboard.sign_in_failed`),
 * and the next sign-in shows the failures since the previous one (the session's notice).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db, DbConn } from '../db/pool.js';
import type { Clock } from '../lib/clock.js';
import { uuidv7 } from '../lib/ids.js';
import { AppError, ConflictError, ValidationError } from '../lib/errors.js';
import type { AuthContext } from '../modules/apikeys/service.js';
import type { AuditService } from '../modules/audit/service.js';
import type { KeyVault } from '../keys/vault.js';
import { decoyHash, hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import * as store from './store.js';
import { TOTP_REQUIRED_ROLES, TwoFactor } from './two-factor.js';
import { ACCOUNT, accountKey, CLIENT, clientKey, DEVICE, deviceKey, PRUNE_AFTER_MS, PRUNE_CHUNK, type ThrottleRule } from './throttle.js';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** A device cookie outlives its last sign-in by this long (cookie Max-Age and stored row alike). */
export const DEVICE_TTL_MS = 180 * 24 * 60 * 60 * 1000;
/** Failed attempts listed in the notice after a sign-in (the total is shown too). */
const NOTICE_ENTRIES = 10;
const DEVICE_TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** Accounts a browser can be a known device of at once (one token each in its cookie, newest first). */
const MAX_DEVICE_TOKENS = 5;

/** What the dashboard shows after a sign-in that failed attempts on the account came before. */
export interface SignInNotice {
  /** Failed attempts since the previous successful sign-in. */
  failures: number;
  /** The newest of them. */
  recent: { at: string; ip: string; knownDevice: boolean }[];
}

export class TooManyAttemptsError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    const wait = retryAfterSeconds === 1 ? '1 second' : `${retryAfterSeconds} seconds`;
    super('RATE_LIMITED', `Too many failed sign-in attempts. Try again in ${wait}.`, { retryable: true });
  }
}

/** Rolls back a claim when the second key turned out not to be due. */
class NotDue extends Error {}

export interface Session {
  userId: string;
  email: string;
  businessId: string;
  csrfToken: string;
  auth: AuthContext;
  /** Failed sign-in attempts before this session began, until dismissed. */
  notice: SignInNotice | null;
  /** owner, admin, approver, developer or viewer (docs/dashboard.md). */
  role: string;
  /** full; totp: the password was right, the code is awaited; enrol: the role needs TOTP and the user has none yet. */
  stage: store.SessionStage;
  /** Signed in with a TOTP code (approving needs it). */
  twoFactor: boolean;
}

export { TOTP_REQUIRED_ROLES } from './two-factor.js';

export interface SignedIn {
  sessionId: string;
  session: Session;
  /** The browser's device cookie from now on: its tokens, one per account it is a known device of. */
  deviceCookie: string;
}

const deviceHash = (token: string) => createHash('sha256').update(token, 'utf8').digest();

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export const sessionHash = store.sessionHash;

export class DashboardService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Where failed and successful sign-ins are recorded (absent: not recorded, no notice). */
    private readonly audit?: AuditService,
    /** Seals TOTP secrets (absent: two-factor sign-in cannot be set up). */
    vault?: KeyVault,
  ) {
    this.twoFactor = new TwoFactor<Session>({
      db,
      clock,
      audit,
      vault,
      claim: (counters, now) => this.claim(counters, now),
      session: (id) => this.session(id),
    });
  }

  /** Two-factor sign-in (two-factor.ts). */
  readonly twoFactor: TwoFactor<Session>;

  /** Creates a user or resets its password (and ends its sessions). */
  async upsertUser(businessId: string, email: string, password: string): Promise<{ id: string; email: string }> {
    const trimmed = email.trim();
    if (!EMAIL.test(trimmed) || trimmed.length > 254)
      throw new ValidationError('email is not a valid address', [{ field: 'email', message: 'not an email address' }]);
    if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
      throw new ValidationError(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`, [
        { field: 'password', message: 'wrong length' },
      ]);
    }
    const existing = await store.findUserByEmail(this.db, trimmed);
    // A reset names the user's own business: with another one it would move the user there
    // (role and all), perhaps leaving its business without an owner.
    if (existing && existing.business_id !== businessId) {
      throw new ConflictError(
        'EMAIL_TAKEN',
        `${trimmed} is a dashboard user of another business; name that business to set a new password`,
      );
    }
    // The embedded default re-seeds on every start: keep the stored hash (and sessions)
    // when the password has not changed.
    if (existing && existing.business_id === businessId && (await verifyPassword(password, existing.password_hash))) {
      return { id: existing.id, email: existing.email };
    }
    const passwordHash = await hashPassword(password);
    return this.db.transaction().execute(async (tx) => {
      const row = await store.upsertUser(tx, { id: uuidv7(), businessId, email: trimmed, passwordHash });
      await store.deleteSessionsOfUser(tx, row.id);
      // A new password (perhaps after a compromise): no browser is known any more.
      await store.forgetDevices(tx, row.id);
      return { id: row.id, email: row.email };
    });
  }

  /**
   * Checks a password and opens a session. Wrong email and wrong password give the same
   * answer in the same time. Before the next check is due for the attempt's counters
   * (throttle.ts: the known device's own, or else the account's and the client address's)
   * the attempt is refused at once with the wait, and nothing is written.
   */
  async login(email: string, password: string, ip: string, deviceCookie?: string): Promise<SignedIn | null> {
    const emailLower = email.trim().toLowerCase().slice(0, 254);
    const now = this.clock.now();
    const tokens = (deviceCookie ?? '')
      .split('.')
      .filter((t) => DEVICE_TOKEN.test(t))
      .slice(0, MAX_DEVICE_TOKENS);
    const known =
      tokens.length && emailLower
        ? await store.knownDevice(this.db, tokens.map(deviceHash), emailLower, new Date(now.getTime() - DEVICE_TTL_MS))
        : undefined;
    const counters: Counter[] = known
      ? [[deviceKey(known.user_id, known.token_hash), DEVICE]]
      : [
          [accountKey(emailLower), ACCOUNT],
          [clientKey(ip), CLIENT],
        ];
    await this.claim(counters, now);
    const user = emailLower ? await store.findUserByEmail(this.db, emailLower) : undefined;
    const candidate = password.slice(0, MAX_PASSWORD_LENGTH);
    const ok = await verifyPassword(candidate, user?.password_hash ?? (await decoyHash()));
    const attempt = { ip, knownDevice: known !== undefined, at: now.toISOString() };
    if (!user || !ok || user.disabled_at) {
      // Only an existing account has someone to tell.
      if (user) await this.audit?.record(signInRecord(user, 'dashboard.sign_in_failed', attempt));
      return null;
    }
    const sessionId = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(24).toString('base64url');
    // A new token for an account the browser is not a known device of: a token it already
    // holds (perhaps planted in the owner's browser) never becomes this account's.
    const token = known ? tokens.find((t) => deviceHash(t).equals(known.token_hash))! : randomBytes(32).toString('base64url');
    const cookie = [token, ...tokens.filter((t) => t !== token)].slice(0, MAX_DEVICE_TOKENS).join('.');
    // A second factor to give before the session is of any use (or to set up first).
    const stage: store.SessionStage = user.totp_enabled_at ? 'totp' : TOTP_REQUIRED_ROLES.includes(user.role) ? 'enrol' : 'full';
    const notice = await this.db.transaction().execute(async (tx) => {
      // The device's (or the account's) count starts afresh; the address's attempt was no failure.
      await store.clearThrottle(tx, counters[0]![0]);
      if (!known) await store.forgetFailure(tx, counters[1]![0]);
      await store.rememberDevice(tx, deviceHash(token), user.id, now);
      await store.forgetDevices(tx, user.id, new Date(now.getTime() - DEVICE_TTL_MS));
      const notice = await this.#failuresSinceLastSignIn(user.id, tx);
      await this.audit?.record(signInRecord(user, 'dashboard.signed_in', attempt), tx);
      await store.insertSession(tx, {
        idHash: sessionHash(sessionId),
        userId: user.id,
        csrfToken,
        expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
        notice,
        stage,
      });
      return notice;
    });
    // Housekeeping rides on logins: rare enough to be free, frequent enough to keep tables small.
    await store.deleteExpiredSessions(this.db);
    return {
      sessionId,
      deviceCookie: cookie,
      session: toSession({
        user_id: user.id,
        email: user.email,
        business_id: user.business_id,
        csrf_token: csrfToken,
        notice,
        role: user.role,
        stage,
        two_factor: false,
      }),
    };
  }

  async #failuresSinceLastSignIn(userId: string, tx: DbConn): Promise<SignInNotice | null> {
    if (!this.audit) return null;
    const { total, entries } = await this.audit.sinceLast(
      { id: userId, action: 'dashboard.sign_in_failed', marker: 'dashboard.signed_in', limit: NOTICE_ENTRIES },
      tx,
    );
    if (total === 0) return null;
    return {
      failures: total,
      recent: entries.map((e) => {
        const d = (e.details ?? {}) as { ip?: unknown; knownDevice?: unknown; at?: unknown };
        return {
          at: typeof d.at === 'string' ? d.at : e.created_at.toISOString(),
          ip: typeof d.ip === 'string' ? d.ip : 'unknown',
          knownDevice: d.knownDevice === true,
        };
      }),
    };
  }

  /** The session's sign-in notice was read: not shown again in it. */
  async dismissNotice(sessionId: string): Promise<void> {
    await store.clearNotice(this.db, sessionHash(sessionId));
  }

  /**
   * Counts the attempt as a failure of each counter (all or none), or throws
   * TooManyAttemptsError when one is not due, having written nothing. Recording an attempt
   * also prunes rows quiet for a day, so the table stays bounded.
   */
  private async claim(counters: readonly Counter[], now: Date): Promise<void> {
    const keys = counters.map(([key]) => key);
    await this.refuseIfNotDue(keys, now);
    try {
      await this.db.transaction().execute(async (tx) => {
        // Always in the same order (account, then client): concurrent claims lock rows alike.
        for (const [key, rule] of counters) if (!(await store.claimCheck(tx, key, rule, now))) throw new NotDue();
        await store.pruneThrottle(tx, new Date(now.getTime() - PRUNE_AFTER_MS), PRUNE_CHUNK);
      });
    } catch (err) {
      if (!(err instanceof NotDue)) throw err;
      // A concurrent attempt claimed the check first: refuse with its wait.
      await this.refuseIfNotDue(keys, now);
      throw new TooManyAttemptsError(1);
    }
  }

  private async refuseIfNotDue(keys: readonly string[], now: Date): Promise<void> {
    const next = await store.nextAttempts(this.db, [...keys]);
    const wait = Math.max(0, ...next.map((at) => at.getTime() - now.getTime()));
    if (wait > 0) throw new TooManyAttemptsError(Math.ceil(wait / 1000));
  }

  async session(sessionId: string | undefined): Promise<Session | null> {
    if (!sessionId || sessionId.length > 128) return null;
    const row = await store.findLiveSession(this.db, sessionHash(sessionId));
    return row ? toSession(row) : null;
  }

  async logout(sessionId: string): Promise<void> {
    await store.deleteSession(this.db, sessionHash(sessionId));
  }
}

/** A throttle counter and its rule (throttle.ts). */
type Counter = readonly [key: string, rule: ThrottleRule];

function signInRecord(user: store.UserRow, action: string, attempt: { ip: string; knownDevice: boolean; at: string }) {
  return {
    businessId: user.business_id,
    walletId: null,
    actor: `dashboard-sign-in:${attempt.ip}`,
    action,
    targetType: 'dashboard_user',
    targetId: user.id,
    details: { email: user.email, ...attempt },
  };
}

function toSession(row: {
  user_id: string;
  email: string;
  business_id: string;
  csrf_token: string;
  notice: unknown;
  role: string;
  stage: string;
  two_factor: boolean;
}): Session {
  return {
    userId: row.user_id,
    email: row.email,
    businessId: row.business_id,
    csrfToken: row.csrf_token,
    // The business's authority, as a business API key has it, narrowed by the user's role in
    // the pages (roles.ts) and in policies (approvers); the key id names the actor in audit records.
    auth: {
      keyId: `dashboard:${row.user_id}`,
      businessId: row.business_id,
      walletId: null,
      user: { id: row.user_id, email: row.email, role: row.role, twoFactor: row.two_factor },
    },
    notice: (row.notice as SignInNotice | null) ?? null,
    role: row.role,
    stage: row.stage as store.SessionStage,
    twoFactor: row.two_factor,
  };
}
