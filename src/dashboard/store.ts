/** SQL of the dashboard's own tables (migration 010). */
import { sql, type Generated } from 'kysely';
import type { DbConn } from '../db/pool.js';

type DashboardTables = {
  dashboard_users: {
    id: string;
    business_id: string;
    email: string;
    password_hash: string;
    created_at: Generated<Date>;
    updated_at: Generated<Date>;
  };
  dashboard_sessions: {
    id_hash: Buffer;
    user_id: string;
    csrf_token: string;
    created_at: Generated<Date>;
    expires_at: Date;
  };
  dashboard_login_failures: {
    id: Generated<string>;
    email_lower: string;
    ip: string;
    at: Generated<Date>;
  };
};

const t = (db: DbConn) => db.withTables<DashboardTables>();

export interface UserRow {
  id: string;
  business_id: string;
  email: string;
  password_hash: string;
}

export function findUserByEmail(db: DbConn, email: string): Promise<UserRow | undefined> {
  return t(db)
    .selectFrom('dashboard_users')
    .select(['id', 'business_id', 'email', 'password_hash'])
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .executeTakeFirst();
}

/** Creates the user, or (same email) replaces its business and password: idempotent seeding. */
export async function upsertUser(db: DbConn, u: { id: string; businessId: string; email: string; passwordHash: string }): Promise<UserRow> {
  const { rows } = await sql<UserRow>`
    INSERT INTO dashboard_users (id, business_id, email, password_hash)
    VALUES (${u.id}, ${u.businessId}, ${u.email}, ${u.passwordHash})
    ON CONFLICT ((lower(email))) DO UPDATE
      SET business_id = EXCLUDED.business_id, password_hash = EXCLUDED.password_hash, updated_at = now()
    RETURNING id, business_id, email, password_hash`.execute(db);
  return rows[0]!;
}

export async function insertSession(db: DbConn, s: { idHash: Buffer; userId: string; csrfToken: string; expiresAt: Date }): Promise<void> {
  await t(db)
    .insertInto('dashboard_sessions')
    .values({ id_hash: s.idHash, user_id: s.userId, csrf_token: s.csrfToken, expires_at: s.expiresAt })
    .execute();
}

export interface SessionRow {
  user_id: string;
  csrf_token: string;
  expires_at: Date;
  business_id: string;
  email: string;
}

/** A live session with its user; expired ones are as unknown as made-up ids. */
export function findLiveSession(db: DbConn, idHash: Buffer): Promise<SessionRow | undefined> {
  return t(db)
    .selectFrom('dashboard_sessions as s')
    .innerJoin('dashboard_users as u', 'u.id', 's.user_id')
    .select(['s.user_id', 's.csrf_token', 's.expires_at', 'u.business_id', 'u.email'])
    .where('s.id_hash', '=', idHash)
    .where('s.expires_at', '>', sql<Date>`now()`)
    .executeTakeFirst();
}

export async function deleteSession(db: DbConn, idHash: Buffer): Promise<void> {
  await t(db).deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
}

/** A password change ends every session of the user. */
export async function deleteSessionsOfUser(db: DbConn, userId: string): Promise<void> {
  await t(db).deleteFrom('dashboard_sessions').where('user_id', '=', userId).execute();
}

export async function deleteExpiredSessions(db: DbConn): Promise<void> {
  await t(db)
    .deleteFrom('dashboard_sessions')
    .where('expires_at', '<=', sql<Date>`now()`)
    .execute();
}

/**
 * Records a sign-in attempt as a failure before its password is checked, and returns the
 * failures in the window including this one. Counting after recording means concurrent
 * attempts see each other: N parallel guesses cannot all read "0 failures so far".
 */
export async function recordAttempt(db: DbConn, emailLower: string, ip: string, since: Date): Promise<{ email: number; ip: number }> {
  // The inserted row is invisible to the counts of its own statement: hence the + 1.
  const { rows } = await sql<{ email: string; ip: string }>`
    WITH attempt AS (
      INSERT INTO dashboard_login_failures (email_lower, ip) VALUES (${emailLower}, ${ip})
    )
    SELECT
      (SELECT count(*) FROM dashboard_login_failures WHERE email_lower = ${emailLower} AND at > ${since}) + 1 AS email,
      (SELECT count(*) FROM dashboard_login_failures WHERE ip = ${ip} AND at > ${since}) + 1 AS ip`.execute(db);
  return { email: Number(rows[0]!.email), ip: Number(rows[0]!.ip) };
}

export async function clearFailures(db: DbConn, emailLower: string): Promise<void> {
  await t(db).deleteFrom('dashboard_login_failures').where('email_lower', '=', emailLower).execute();
}

export async function deleteOldFailures(db: DbConn, before: Date): Promise<void> {
  await t(db).deleteFrom('dashboard_login_failures').where('at', '<', before).execute();
}
