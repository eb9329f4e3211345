/** Payment links: list, create, (de)activate, and one link's checkout sessions (docs/checkout.md). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { CreateLinkBody, UpdateLinkBody } from '../../modules/checkouts/schemas.js';
import { frameOf, sessionOf, type Ctx } from '../context.js';
import { check } from '../validate.js';
import { linkPage, linksPage } from '../views/payments.js';
import { formOf, PREFIX, redirect, sendPage } from '../web.js';
import { paymentLinkIdParam } from './params.js';
import { pageOf } from './wallets.js';

export function paymentRoutes(app: FastifyInstance, ctx: Ctx): void {
  const { checkouts, wallets } = ctx.services;

  async function renderList(req: FastifyRequest, reply: FastifyReply, draft?: Record<string, string>, status = 200, error?: string) {
    const session = sessionOf(req);
    const [{ items, meta }, all] = await Promise.all([
      checkouts.listLinks(session.auth, pageOf(req), 100),
      wallets.list(session.auth, 1, 100),
    ]);
    return sendPage(
      reply,
      linksPage(frameOf(session, { error: error ?? null }), session.csrfToken, {
        links: items,
        meta,
        wallets: all.items,
        ...(draft ? { draft } : {}),
      }),
      status,
    );
  }

  app.get('/payment-links', async (req, reply) => renderList(req, reply));

  app.post('/payment-links', async (req, reply) => {
    const session = sessionOf(req);
    const form = formOf(req);
    try {
      const optional = (key: string) => (form[key]?.trim() ? { [key]: form[key]!.trim() } : {});
      const limit = form.paymentLimit?.trim();
      const accepts = Object.keys(form)
        .filter((k) => k.startsWith('wallet_') && form[k] === 'on')
        .map((k) => ({ walletId: k.slice('wallet_'.length) }));
      const input = check(
        CreateLinkBody,
        {
          name: (form.name ?? '').trim(),
          ...optional('amount'),
          ...optional('description'),
          ...optional('slug'),
          ...optional('successMessage'),
          ...optional('inactiveMessage'),
          ...(limit ? { paymentLimit: /^\d{1,9}$/.test(limit) ? Number(limit) : limit } : {}),
          ...(accepts.length ? { accepts } : {}),
        },
        'body',
      );
      const link = await checkouts.createLink(session.auth, input, null, 'dashboard');
      return redirect(reply, `${PREFIX}/payment-links/${link.id}`);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return renderList(req, reply, form, ctx.statusOf(err), err.message);
    }
  });

  app.get('/payment-links/:linkId', async (req, reply) => {
    const session = sessionOf(req);
    const id = paymentLinkIdParam(req);
    const link = await checkouts.getLink(session.auth, id);
    const { items, meta } = await checkouts.listCheckouts(session.auth, id, pageOf(req), 100);
    return sendPage(reply, linkPage(frameOf(session), session.csrfToken, link, items, meta));
  });

  app.post('/payment-links/:linkId/active', async (req, reply) => {
    const session = sessionOf(req);
    const id = paymentLinkIdParam(req);
    const { active } = check(UpdateLinkBody, { active: formOf(req).active === 'true' }, 'body');
    await checkouts.updateLink(session.auth, id, { active }, null);
    return redirect(reply, `${PREFIX}/payment-links/${id}`);
  });
}
