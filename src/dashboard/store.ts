/** SQL of the dashboard's sign-in tables (migrations 010, 017, 031 and 038); users, roles and invitations are team-store.ts. */
import { createHash } from 'node:crypto';
import { sql, type Generated } from 'kysely';
import type { DbConn } from '../db/pool.js';
import { delaySeconds, type ThrottleRule } from './throttle.js';

type DashboardTables = {
  dashboard_users: {
    id: string;
    business_id: string;
    email: string;
    password_hash: string;
    role: Generated<string>;
    totp_enabled_at: Date | null;
    disabled_at: Date | null;
    created_at: Generated<Date>;
    updated_at: Generated<Date>;
  };
  dashboard_sessions: {
    id_hash: Buffer;
    user_id: string;
    csrf_token: string;
    created_at: Generated<Date>;
    expires_at: Date;
    notice: Generated<unknown>;
    stage: Generated<string>;
    two_factor: Generated<boolean>;
  };
  dashboard_devices: {
    token_hash: Buffer;
    user_id: string;
    created_at: Date;
    last_used_at: Date;
  };
  dashboard_login_throttle: {
    key: string;
    failures: number;
    last_failure_at: Date;
    next_attempt_at: Date;
  };
};

const t = (db: DbConn) => db.withTables<DashboardTables>();

/** Only the SHA-256 of a session id is stored: a read of the table hands out no live session. */
export function sessionHash(id: string): Buffer {
  return createHash('sha256').update(id, 'utf8').digest();
}

export interface UserRow {
  id: string;
  business_id: string;
  email: string;
  password_hash: string;
  role: string;
  totp_enabled_at: Date | null;
  disabled_at: Date | null;
}

export function findUserByEmail(db: DbConn, email: string): Promise<UserRow | undefined> {
  return t(db)
    .selectFrom('dashboard_users')
    .select(['id', 'business_id', 'email', 'password_hash', 'role', 'totp_enabled_at', 'disabled_at'])
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

/** Creates the user, or (same email; the service checks it is the same business) replaces its password: idempotent seeding. */
export async function upsertUser(db: DbConn, u: { id: string; businessId: string; email: string; passwordHash: string }): Promise<UserRow> {
  const { rows } = await sql<UserRow>`
    INSERT INTO dashboard_users (id, business_id, email, password_hash)
    VALUES (${u.id}, ${u.businessId}, ${u.email}, ${u.passwordHash})
    ON CONFLICT ((lower(email))) DO UPDATE
      SET password_hash = EXCLUDED.password_hash, disabled_at = NULL, updated_at = now()
    RETURNING id, business_id, email, password_hash, role, totp_enabled_at, disabled_at`.execute(db);
  return rows[0]!;
}

export async function insertSession(
  db: DbConn,
  s: { idHash: Buffer; userId: string; csrfToken: string; expiresAt: Date; notice: unknown; stage: SessionStage },
): Promise<void> {
  await t(db)
    .insertInto('dashboard_sessions')
    .values({
      id_hash: s.idHash,
      user_id: s.userId,
      csrf_token: s.csrfToken,
      expires_at: s.expiresAt,
      notice: s.notice === null ? null : JSON.stringify(s.notice),
      stage: s.stage,
    })
    .execute();
}

/** A session's stage: full, or waiting for the second factor (totp) or for its enrolment (enrol). */
export type SessionStage = 'full' | 'totp' | 'enrol';

/**
 * The second factor was given: the session becomes full and two-factor under a new id (the
 * old cookie's id, seen before the code was typed, is worth nothing now).
 */
export async function upgradeSession(db: DbConn, oldHash: Buffer, newHash: Buffer, csrfToken: string): Promise<boolean> {
  const r = await sql`UPDATE dashboard_sessions SET id_hash = ${newHash}, csrf_token = ${csrfToken}, stage = 'full', two_factor = true
                       WHERE id_hash = ${oldHash}`.execute(db);
  return Number(r.numAffectedRows ?? 0n) > 0;
}

/** The session's sign-in notice was read: it is not shown again. */
export async function clearNotice(db: DbConn, idHash: Buffer): Promise<void> {
  await t(db).updateTable('dashboard_sessions').set({ notice: null }).where('id_hash', '=', idHash).execute();
}

/** Which of these device tokens (hashes) is a known device of the account with this email, used since `since`. */
export async function knownDevice(
  db: DbConn,
  tokenHashes: Buffer[],
  emailLower: string,
  since: Date,
): Promise<{ user_id: string; token_hash: Buffer } | undefined> {
  return t(db)
    .selectFrom('dashboard_devices as d')
    .innerJoin('dashboard_users as u', 'u.id', 'd.user_id')
    .select(['d.user_id', 'd.token_hash'])
    .where('d.token_hash', 'in', tokenHashes)
    .where(sql<string>`lower(u.email)`, '=', emailLower)
    .where('d.last_used_at', '>=', since)
    .executeTakeFirst();
}

/** A browser signed in: it is (still) a known device of the user. */
export async function rememberDevice(db: DbConn, tokenHash: Buffer, userId: string, now: Date): Promise<void> {
  await t(db)
    .insertInto('dashboard_devices')
    .values({ token_hash: tokenHash, user_id: userId, created_at: now, last_used_at: now })
    .onConflict((oc) => oc.columns(['token_hash', 'user_id']).doUpdateSet({ last_used_at: now }))
    .execute();
}

/** Forgets the user's devices unused since `before` (all of them without it: a password change). */
export async function forgetDevices(db: DbConn, userId: string, before?: Date): Promise<void> {
  let q = t(db).deleteFrom('dashboard_devices').where('user_id', '=', userId);
  if (before) q = q.where('last_used_at', '<', before);
  await q.execute();
}

export interface SessionRow {
  user_id: string;
  csrf_token: string;
  expires_at: Date;
  business_id: string;
  email: string;
  notice: unknown;
  stage: string;
  two_factor: boolean;
  role: string;
}

/** A live session with its user; expired ones, and those of removed users, are as unknown as made-up ids. */
export function findLiveSession(db: DbConn, idHash: Buffer): Promise<SessionRow | undefined> {
  return t(db)
    .selectFrom('dashboard_sessions as s')
    .innerJoin('dashboard_users as u', 'u.id', 's.user_id')
    .select(['s.user_id', 's.csrf_token', 's.expires_at', 's.notice', 's.stage', 's.two_factor', 'u.business_id', 'u.email', 'u.role'])
    .where('s.id_hash', '=', idHash)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .where('u.disabled_at', 'is', null)
    .executeTakeFirst();
}

export async function deleteSession(db: DbConn, idHash: Buffer): Promise<void> {
  await t(db).deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
}

/** A password change ends every session of the user. */
export async function deleteSessionsOfUser(db: DbConn, userId: string): Promise<void> {
  await t(db).deleteFrom('dashboard_sessions').where('user_id', '=', userId).execute();
}

/** Ends a user's sessions but one (the one that just turned two-factor sign-in on). */
export async function deleteOtherSessionsOfUser(db: DbConn, userId: string, keepHash: Buffer): Promise<void> {
  await sql`DELETE FROM dashboard_sessions WHERE user_id = ${userId} AND id_hash <> ${keepHash}`.execute(db);
}

export async function deleteExpiredSessions(db: DbConn): Promise<void> {
  await t(db)
    .deleteFrom('dashboard_sessions')
    .where('expires_at', '<=', sql<Date>`now()`)
    .execute();
}

/** The earliest time of the next password check for each key that has one. */
export async function nextAttempts(db: DbConn, keys: string[]): Promise<Date[]> {
  const rows = await t(db).selectFrom('dashboard_login_throttle').select('next_attempt_at').where('key', 'in', keys).execute();
  return rows.map((r) => r.next_attempt_at);
}

/**
 * Records an attempt as a failure before its password is checked, and pushes the key's
 * next check out by the rule's delay, in one statement: only when the key's next check is
 * due (`next_attempt_at <= now`), so concurrent attempts see each other and at most one
 * of them gets past a delay. False, with nothing changed, when the key is not due.
 */
export async function claimCheck(db: DbConn, key: string, rule: ThrottleRule, now: Date): Promise<boolean> {
  const nowTs = sql`${now.toISOString()}::timestamptz`;
  const previous =
    rule.leakSeconds !== null
      ? sql`greatest(0, t.failures - floor(extract(epoch FROM ${nowTs} - t.last_failure_at) / ${rule.leakSeconds})::int)`
      : rule.resetSeconds !== null
        ? sql`CASE WHEN t.last_failure_at < ${nowTs} - make_interval(secs => ${rule.resetSeconds}) THEN 0 ELSE t.failures END`
        : sql`t.failures`;
  const n = sql`(${previous} + 1)`;
  const delay = sql`CASE WHEN ${n} <= ${rule.free} THEN 0
                         ELSE least(${rule.capSeconds}::float8, power(2, least(${n} - ${rule.free} - 1, 30))) END`;
  const { rows } = await sql<{ failures: number }>`
    INSERT INTO dashboard_login_throttle AS t (key, failures, last_failure_at, next_attempt_at)
    VALUES (${key}, 1, ${nowTs}, ${nowTs} + make_interval(secs => ${delaySeconds(rule, 1)}))
    ON CONFLICT (key) DO UPDATE SET failures = ${n}, last_failure_at = ${nowTs}, next_attempt_at = ${nowTs} + make_interval(secs => ${delay})
     WHERE t.next_attempt_at <= ${nowTs}
    RETURNING t.failures`.execute(db);
  return rows.length > 0;
}

/** A right password: the account starts again from no failures. */
export async function clearThrottle(db: DbConn, key: string): Promise<void> {
  await t(db).deleteFrom('dashboard_login_throttle').where('key', '=', key).execute();
}

/** A right password: the attempt counted against the client address was no failure. */
export async function forgetFailure(db: DbConn, key: string): Promise<void> {
  await sql`UPDATE dashboard_login_throttle SET failures = greatest(failures - 1, 0) WHERE key = ${key}`.execute(db);
}

/** Deletes up to `limit` rows without a failure since `before` (their delays long over). */
export async function pruneThrottle(db: DbConn, before: Date, limit: number): Promise<number> {
  const r = await sql`
    DELETE FROM dashboard_login_throttle WHERE key IN (
      SELECT key FROM dashboard_login_throttle WHERE last_failure_at < ${before.toISOString()}::timestamptz
       ORDER BY last_failure_at LIMIT ${limit})`.execute(db);
  return Number(r.numAffectedRows ?? 0n);
}
