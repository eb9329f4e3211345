/** Reports (charts of daily volume and fees) and the policies in force, read-only. */
import type { FastifyInstance } from 'fastify';
import { frameOf, sessionOf, type Ctx } from '../context.js';
import { policiesPage, reportsPage } from '../views/reports.js';
import { sendPage } from '../web.js';

const DAYS = 30;

export function reportRoutes(app: FastifyInstance, ctx: Ctx): void {
  const { services } = ctx;

  app.get('/reports', async (req, reply) => {
    const session = sessionOf(req);
    const report = await services.transactions.report(session.auth, DAYS, new Date());
    return sendPage(reply, reportsPage(frameOf(session), report));
  });

  app.get('/policies', async (req, reply) => {
    const session = sessionOf(req);
    const [policies, wallets] = await Promise.all([services.policies.list(session.auth), services.wallets.list(session.auth, 1, 100)]);
    return sendPage(reply, policiesPage(frameOf(session), policies, new Map(wallets.items.map((w) => [w.id, w.name]))));
  });
}
