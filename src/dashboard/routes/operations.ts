/** Transaction search across wallets, the delivery log across wallets with resend, and the withdrawal form. */
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, NotFoundError } from '../../lib/errors.js';
import { UUID_PATTERN } from '../../lib/ids.js';
import { Uuid } from '../../lib/schema.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../transaction-types.js';
import { WithdrawBody } from '../../modules/withdrawals/schemas.js';
import { frameOf, sessionOf, type Ctx } from '../context.js';
import { can, requireCan } from '../roles.js';
import { check, compact } from '../validate.js';
import { deliveriesPage, searchPage, withdrawPage } from '../views/operations.js';
import { formOf, PREFIX, redirect, sendPage } from '../web.js';
import { walletIdParam } from './params.js';

const UUID = new RegExp(UUID_PATTERN);
const Decimal = Type.String({ pattern: '^(0|[1-9][0-9]{0,77})(\\.[0-9]{1,77})?$' });
const Page = Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 }));

const SearchQuery = Type.Object(
  {
    hash: Type.Optional(Type.String({ maxLength: 200 })),
    address: Type.Optional(Type.String({ maxLength: 128 })),
    reference: Type.Optional(Type.String({ maxLength: 100 })),
    minAmount: Type.Optional(Decimal),
    maxAmount: Type.Optional(Decimal),
    status: Type.Optional(Type.Union(TRANSACTION_STATUSES.map((s) => Type.Literal(s)))),
    type: Type.Optional(Type.Union(TRANSACTION_TYPES.map((s) => Type.Literal(s)))),
    walletId: Type.Optional(Uuid()),
    page: Page,
  },
  { additionalProperties: false },
);

const DeliveryQuery = Type.Object(
  {
    status: Type.Optional(Type.Union(['pending', 'success', 'failed'].map((s) => Type.Literal(s)))),
    event: Type.Optional(Type.String({ maxLength: 100, pattern: '^[a-z0-9._-]+$' })),
    walletId: Type.Optional(Uuid()),
    page: Page,
  },
  { additionalProperties: false },
);

const PAGE_SIZE = 50;

export function operationsRoutes(app: FastifyInstance, ctx: Ctx): void {
  const { services } = ctx;
  const wallets = async (req: FastifyRequest) => (await services.wallets.list(sessionOf(req).auth, 1, 100)).items;

  app.get('/transactions', async (req, reply) => {
    const session = sessionOf(req);
    const query = compact(req.query);
    const empty = { currentPage: 1, itemCount: 0, itemsPerPage: PAGE_SIZE, totalItems: 0, totalPages: 0 };
    try {
      const { page, ...filter } = check(SearchQuery, query, 'query');
      const { items, meta } = await services.transactions.search(session.auth, filter, page ?? 1, PAGE_SIZE);
      return await sendPage(reply, searchPage(frameOf(session), { wallets: await wallets(req), items, meta, query }));
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
      return sendPage(
        reply,
        searchPage(frameOf(session, { error: err.message }), { wallets: await wallets(req), items: [], meta: empty, query }),
        ctx.statusOf(err),
      );
    }
  });

  async function renderDeliveries(
    req: FastifyRequest,
    reply: FastifyReply,
    notice: string | null = null,
    error: string | null = null,
    status = 200,
  ) {
    const session = sessionOf(req);
    const { resent: _resent, ...query } = compact(req.query);
    const { page, ...filter } = check(DeliveryQuery, query, 'query');
    const { items, meta } = await services.webhooks.log.listForBusiness(session.auth, filter, page ?? 1, PAGE_SIZE);
    return sendPage(
      reply,
      deliveriesPage(frameOf(session, { notice, error }), session.csrfToken, {
        wallets: await wallets(req),
        items,
        meta,
        query,
        mayResend: can(session, 'develop'),
      }),
      status,
    );
  }

  app.get('/deliveries', async (req, reply) =>
    renderDeliveries(req, reply, (req.query as Record<string, unknown>).resent === '1' ? 'Queued a new delivery of that event.' : null),
  );

  app.post('/deliveries/:deliveryId/resend', async (req, reply) => {
    const session = sessionOf(req);
    requireCan(session, 'develop');
    const id = (req.params as { deliveryId?: string }).deliveryId;
    if (!id || !UUID.test(id)) throw new NotFoundError('Webhook delivery');
    try {
      await services.webhooks.log.resendDelivery(session.auth, id);
      return redirect(reply, `${PREFIX}/deliveries?resent=1`);
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
      return renderDeliveries(req, reply, null, err.message, ctx.statusOf(err));
    }
  });

  async function renderWithdraw(
    req: FastifyRequest,
    reply: FastifyReply,
    form: Record<string, string> = {},
    error: string | null = null,
    status = 200,
    key: string | null = null,
  ) {
    const session = sessionOf(req);
    requireCan(session, 'withdraw');
    const walletId = walletIdParam(req);
    const wallet = await services.wallets.get(session.auth, walletId);
    const assets = (await services.walletAssets.list(session.auth, walletId))
      .filter((a) => a.isActive)
      .map((a) => ({ id: a.asset.id, symbol: a.asset.symbol, balance: null }));
    // Each form rendered carries its own key: the same form sent twice (a double click, the
    // browser sending the POST again) is one withdrawal. A form shown again after a refusal
    // keeps it (the refusal stored nothing under it).
    const idempotencyKey = key ?? randomUUID();
    return sendPage(reply, withdrawPage(frameOf(session, { error }), session.csrfToken, { wallet, assets, form, idempotencyKey }), status);
  }

  app.get('/wallets/:walletId/withdraw', async (req, reply) => renderWithdraw(req, reply));

  app.post('/wallets/:walletId/withdraw', async (req, reply) => {
    const session = sessionOf(req);
    requireCan(session, 'withdraw');
    const walletId = walletIdParam(req);
    const form = formOf(req);
    const fields = Object.fromEntries(
      (['assetId', 'address', 'amount', 'reference', 'note'] as const).flatMap((k) => {
        const v = (form[k] ?? '').trim();
        return v ? [[k, v]] : [];
      }),
    );
    // The form's own key (renderWithdraw); a form without one (a page older than it) is sent without.
    const formKey = UUID.test(form.idempotencyKey ?? '') ? form.idempotencyKey!.toLowerCase() : null;
    try {
      // The API's own schema and call: the same checks, idempotency rules and policies.
      const body = check(WithdrawBody, fields, 'body');
      const done = await services.withdrawals.withdraw(session.auth, {
        walletId,
        addressId: null,
        body,
        ...(formKey ? { idempotencyKey: `dashboard:${formKey}` } : {}),
      });
      const tx = Array.isArray(done) ? done[0]! : done;
      return redirect(reply, `${PREFIX}/wallets/${walletId}/transactions/${tx.id}?sent=${tx.status === 'PENDING_APPROVAL' ? 'held' : '1'}`);
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
      if (err.code === 'IDEMPOTENCY_KEY_REUSED') {
        // This form was sent already, with other values: a fresh form, so that sending it is a decision.
        const message = 'This form was already sent with other values: check the wallet’s transactions before sending another withdrawal.';
        return renderWithdraw(req, reply, fields, message, ctx.statusOf(err));
      }
      return renderWithdraw(req, reply, fields, err.message, ctx.statusOf(err), formKey);
    }
  });
}
