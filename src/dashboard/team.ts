/**
 * A business's dashboard team: who may do what (roles.ts), users and their roles, and
 * invitations (a one-time link, shown once to the inviter, that lets one person set a
 * password and join with the role given). Owners manage everyone; admins manage everyone
 * but owners and cannot make owners; a business always keeps one owner. Every change is on
 * the audit log.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Db, DbConn } from '../db/pool.js';
import type { Clock } from '../lib/clock.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '../lib/errors.js';
import { uuidv7 } from '../lib/ids.js';
import type { AuditService } from '../modules/audit/service.js';
import { ROLES, type Role } from '../modules/policies/service.js';
import { hashPassword, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords.js';
import type { Session } from './service.js';
import * as team from './team-store.js';

export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;
const EMAIL = /^[^\s@]+@[^\s@]+$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type TeamUser = team.TeamUser;
export type Invitation = team.InvitationRow;

const tokenHash = (token: string) => createHash('sha256').update(token, 'utf8').digest();

function checkRole(role: string): Role {
  if (!(ROLES as readonly string[]).includes(role))
    throw new ValidationError(`role must be one of ${ROLES.join(', ')}`, [{ field: 'role', message: 'unknown role' }]);
  return role as Role;
}

/** Owners manage everyone; admins everyone but owners, and cannot make one. */
function assertMayManage(actor: Session, targetRole: string, newRole?: string): void {
  if (actor.role === 'owner') return;
  if (actor.role !== 'admin') throw new ForbiddenError('Only owners and admins manage the team');
  if (targetRole === 'owner' || newRole === 'owner') throw new ForbiddenError('Only an owner can change an owner, or make one');
}

/** Whether a user of `inviterRole` may give `role` now (assertMayManage's rule for an invitation). */
function mayGive(inviterRole: string | undefined, role: string): boolean {
  return inviterRole === 'owner' || (inviterRole === 'admin' && role !== 'owner');
}

export class TeamService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
  ) {}

  users(actor: Session): Promise<TeamUser[]> {
    return team.listUsers(this.db, actor.businessId);
  }

  invitations(actor: Session): Promise<Invitation[]> {
    return team.openInvitations(this.db, actor.businessId);
  }

  async setRole(actor: Session, userId: string, role: string): Promise<void> {
    const next = checkRole(role);
    await this.db.transaction().execute(async (tx) => {
      await team.lockTeam(tx, actor.businessId);
      const user = await team.lockUser(tx, actor.businessId, userId);
      if (!user) throw new NotFoundError('User');
      assertMayManage(actor, user.role, next);
      if (user.role === next) return;
      if (user.role === 'owner' && (await team.countOwners(tx, actor.businessId)) <= 1) {
        throw new ConflictError('LAST_OWNER', 'The business must keep an owner: make someone else owner first');
      }
      await team.setRole(tx, userId, next);
      await this.#record(actor, 'dashboard.role_changed', userId, { email: user.email, from: user.role, to: next }, tx);
    });
  }

  async remove(actor: Session, userId: string): Promise<void> {
    if (userId === actor.userId) throw new ValidationError('You cannot remove yourself; ask another owner or admin');
    await this.db.transaction().execute(async (tx) => {
      await team.lockTeam(tx, actor.businessId);
      const user = await team.lockUser(tx, actor.businessId, userId);
      if (!user) throw new NotFoundError('User');
      assertMayManage(actor, user.role);
      if (user.role === 'owner' && (await team.countOwners(tx, actor.businessId)) <= 1) {
        throw new ConflictError('LAST_OWNER', 'The business must keep an owner');
      }
      await team.disableUser(tx, userId);
      await this.#record(actor, 'dashboard.user_removed', userId, { email: user.email, role: user.role }, tx);
    });
  }

  /** A new invitation; its token is in this answer only (the link to hand over). */
  async invite(actor: Session, email: string, role: string): Promise<{ invitation: Invitation; token: string }> {
    const trimmed = email.trim();
    if (!EMAIL.test(trimmed) || trimmed.length > 254)
      throw new ValidationError('email is not a valid address', [{ field: 'email', message: 'not an email address' }]);
    const r = checkRole(role);
    assertMayManage(actor, 'viewer', r);
    if (await team.userExists(this.db, trimmed)) throw new ConflictError('USER_EXISTS', `${trimmed} already has a dashboard account`);
    const token = randomBytes(32).toString('base64url');
    const id = uuidv7();
    const expiresAt = new Date(this.clock.now().getTime() + INVITATION_TTL_MS);
    await this.db.transaction().execute(async (tx) => {
      await team.insertInvitation(tx, {
        id,
        businessId: actor.businessId,
        email: trimmed,
        role: r,
        tokenHash: tokenHash(token),
        invitedBy: actor.userId,
        expiresAt,
      });
      await this.#record(actor, 'dashboard.user_invited', id, { email: trimmed, role: r, expiresAt }, tx, 'dashboard_invitation');
    });
    const invitation = (await team.invitationByToken(this.db, tokenHash(token)))!;
    return { invitation, token };
  }

  async revokeInvitation(actor: Session, id: string): Promise<void> {
    if (actor.role !== 'owner' && actor.role !== 'admin') throw new ForbiddenError('Only owners and admins manage the team');
    await this.db.transaction().execute(async (tx) => {
      const row = await team.revokeInvitation(tx, actor.businessId, id);
      if (!row) throw new NotFoundError('Invitation');
      await this.#record(actor, 'dashboard.invitation_revoked', id, { email: row.email }, tx, 'dashboard_invitation');
    });
  }

  /**
   * An open invitation by its token (the accept page), or null: unknown, used, revoked, expired
   * or outlived by its inviter's power to give the role (inviterMayStillGive) look alike.
   */
  async openInvitation(token: string): Promise<Invitation | null> {
    if (!TOKEN.test(token)) return null;
    const row = await team.invitationByToken(this.db, tokenHash(token));
    if (!row || row.accepted_at || row.revoked_at || row.expires_at <= this.clock.now()) return null;
    return (await this.inviterMayStillGive(this.db, row)) ? row : null;
  }

  /**
   * An invitation carries its inviter's authority: once the inviter is removed, or holds a
   * role that could not give this one any more, it gives nothing. Else an admin about to be
   * removed could invite an address of their own and come back in after the removal.
   */
  private async inviterMayStillGive(db: DbConn, row: Invitation, lock = false): Promise<boolean> {
    if (!row.invited_by) return false;
    return mayGive((await team.activeUser(db, row.business_id, row.invited_by, lock))?.role, row.role);
  }

  /** Accepts an invitation: the account is created with the invitation's email and role. */
  async accept(token: string, password: string): Promise<{ email: string; role: string }> {
    if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
      throw new ValidationError(`password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`, [
        { field: 'password', message: 'wrong length' },
      ]);
    }
    if (!TOKEN.test(token)) throw new NotFoundError('Invitation');
    const passwordHash = await hashPassword(password);
    return this.db.transaction().execute(async (tx) => {
      const row = await team.invitationByToken(tx, tokenHash(token), true);
      if (!row || row.accepted_at || row.revoked_at || row.expires_at <= this.clock.now()) throw new NotFoundError('Invitation');
      // Under the team's lock: a removal or demotion of the inviter commits before or after, never across.
      await team.lockTeam(tx, row.business_id);
      if (!(await this.inviterMayStillGive(tx, row, true))) throw new NotFoundError('Invitation');
      if (await team.userExists(tx, row.email)) throw new ConflictError('USER_EXISTS', `${row.email} already has a dashboard account`);
      const userId = uuidv7();
      await team.insertUser(tx, { id: userId, businessId: row.business_id, email: row.email, passwordHash, role: row.role });
      await team.markAccepted(tx, row.id);
      await this.audit.record(
        {
          businessId: row.business_id,
          walletId: null,
          actor: row.email,
          action: 'dashboard.invitation_accepted',
          targetType: 'dashboard_user',
          targetId: userId,
          details: { email: row.email, role: row.role, invitation: row.id },
        },
        tx,
      );
      return { email: row.email, role: row.role };
    });
  }

  #record(
    actor: Session,
    action: string,
    targetId: string,
    details: Record<string, unknown>,
    tx: Parameters<AuditService['record']>[1],
    targetType = 'dashboard_user',
  ) {
    return this.audit.record(
      {
        businessId: actor.businessId,
        walletId: null,
        actor: actor.email,
        action,
        targetType,
        targetId,
        details: { ...details, by: actor.userId },
      },
      tx,
    );
  }
}
