/**
 * Two-factor sign-in with TOTP (RFC 6238; lib/totp.ts): enrolment (a secret sealed by the key
 * vault, live once a first code confirms it), the sign-in's second step, turning it off.
 * A right code makes the session full and two-factor under a new id (store.upgradeSession);
 * codes are good once (the last step used is stored) and throttled per user like passwords.
 */
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/pool.js';
import type { Clock } from '../lib/clock.js';
import { ForbiddenError, UnauthorizedError, ValidationError } from '../lib/errors.js';
import { newSecret, otpauthUri, secretText, verifyTotp } from '../lib/totp.js';
import type { KeyVault } from '../keys/vault.js';
import { DASHBOARD_TOTP } from '../keys/sealed-columns.js';
import type { AuditService } from '../modules/audit/service.js';
import * as store from './store.js';
import * as team from './team-store.js';
import { SECOND_FACTOR, secondFactorKey, type ThrottleRule } from './throttle.js';
import type { AuthContext } from '../modules/apikeys/service.js';

/** What a session must have for the second step (service.ts Session; named here so this file needs nothing of service.ts). */
export interface SessionBase {
  userId: string;
  csrfToken: string;
  stage: string;
  twoFactor: boolean;
  auth: AuthContext;
}

/** Roles that must sign in with a second factor. */
export const TOTP_REQUIRED_ROLES: readonly string[] = ['approver'];
const TOTP_ISSUER = 'Stablecoin Wallet';

export interface TwoFactorDeps<S extends SessionBase> {
  db: Db;
  clock: Clock;
  audit?: AuditService | undefined;
  vault?: KeyVault | undefined;
  /** The sign-in throttle's claim (service.ts): refuses an attempt before its time, counts it as a failure until it proves right. */
  claim(counters: readonly (readonly [string, ThrottleRule])[], now: Date): Promise<void>;
  session(sessionId: string): Promise<S | null>;
}

const sessionHash = store.sessionHash;

export class TwoFactor<S extends SessionBase> {
  constructor(private readonly deps: TwoFactorDeps<S>) {}

  /**
   * Starts (or restarts) enrolment: a new secret, sealed, waiting for its first code. The
   * secret and its otpauth URI are shown once, to be typed or scanned into an authenticator.
   */
  async startTotp(userId: string): Promise<{ secret: string; uri: string }> {
    const vault = this.#vault();
    const secret = newSecret();
    try {
      const email = await this.deps.db.transaction().execute(async (tx) => {
        // Sealed in the transaction that stores it: a key rotation waits for it (modules/custody).
        const sealed = await vault.seal(secret, DASHBOARD_TOTP.associatedData(userId), tx);
        const row = await team.lockTotp(tx, userId);
        if (!row) throw new ValidationError('no such user');
        if (row.totp_enabled_at) throw new ValidationError('Two-factor sign-in is on already; turn it off first to set up a new device');
        await team.setPendingSecret(tx, userId, sealed);
        return row.email;
      });
      return { secret: secretText(secret), uri: otpauthUri(secret, email, TOTP_ISSUER) };
    } finally {
      secret.fill(0);
    }
  }

  /**
   * Confirms enrolment with a first code, or (stage totp) checks the code of a sign-in.
   * Either way the session becomes full and two-factor under a new id, returned (null: wrong
   * code). Codes are throttled per user like passwords, and each is good once.
   */
  async secondFactor(sessionId: string, code: string): Promise<{ sessionId: string; session: S } | null> {
    const current = await this.deps.session(sessionId);
    if (!current) return null;
    const now = this.deps.clock.now();
    const key = secondFactorKey(current.userId);
    await this.deps.claim([[key, SECOND_FACTOR]], now);
    const result = await this.deps.db.transaction().execute(async (tx) => {
      const row = await team.lockTotp(tx, current.userId);
      if (!row?.totp_secret_sealed) return null;
      const secret = await this.#vault().open(row.totp_secret_sealed, DASHBOARD_TOTP.associatedData(row.id));
      const step = verifyTotp(
        secret,
        code.replace(/\s/g, ''),
        now.getTime(),
        row.totp_last_step === null ? null : Number(row.totp_last_step),
      );
      secret.fill(0);
      if (step === null) {
        await this.deps.audit?.record(userRecord(row, 'dashboard.two_factor_failed', {}), tx);
        return null;
      }
      const enrolling = row.totp_enabled_at === null;
      if (enrolling) await team.enableTotp(tx, row.id, step);
      else await team.useStep(tx, row.id, step);
      await store.clearThrottle(tx, key);
      const newId = randomBytes(32).toString('base64url');
      const csrfToken = randomBytes(24).toString('base64url');
      if (!(await store.upgradeSession(tx, sessionHash(sessionId), sessionHash(newId), csrfToken))) return null;
      // Turned on: the user's other sessions signed in with the password alone. Left, one of
      // them (a stolen password's) would stay a full session that never gave a code.
      if (enrolling) await store.deleteOtherSessionsOfUser(tx, row.id, sessionHash(newId));
      await this.deps.audit?.record(userRecord(row, enrolling ? 'dashboard.two_factor_enabled' : 'dashboard.two_factor_passed', {}), tx);
      return { newId, csrfToken };
    });
    if (!result) return null;
    return {
      sessionId: result.newId,
      session: {
        ...current,
        csrfToken: result.csrfToken,
        stage: 'full',
        twoFactor: true,
        auth: { ...current.auth, user: { ...current.auth.user!, twoFactor: true } },
      },
    };
  }

  totpEnabled(userId: string): Promise<boolean> {
    return team.totpEnabled(this.deps.db, userId);
  }

  /**
   * Turns two-factor sign-in off (a role that requires it cannot), from a session that gave a
   * code and with a current code: a stolen session alone must not take the second factor
   * away (and enrol its own). The code is throttled and good once, as at sign-in.
   */
  async disableTotp(session: { userId: string; twoFactor: boolean }, code: string): Promise<void> {
    if (!session.twoFactor) throw new ForbiddenError('Sign in with your code first to turn two-factor sign-in off', 'TWO_FACTOR_REQUIRED');
    const now = this.deps.clock.now();
    const key = secondFactorKey(session.userId);
    await this.deps.claim([[key, SECOND_FACTOR]], now);
    const wrong = await this.deps.db.transaction().execute(async (tx) => {
      const row = await team.lockTotp(tx, session.userId);
      if (!row?.totp_secret_sealed || row.totp_enabled_at === null) return false;
      if (TOTP_REQUIRED_ROLES.includes(row.role)) throw new ValidationError(`Your role (${row.role}) requires two-factor sign-in`);
      const secret = await this.#vault().open(row.totp_secret_sealed, DASHBOARD_TOTP.associatedData(row.id));
      const last = row.totp_last_step === null ? null : Number(row.totp_last_step);
      const step = verifyTotp(secret, code.replace(/\s/g, ''), now.getTime(), last);
      secret.fill(0);
      if (step === null) {
        await this.deps.audit?.record(userRecord(row, 'dashboard.two_factor_failed', {}), tx);
        return true;
      }
      await store.clearThrottle(tx, key);
      await team.clearTotp(tx, session.userId);
      await this.deps.audit?.record(userRecord(row, 'dashboard.two_factor_disabled', {}), tx);
      return false;
    });
    if (wrong) throw new UnauthorizedError('Wrong code: type the code your authenticator app shows now');
  }

  #vault(): KeyVault {
    if (!this.deps.vault) throw new Error('two-factor sign-in needs the key vault');
    return this.deps.vault;
  }
}

function userRecord(user: { id: string; business_id: string; email: string }, action: string, details: Record<string, unknown>) {
  return {
    businessId: user.business_id,
    walletId: null,
    actor: user.email,
    action,
    targetType: 'dashboard_user',
    targetId: user.id,
    details,
  };
}
