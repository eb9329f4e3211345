/** Sign in and sign out. */
import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DEVICE_TTL_MS, SESSION_TTL_MS, TooManyAttemptsError } from '../service.js';
import { sessionOf, type Ctx } from '../context.js';
import { loginPage } from '../views/login.js';
import {
  clearCookie,
  clientIp,
  DEVICE_COOKIE,
  formOf,
  LOGIN_CSRF_COOKIE,
  parseCookies,
  PREFIX,
  redirect,
  safeEqual,
  safeNext,
  sendPage,
  SESSION_COOKIE,
  setCookie,
} from '../web.js';

export function authRoutes(app: FastifyInstance, ctx: Ctx): void {
  /** Login forms carry a double-submit token (cookie + field), so another site cannot sign a browser in. */
  function renderLogin(
    req: FastifyRequest,
    reply: FastifyReply,
    opts: { next: string; email?: string; error?: string; notice?: string },
    status = 200,
  ) {
    const token = randomBytes(24).toString('base64url');
    setCookie(reply, req, LOGIN_CSRF_COOKIE, token, 60 * 60);
    return sendPage(reply, loginPage({ csrfToken: token, ...opts }), status);
  }

  app.get('/login', async (req, reply) => {
    const query = req.query as Record<string, unknown>;
    const session = await ctx.accounts.session(parseCookies(req.headers.cookie)[SESSION_COOKIE]);
    if (session) return redirect(reply, safeNext(query.next));
    const notice =
      query.out === '1'
        ? 'You are signed out.'
        : typeof query.joined === 'string'
          ? `Your account ${query.joined.slice(0, 254)} is ready: sign in.`
          : undefined;
    return renderLogin(req, reply, { next: safeNext(query.next), ...(notice ? { notice } : {}) });
  });

  app.post('/login', async (req, reply) => {
    const form = formOf(req);
    const next = safeNext(form.next);
    const email = (form.email ?? '').slice(0, 254);
    const cookies = parseCookies(req.headers.cookie);
    const cookieToken = cookies[LOGIN_CSRF_COOKIE];
    if (!cookieToken || !form._csrf || !safeEqual(cookieToken, form._csrf)) {
      return renderLogin(req, reply, { next, email, error: 'The sign-in form expired. Please try again.' }, 403);
    }
    let opened;
    try {
      opened = await ctx.accounts.login(email, form.password ?? '', clientIp(req), cookies[DEVICE_COOKIE]);
    } catch (err) {
      if (err instanceof TooManyAttemptsError) {
        void reply.header('retry-after', String(err.retryAfterSeconds));
        return renderLogin(req, reply, { next, email, error: err.message }, ctx.statusOf(err));
      }
      throw err;
    }
    if (!opened) return renderLogin(req, reply, { next, email, error: 'Wrong email or password.' }, 401);
    clearCookie(reply, req, LOGIN_CSRF_COOKIE);
    setCookie(reply, req, SESSION_COOKIE, opened.sessionId, Math.floor(SESSION_TTL_MS / 1000));
    // Kept across sign-outs: it is what makes this browser a known device of the account.
    setCookie(reply, req, DEVICE_COOKIE, opened.deviceCookie, Math.floor(DEVICE_TTL_MS / 1000));
    // A second factor first: the code's page, or setting up an authenticator.
    if (opened.session.stage === 'totp') return redirect(reply, `${PREFIX}/login/two-factor`);
    if (opened.session.stage === 'enrol') return redirect(reply, `${PREFIX}/account`);
    return redirect(reply, next);
  });

  // The banner of failed sign-in attempts (views/layout.ts), once read.
  app.post('/notice/dismiss', async (req, reply) => {
    const id = parseCookies(req.headers.cookie)[SESSION_COOKIE];
    sessionOf(req);
    if (id) await ctx.accounts.dismissNotice(id);
    return redirect(reply, safeNext(formOf(req).next));
  });

  // Behind the session and CSRF checks (see plugin.ts), like every other change.
  app.post('/logout', async (req, reply) => {
    const id = parseCookies(req.headers.cookie)[SESSION_COOKIE];
    if (id) await ctx.accounts.logout(id);
    clearCookie(reply, req, SESSION_COOKIE);
    return redirect(reply, `${PREFIX}/login?out=1`);
  });
}
