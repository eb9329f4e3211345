/** SQL of a business's dashboard team: users and roles, invitations, TOTP secrets (migration 038). */
import { sql } from 'kysely';
import type { DbConn } from '../db/pool.js';

export interface TeamUser {
  id: string;
  email: string;
  role: string;
  totp_enabled_at: Date | null;
  created_at: Date;
  last_sign_in_at: Date | null;
}

export async function listUsers(db: DbConn, businessId: string): Promise<TeamUser[]> {
  const { rows } = await sql<TeamUser>`
    SELECT u.id, u.email, u.role, u.totp_enabled_at, u.created_at,
           (SELECT max(s.created_at) FROM dashboard_sessions s WHERE s.user_id = u.id) AS last_sign_in_at
      FROM dashboard_users u WHERE u.business_id = ${businessId} AND u.disabled_at IS NULL ORDER BY u.created_at, u.id`.execute(db);
  return rows;
}

export async function lockUser(db: DbConn, businessId: string, id: string): Promise<TeamUser | undefined> {
  return activeUser(db, businessId, id, true);
}

/** A user of the business not removed; `lock`: FOR NO KEY UPDATE. */
export async function activeUser(db: DbConn, businessId: string, id: string, lock = false): Promise<TeamUser | undefined> {
  const { rows } = await sql<TeamUser>`
    SELECT id, email, role, totp_enabled_at, created_at, NULL::timestamptz AS last_sign_in_at FROM dashboard_users
     WHERE id = ${id} AND business_id = ${businessId} AND disabled_at IS NULL ${lock ? sql`FOR NO KEY UPDATE` : sql``}`.execute(db);
  return rows[0];
}

/** Serialises changes to one business's team (so "the last owner" is counted once at a time). */
export async function lockTeam(db: DbConn, businessId: string): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`dashboard-team:${businessId}`}, 0))`.execute(db);
}

export async function countOwners(db: DbConn, businessId: string): Promise<number> {
  const { rows } = await sql<{ n: string }>`
    SELECT count(*)::text AS n FROM dashboard_users WHERE business_id = ${businessId} AND role = 'owner' AND disabled_at IS NULL`.execute(
    db,
  );
  return Number(rows[0]!.n);
}

export async function setRole(db: DbConn, id: string, role: string): Promise<void> {
  await sql`UPDATE dashboard_users SET role = ${role}, updated_at = now() WHERE id = ${id}`.execute(db);
}

/** Removed users keep their row (audit entries and approvals name them) but can no longer sign in. */
export async function disableUser(db: DbConn, id: string): Promise<void> {
  await sql`UPDATE dashboard_users SET disabled_at = now(), updated_at = now() WHERE id = ${id}`.execute(db);
  await sql`DELETE FROM dashboard_sessions WHERE user_id = ${id}`.execute(db);
}

export async function insertUser(
  db: DbConn,
  u: { id: string; businessId: string; email: string; passwordHash: string; role: string },
): Promise<void> {
  await sql`INSERT INTO dashboard_users (id, business_id, email, password_hash, role)
            VALUES (${u.id}, ${u.businessId}, ${u.email}, ${u.passwordHash}, ${u.role})`.execute(db);
}

export async function userExists(db: DbConn, email: string): Promise<boolean> {
  const { rows } = await sql<{ one: number }>`SELECT 1 AS one FROM dashboard_users WHERE lower(email) = lower(${email})`.execute(db);
  return rows.length > 0;
}

// ---- invitations -------------------------------------------------------------------------

export interface InvitationRow {
  id: string;
  business_id: string;
  email: string;
  role: string;
  invited_by: string | null;
  created_at: Date;
  expires_at: Date;
  accepted_at: Date | null;
  revoked_at: Date | null;
}

export async function insertInvitation(
  db: DbConn,
  i: { id: string; businessId: string; email: string; role: string; tokenHash: Buffer; invitedBy: string | null; expiresAt: Date },
): Promise<void> {
  await sql`INSERT INTO dashboard_invitations (id, business_id, email, role, token_hash, invited_by, expires_at)
            VALUES (${i.id}, ${i.businessId}, ${i.email}, ${i.role}, ${i.tokenHash}, ${i.invitedBy}, ${i.expiresAt})`.execute(db);
}

/** Invitations not accepted, revoked or expired. */
export async function openInvitations(db: DbConn, businessId: string): Promise<InvitationRow[]> {
  const { rows } = await sql<InvitationRow>`
    SELECT id, business_id, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at FROM dashboard_invitations
     WHERE business_id = ${businessId} AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()
     ORDER BY created_at DESC`.execute(db);
  return rows;
}

export async function invitationByToken(db: DbConn, tokenHash: Buffer, lock = false): Promise<InvitationRow | undefined> {
  const { rows } = await sql<InvitationRow>`
    SELECT id, business_id, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at FROM dashboard_invitations
     WHERE token_hash = ${tokenHash} ${lock ? sql`FOR NO KEY UPDATE` : sql``}`.execute(db);
  return rows[0];
}

export async function markAccepted(db: DbConn, id: string): Promise<void> {
  await sql`UPDATE dashboard_invitations SET accepted_at = now() WHERE id = ${id}`.execute(db);
}

export async function revokeInvitation(db: DbConn, businessId: string, id: string): Promise<InvitationRow | undefined> {
  const { rows } = await sql<InvitationRow>`
    UPDATE dashboard_invitations SET revoked_at = now()
     WHERE id = ${id} AND business_id = ${businessId} AND accepted_at IS NULL AND revoked_at IS NULL
    RETURNING id, business_id, email, role, invited_by, created_at, expires_at, accepted_at, revoked_at`.execute(db);
  return rows[0];
}

// ---- TOTP ----------------------------------------------------------------------------------

export interface TotpRow {
  id: string;
  email: string;
  role: string;
  business_id: string;
  totp_secret_sealed: Buffer | null;
  totp_enabled_at: Date | null;
  totp_last_step: string | null;
}

export async function lockTotp(db: DbConn, userId: string): Promise<TotpRow | undefined> {
  const { rows } = await sql<TotpRow>`
    SELECT id, email, role, business_id, totp_secret_sealed, totp_enabled_at, totp_last_step::text AS totp_last_step
      FROM dashboard_users WHERE id = ${userId} AND disabled_at IS NULL FOR NO KEY UPDATE`.execute(db);
  return rows[0];
}

export async function totpEnabled(db: DbConn, userId: string): Promise<boolean> {
  const { rows } = await sql<{ on: boolean }>`SELECT totp_enabled_at IS NOT NULL AS on FROM dashboard_users WHERE id = ${userId}`.execute(
    db,
  );
  return rows[0]?.on ?? false;
}

/** A new secret waiting for its first code (enrolment), replacing any earlier unconfirmed one. */
export async function setPendingSecret(db: DbConn, userId: string, sealed: Buffer): Promise<void> {
  await sql`UPDATE dashboard_users SET totp_secret_sealed = ${sealed}, totp_enabled_at = NULL, totp_last_step = NULL, updated_at = now()
             WHERE id = ${userId}`.execute(db);
}

export async function enableTotp(db: DbConn, userId: string, step: number): Promise<void> {
  await sql`UPDATE dashboard_users SET totp_enabled_at = now(), totp_last_step = ${step}, updated_at = now() WHERE id = ${userId}`.execute(
    db,
  );
}

export async function useStep(db: DbConn, userId: string, step: number): Promise<void> {
  await sql`UPDATE dashboard_users SET totp_last_step = ${step} WHERE id = ${userId}`.execute(db);
}

export async function clearTotp(db: DbConn, userId: string): Promise<void> {
  await sql`UPDATE dashboard_users SET totp_secret_sealed = NULL, totp_enabled_at = NULL, totp_last_step = NULL, updated_at = now()
             WHERE id = ${userId}`.execute(db);
}
