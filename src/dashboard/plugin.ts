/**
 * The dashboard, mounted at /dashboard: server-rendered pages over the API's own
 * services. Every route but the sign-in page and the static files needs a session;
 * every POST needs the session's CSRF token and a same-origin Origin when one is sent.
 */
import { readFileSync } from 'node:fs';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.js';
import type { Services } from '../services.js';
import { attachSession, frameOf, maybeSessionOf, setPendingCount, type Ctx } from './context.js';
import { html } from './html.js';
import { DashboardService, type Session } from './service.js';
import { TeamService } from './team.js';
import { checkRequest } from './roles.js';
import { layout } from './views/layout.js';
import { authRoutes } from './routes/auth.js';
import { developerRoutes } from './routes/developers.js';
import { walletRoutes } from './routes/wallets.js';
import { activityRoutes } from './routes/activity.js';
import { accountRoutes } from './routes/account.js';
import { teamRoutes } from './routes/team.js';
import { operationsRoutes } from './routes/operations.js';
import { approvalRoutes } from './routes/approvals.js';
import { reportRoutes } from './routes/reports.js';
import { paymentRoutes } from './routes/payments.js';
import { formOf, parseCookies, parseForm, PREFIX, redirect, safeEqual, sendPage, SESSION_COOKIE } from './web.js';

const ASSETS: Record<string, { type: string; body: Buffer }> = {
  'dashboard.css': { type: 'text/css; charset=utf-8', body: readFileSync(new URL('./assets/dashboard.css', import.meta.url)) },
  'dashboard.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('./assets/dashboard.js', import.meta.url)) },
};

/**
 * Routes (as registered) reachable without a session: the sign-in page, the static files,
 * and joining through an invitation (before there is an account).
 */
const PUBLIC = new Set([`${PREFIX}/login`, `${PREFIX}/assets/:name`, `${PREFIX}/join/:token`]);

/**
 * The route the router matched for this request, as registered (`/dashboard/wallets/:walletId`),
 * or null when none did (the 404 page). Every access decision is made on this, never on
 * `req.url`: the router decodes the path before matching (`/dashboard/develop%65rs` runs the
 * /developers handler), takes the path of an absolute-form target (`http://host/dashboard/…`)
 * and stops at a `#`, so a check of the raw URL could be stepped around by spelling it another way.
 */
function routeOf(req: FastifyRequest): string | null {
  return req.routeOptions.url ?? null;
}

/**
 * What a session that has not given every factor yet may reach: the code's page (stage
 * totp), or setting up an authenticator (stage enrol); everything else sends it there.
 */
const STAGE_PATHS: Record<Exclude<Session['stage'], 'full'>, { home: string; paths: Set<string> }> = {
  totp: { home: `${PREFIX}/login/two-factor`, paths: new Set([`${PREFIX}/login/two-factor`, `${PREFIX}/logout`]) },
  enrol: {
    home: `${PREFIX}/account`,
    paths: new Set([`${PREFIX}/account`, `${PREFIX}/account/two-factor`, `${PREFIX}/account/two-factor/confirm`, `${PREFIX}/logout`]),
  },
};

export async function dashboardPlugin(
  app: FastifyInstance,
  opts: { services: Services; statusOf: (err: AppError) => number },
): Promise<void> {
  const s = opts.services;
  const ctx: Ctx = {
    services: s,
    accounts: new DashboardService(s.db, s.clock, s.audit, s.vault),
    team: new TeamService(s.db, s.clock, s.audit),
    statusOf: opts.statusOf,
  };

  // Pages are not part of the API: keep them out of the OpenAPI document.
  app.addHook('onRoute', (route) => {
    route.schema = { ...(route.schema ?? {}), hide: true };
  });

  // Bodies are the forms our pages post, and nothing else. The API's JSON parser (and
  // Fastify's text/plain one) would otherwise be inherited, handing the handlers numbers,
  // arrays and objects where they read strings (`form.email.slice`, the CSRF comparison):
  // a 500 for any client that sends JSON. Any other body is a 415 page before a hook or
  // handler reads it; an empty one (a GET that names a type) is no form fields.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_req, body, done) =>
    done(null, parseForm(body as string)),
  );
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: 64 * 1024 }, (_req, body, done) => {
    if ((body as Buffer).length === 0) return done(null, {});
    done(Object.assign(new Error('The dashboard accepts only the forms of its own pages.'), { statusCode: 415 }), undefined);
  });

  app.get('/assets/:name', async (req, reply) => {
    // Own entries only: a name like `constructor` or `__proto__` is an object's, not a file.
    const { name } = req.params as { name: string };
    const asset = Object.hasOwn(ASSETS, name) ? ASSETS[name] : undefined;
    if (!asset) return reply.callNotFound();
    return reply
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=300')
      .header('x-content-type-options', 'nosniff')
      .send(asset.body);
  });

  // Who is asking: without a live session, every page sends the browser to sign in.
  // A path that reaches no route needs a session too, so strangers learn nothing from 404s.
  app.addHook('onRequest', async (req, reply) => {
    const route = routeOf(req);
    if (route !== null && PUBLIC.has(route)) return;
    const session = await ctx.accounts.session(parseCookies(req.headers.cookie)[SESSION_COOKIE]);
    if (!session) {
      const next = req.method === 'GET' ? `?next=${encodeURIComponent(req.url)}` : '';
      return redirect(reply, `${PREFIX}/login${next}`);
    }
    attachSession(req, session);
    if (session.stage !== 'full') {
      const stage = STAGE_PATHS[session.stage];
      if (route === null || !stage.paths.has(route)) return redirect(reply, stage.home);
      return;
    }
    setPendingCount(session, await s.policies.approvals.countPending(session.auth));
  });

  // What the role may do (roles.ts), once the body is parsed: every change is listed there.
  // Decided on the route that will run, for GETs and POSTs alike (see routeOf).
  app.addHook('preHandler', async (req) => {
    const session = maybeSessionOf(req);
    if (!session || session.stage !== 'full') return;
    const route = routeOf(req);
    checkRequest(session, req.method, route === null ? null : route.slice(PREFIX.length) || '/');
  });

  // Changes need the session's CSRF token (SameSite=Strict already keeps other sites'
  // requests cookie-less; this also covers same-site subdomains and old browsers).
  app.addHook('preHandler', async (req, reply) => {
    if (req.method !== 'POST') return;
    const origin = req.headers.origin;
    // req.host, not the Host header: behind a proxy the operator trusts (TRUST_PROXY), Host is
    // often the upstream's own address (nginx's default) and X-Forwarded-Host the browser's,
    // which its Origin names; comparing the raw header refused every form, sign-in included.
    // Without TRUST_PROXY req.host is the Host header, as before.
    if (origin && !sameOrigin(origin, req.host)) return forbid(req, reply);
    const session = maybeSessionOf(req);
    if (!session) return; // the public sign-in form checks its own token
    const token = formOf(req)._csrf;
    if (!token || !safeEqual(token, session.csrfToken)) return forbid(req, reply);
  });

  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    let status: number;
    let message: string;
    if (err instanceof AppError) {
      status = ctx.statusOf(err);
      message = err.message;
    } else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      status = err.statusCode;
      message = err.message;
    } else {
      req.log.error({ err }, 'dashboard request failed');
      status = 500;
      message = 'Something went wrong. The error was logged.';
    }
    return errorPage(req, reply, status, status === 404 ? 'Not found' : message);
  });

  app.setNotFoundHandler((req, reply) => errorPage(req, reply, 404, 'Not found'));

  function errorPage(req: FastifyRequest, reply: FastifyReply, status: number, message: string) {
    const session = maybeSessionOf(req);
    const frame = session ? frameOf(session, { title: message }) : { title: message };
    return sendPage(
      reply,
      layout(
        frame,
        html`<section class="card">
          <h1>${message}</h1>
          <p><a href="${PREFIX}/wallets">Back to wallets</a></p>
        </section>`,
      ),
      status,
    );
  }

  function forbid(req: FastifyRequest, reply: FastifyReply) {
    return errorPage(req, reply, 403, 'This form expired or came from another site. Reload the page and try again.');
  }

  authRoutes(app, ctx);
  accountRoutes(app, ctx);
  walletRoutes(app, ctx);
  developerRoutes(app, ctx);
  activityRoutes(app, ctx);
  teamRoutes(app, ctx);
  operationsRoutes(app, ctx);
  approvalRoutes(app, ctx);
  reportRoutes(app, ctx);
  paymentRoutes(app, ctx);
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  try {
    return new URL(origin).host === host;
  } catch {
    return false; // "null" (sandboxed or privacy-sensitive contexts) or garbage
  }
}
