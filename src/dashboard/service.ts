/**
 * Dashboard accounts: users (one business each), password checks with a progressive delay
 * on failures (throttle.ts), and sessions. A session acts with its business's authority, the same
 * AuthContext a business API key gives, so every page goes through the API's own rules.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../db/pool.js';
import type { Clock } from '../lib/clock.js';
import { uuidv7 } from '../lib/ids.js';
import { AppError, ValidationError } from '../lib/errors.js';
import type { AuthContext } from '../modules/apikeys/service.js';
import { decoyHash, hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords.js';
import * as store from './store.js';
import { ACCOUNT, accountKey, CLIENT, clientKey, PRUNE_AFTER_MS, PRUNE_CHUNK } from './throttle.js';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

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
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

export function sessionHash(id: string): Buffer {
  return createHash('sha256').update(id, 'utf8').digest();
}

export class DashboardService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

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
    // The embedded default re-seeds on every start: keep the stored hash (and sessions)
    // when the password has not changed.
    if (existing && existing.business_id === businessId && (await verifyPassword(password, existing.password_hash))) {
      return { id: existing.id, email: existing.email };
    }
    const passwordHash = await hashPassword(password);
    return this.db.transaction().execute(async (tx) => {
      const row = await store.upsertUser(tx, { id: uuidv7(), businessId, email: trimmed, passwordHash });
      await store.deleteSessionsOfUser(tx, row.id);
      return { id: row.id, email: row.email };
    });
  }

  /**
   * Checks a password and opens a session. Wrong email and wrong password give the same
   * answer in the same time. Before the account's or the client's next check is due
   * (throttle.ts) the attempt is refused at once with the wait, and nothing is written.
   */
  async login(email: string, password: string, ip: string): Promise<{ sessionId: string; session: Session } | null> {
    const emailLower = email.trim().toLowerCase().slice(0, 254);
    const now = this.clock.now();
    const keys = [accountKey(emailLower), clientKey(ip)] as const;
    await this.claim(keys, now);
    const user = emailLower ? await store.findUserByEmail(this.db, emailLower) : undefined;
    const candidate = password.slice(0, MAX_PASSWORD_LENGTH);
    const ok = await verifyPassword(candidate, user?.password_hash ?? (await decoyHash()));
    if (!user || !ok) return null;
    const sessionId = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(24).toString('base64url');
    await this.db.transaction().execute(async (tx) => {
      await store.clearThrottle(tx, keys[0]);
      await store.forgetFailure(tx, keys[1]);
      await store.insertSession(tx, {
        idHash: sessionHash(sessionId),
        userId: user.id,
        csrfToken,
        expiresAt: new Date(now.getTime() + SESSION_TTL_MS),
      });
    });
    // Housekeeping rides on logins: rare enough to be free, frequent enough to keep tables small.
    await store.deleteExpiredSessions(this.db);
    return { sessionId, session: toSession({ user_id: user.id, email: user.email, business_id: user.business_id, csrf_token: csrfToken }) };
  }

  /**
   * Counts the attempt as a failure of the account and of the client (both or neither),
   * or throws TooManyAttemptsError when either is not due, having written nothing. Recording
   * an attempt also prunes rows quiet for a day, so the table stays bounded.
   */
  private async claim(keys: readonly [string, string], now: Date): Promise<void> {
    await this.refuseIfNotDue(keys, now);
    try {
      await this.db.transaction().execute(async (tx) => {
        // Always the account first: concurrent claims lock the rows in one order.
        if (!(await store.claimCheck(tx, keys[0], ACCOUNT, now))) throw new NotDue();
        if (!(await store.claimCheck(tx, keys[1], CLIENT, now))) throw new NotDue();
        await store.pruneThrottle(tx, new Date(now.getTime() - PRUNE_AFTER_MS), PRUNE_CHUNK);
      });
    } catch (err) {
      if (!(err instanceof NotDue)) throw err;
      // A concurrent attempt claimed the check first: refuse with its wait.
      await this.refuseIfNotDue(keys, now);
      throw new TooManyAttemptsError(1);
    }
  }

  private async refuseIfNotDue(keys: readonly [string, string], now: Date): Promise<void> {
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

function toSession(row: { user_id: string; email: string; business_id: string; csrf_token: string }): Session {
  return {
    userId: row.user_id,
    email: row.email,
    businessId: row.business_id,
    csrfToken: row.csrf_token,
    // The business's authority, as a business API key has it; the key id names the actor
    // in audit records.
    auth: { keyId: `dashboard:${row.user_id}`, businessId: row.business_id, walletId: null },
  };
}
