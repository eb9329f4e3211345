/** The team page (owners and admins) and joining through an invitation (public, its own double-submit token). */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, NotFoundError } from '../../lib/errors.js';
import { UUID_PATTERN } from '../../lib/ids.js';
import { frameOf, sessionOf, type Ctx } from '../context.js';
import { requireCan } from '../roles.js';
import { joinPage, teamPage, type TeamState } from '../views/team.js';
import { clearCookie, formOf, LOGIN_CSRF_COOKIE, parseCookies, PREFIX, redirect, safeEqual, sendPage, setCookie } from '../web.js';

const UUID = new RegExp(UUID_PATTERN);

function idParam(req: FastifyRequest, name: string): string {
  const v = (req.params as Record<string, string | undefined>)[name];
  if (!v || !UUID.test(v)) throw new NotFoundError('User');
  return v;
}

export function teamRoutes(app: FastifyInstance, ctx: Ctx): void {
  async function render(req: FastifyRequest, reply: FastifyReply, extra: Partial<TeamState> & { error?: string } = {}, status = 200) {
    const session = sessionOf(req);
    requireCan(session, 'manage_team');
    const [users, invitations] = await Promise.all([ctx.team.users(session), ctx.team.invitations(session)]);
    const { error, ...state } = extra;
    return sendPage(
      reply,
      teamPage(frameOf(session, { error: error ?? null }), session.csrfToken, {
        users,
        invitations,
        me: { id: session.userId, role: session.role },
        ...state,
      }),
      status,
    );
  }

  async function change(req: FastifyRequest, reply: FastifyReply, work: () => Promise<void>) {
    requireCan(sessionOf(req), 'manage_team');
    try {
      await work();
      return redirect(reply, `${PREFIX}/users`);
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
      return render(req, reply, { error: err.message }, ctx.statusOf(err));
    }
  }

  app.get('/users', async (req, reply) => render(req, reply));

  app.post('/users/invite', async (req, reply) => {
    const session = sessionOf(req);
    requireCan(session, 'manage_team');
    const form = formOf(req);
    try {
      const { invitation, token } = await ctx.team.invite(session, form.email ?? '', form.role ?? '');
      // The browser's own host (req.host: X-Forwarded-Host behind a trusted proxy), as req.protocol is its scheme.
      const origin = `${req.protocol}://${req.host || 'localhost'}`;
      // Shown in this answer only, never put in a redirect.
      return await render(req, reply, {
        link: { url: `${origin}${PREFIX}/join/${token}`, email: invitation.email, role: invitation.role },
      });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return render(req, reply, { error: err.message }, ctx.statusOf(err));
    }
  });

  app.post('/users/:userId/role', async (req, reply) =>
    change(req, reply, () => ctx.team.setRole(sessionOf(req), idParam(req, 'userId'), formOf(req).role ?? '')),
  );

  app.post('/users/:userId/remove', async (req, reply) =>
    change(req, reply, () => ctx.team.remove(sessionOf(req), idParam(req, 'userId'))),
  );

  app.post('/invitations/:invitationId/revoke', async (req, reply) =>
    change(req, reply, () => ctx.team.revokeInvitation(sessionOf(req), idParam(req, 'invitationId'))),
  );

  // ---- public: joining ----------------------------------------------------------------------

  async function renderJoin(req: FastifyRequest, reply: FastifyReply, error: string | null = null, status = 200) {
    const token = (req.params as { token: string }).token;
    const invitation = await ctx.team.openInvitation(token);
    if (!invitation) throw new NotFoundError('Invitation');
    const csrfToken = randomBytes(24).toString('base64url');
    setCookie(reply, req, LOGIN_CSRF_COOKIE, csrfToken, 60 * 60);
    return sendPage(reply, joinPage({ csrfToken, token, email: invitation.email, role: invitation.role, error }), status);
  }

  app.get('/join/:token', async (req, reply) => renderJoin(req, reply));

  app.post('/join/:token', async (req, reply) => {
    const form = formOf(req);
    const cookie = parseCookies(req.headers.cookie)[LOGIN_CSRF_COOKIE];
    if (!cookie || !form._csrf || !safeEqual(cookie, form._csrf)) return renderJoin(req, reply, 'The form expired. Please try again.', 403);
    try {
      const { email } = await ctx.team.accept((req.params as { token: string }).token, form.password ?? '');
      clearCookie(reply, req, LOGIN_CSRF_COOKIE);
      return redirect(reply, `${PREFIX}/login?joined=${encodeURIComponent(email)}`);
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
      return renderJoin(req, reply, err.message, ctx.statusOf(err));
    }
  });
}
