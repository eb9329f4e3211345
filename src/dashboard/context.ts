/** What every dashboard route gets: the services, the accounts, and the caller's session. */
import type { FastifyRequest } from 'fastify';
import type { AppError } from '../lib/errors.js';
import type { Services } from '../services.js';
import type { DashboardService, Session } from './service.js';
import type { TeamService } from './team.js';
import type { Frame } from './views/layout.js';

export interface Ctx {
  services: Services;
  accounts: DashboardService;
  /** Users, roles and invitations. */
  team: TeamService;
  /** The HTTP status of a domain error (the error catalogue's), given by src/server.ts. */
  statusOf: (err: AppError) => number;
}

const sessions = new WeakMap<FastifyRequest, Session>();

export function attachSession(req: FastifyRequest, session: Session): void {
  sessions.set(req, session);
}

/** The signed-in session; routes behind the session hook always have one. */
export function sessionOf(req: FastifyRequest): Session {
  const session = sessions.get(req);
  if (!session) throw new Error('dashboard route reached without a session');
  return session;
}

export function maybeSessionOf(req: FastifyRequest): Session | null {
  return sessions.get(req) ?? null;
}

export function frameOf(session: Session, extra: Partial<Frame> = {}): Frame {
  return {
    title: '',
    user: {
      email: session.email,
      csrfToken: session.csrfToken,
      role: session.role,
      stage: session.stage,
      pendingApprovals: pendingOf(session),
    },
    signInNotice: session.notice,
    ...extra,
  };
}

/** Open approval requests of the session's business, counted once per request (the navigation's badge). */
const pendingCounts = new WeakMap<Session, number>();
export function setPendingCount(session: Session, n: number): void {
  pendingCounts.set(session, n);
}
const pendingOf = (session: Session) => pendingCounts.get(session) ?? 0;
