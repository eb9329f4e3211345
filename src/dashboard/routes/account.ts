/** Two-factor sign-in: the second step of a sign-in, and setting it up on the account page. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { frameOf, sessionOf, type Ctx } from '../context.js';
import { SESSION_TTL_MS, TOTP_REQUIRED_ROLES, TooManyAttemptsError } from '../service.js';
import { accountPage, twoFactorPage, type AccountState } from '../views/account.js';
import { formOf, parseCookies, PREFIX, redirect, sendPage, SESSION_COOKIE, setCookie } from '../web.js';

export function accountRoutes(app: FastifyInstance, ctx: Ctx): void {
  async function render(
    req: FastifyRequest,
    reply: FastifyReply,
    extra: Partial<AccountState> & { error?: string; notice?: string } = {},
    status = 200,
  ) {
    const session = sessionOf(req);
    const { error, notice, ...state } = extra;
    const on = await ctx.accounts.twoFactor.totpEnabled(session.userId);
    return sendPage(
      reply,
      accountPage(frameOf(session, { error: error ?? null, notice: notice ?? null }), session.csrfToken, {
        email: session.email,
        role: session.role,
        twoFactorOn: on,
        sessionTwoFactor: session.twoFactor,
        mustEnrol: session.stage === 'enrol' || (TOTP_REQUIRED_ROLES.includes(session.role) && !on),
        ...state,
      }),
      status,
    );
  }

  /** Checks a code; a right one gives the browser the session's new id (the old one is void). */
  async function secondFactor(req: FastifyRequest, reply: FastifyReply): Promise<'ok' | 'wrong' | FastifyReply> {
    const id = parseCookies(req.headers.cookie)[SESSION_COOKIE];
    try {
      const upgraded = id ? await ctx.accounts.twoFactor.secondFactor(id, (formOf(req).code ?? '').slice(0, 20)) : null;
      if (!upgraded) return 'wrong';
      setCookie(reply, req, SESSION_COOKIE, upgraded.sessionId, Math.floor(SESSION_TTL_MS / 1000));
      return 'ok';
    } catch (err) {
      if (!(err instanceof TooManyAttemptsError)) throw err;
      void reply.header('retry-after', String(err.retryAfterSeconds));
      return sendPage(reply, twoFactorPage(frameOf(sessionOf(req), { error: err.message }), sessionOf(req).csrfToken), ctx.statusOf(err));
    }
  }

  app.get('/login/two-factor', async (req, reply) => {
    const session = sessionOf(req);
    if (session.stage !== 'totp') return redirect(reply, `${PREFIX}/wallets`);
    return sendPage(reply, twoFactorPage(frameOf(session), session.csrfToken));
  });

  app.post('/login/two-factor', async (req, reply) => {
    const session = sessionOf(req);
    if (session.stage !== 'totp') return redirect(reply, `${PREFIX}/wallets`);
    const r = await secondFactor(req, reply);
    if (r === 'ok') return redirect(reply, `${PREFIX}/wallets`);
    if (r === 'wrong')
      return sendPage(reply, twoFactorPage(frameOf(session, { error: 'Wrong or used code. Try the next one.' }), session.csrfToken), 401);
    return r;
  });

  app.get('/account', async (req, reply) =>
    render(req, reply, (req.query as Record<string, unknown>).on === '1' ? { notice: 'Two-factor sign-in is on.' } : {}),
  );

  app.post('/account/two-factor', async (req, reply) => {
    try {
      return await render(req, reply, { enrolment: await ctx.accounts.twoFactor.startTotp(sessionOf(req).userId) });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return render(req, reply, { error: err.message }, ctx.statusOf(err));
    }
  });

  app.post('/account/two-factor/confirm', async (req, reply) => {
    const r = await secondFactor(req, reply);
    if (r === 'ok') return redirect(reply, `${PREFIX}/account?on=1`);
    if (r === 'wrong') return render(req, reply, { error: 'Wrong code: set it up again and type the code the app shows now.' }, 401);
    return r;
  });

  app.post('/account/two-factor/disable', async (req, reply) => {
    try {
      await ctx.accounts.twoFactor.disableTotp(sessionOf(req), (formOf(req).code ?? '').slice(0, 20));
      return redirect(reply, `${PREFIX}/account`);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return render(req, reply, { error: err.message }, ctx.statusOf(err));
    }
  });
}
