/** Addresses (with analytics) and transactions (filters, pagination, detail, resend). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ValidationError } from '../../lib/errors.js';
import { CreateAddressBody, ListAddressesQuery } from '../../modules/addresses/schemas.js';
import { TransactionListQuery } from '../../modules/transactions/schemas.js';
import { frameOf, sessionOf, type Ctx } from '../context.js';
import { check, compact } from '../validate.js';
import { addressesPage, transactionsPage } from '../views/activity.js';
import { transactionPage } from '../views/transaction.js';
import { formOf, PREFIX, redirect, sendPage } from '../web.js';
import { transactionIdParam, walletIdParam } from './params.js';
import { UUID_PATTERN } from '../../lib/ids.js';
import { NotFoundError } from '../../lib/errors.js';

const UUID = new RegExp(UUID_PATTERN);

export function activityRoutes(app: FastifyInstance, ctx: Ctx): void {
  const { services } = ctx;

  async function renderAddresses(req: FastifyRequest, reply: FastifyReply, error: string | null = null, status = 200) {
    const session = sessionOf(req);
    const walletId = walletIdParam(req);
    const wallet = await services.wallets.get(session.auth, walletId);
    const query = compact(req.query);
    const q = check(ListAddressesQuery, { ...query, limit: query.limit ?? '50' }, 'query');
    const result = await services.addresses.list(session.auth, walletId, {
      page: q.page ?? 1,
      limit: q.limit ?? 50,
      type: q.type,
      isActive: q.isActive,
    });
    return sendPage(reply, addressesPage(frameOf(session, { error }), session.csrfToken, { wallet, ...result, query }), status);
  }

  app.get('/wallets/:walletId/addresses', async (req, reply) => renderAddresses(req, reply));

  app.post('/wallets/:walletId/addresses', async (req, reply) => {
    const session = sessionOf(req);
    const walletId = walletIdParam(req);
    const name = (formOf(req).name ?? '').trim();
    try {
      const body = check(CreateAddressBody, name ? { name } : {}, 'body');
      await services.addresses.create(session.auth, walletId, body);
      return redirect(reply, `${PREFIX}/wallets/${walletId}/addresses`);
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
      return renderAddresses(req, reply, err.message, ctx.statusOf(err));
    }
  });

  app.get('/wallets/:walletId/transactions', async (req, reply) => {
    const session = sessionOf(req);
    const walletId = walletIdParam(req);
    const wallet = await services.wallets.get(session.auth, walletId);
    const query = compact(req.query);
    const { address, ...filters } = query;
    if (address !== undefined && !UUID.test(address)) throw new NotFoundError('Address');
    let addressLabel: string | null = null;
    if (address) {
      const { address: row } = await services.addresses.require(session.auth, walletId, address);
      addressLabel = row.name ?? row.address;
    }
    try {
      // The API's own query schema: the same filters, limits and messages.
      const q = check(TransactionListQuery, normaliseDates(filters), 'query');
      const { items, meta } = await services.transactions.list(session.auth, walletId, q, address);
      return await sendPage(reply, transactionsPage(frameOf(session), { wallet, items, meta, query, addressLabel }));
    } catch (err) {
      // A refused filter keeps the form as typed, with the reason above it.
      if (!(err instanceof ValidationError)) throw err;
      const meta = { currentPage: 1, itemCount: 0, itemsPerPage: 0, totalItems: 0, totalPages: 0 };
      const page = transactionsPage(frameOf(session, { error: err.message }), { wallet, items: [], meta, query, addressLabel });
      return sendPage(reply, page, ctx.statusOf(err));
    }
  });

  async function renderTransaction(
    req: FastifyRequest,
    reply: FastifyReply,
    notice: string | null = null,
    error: string | null = null,
    status = 200,
  ) {
    const session = sessionOf(req);
    const walletId = walletIdParam(req);
    const transactionId = transactionIdParam(req);
    const [tx, deliveries] = await Promise.all([
      services.transactions.get(session.auth, walletId, transactionId),
      services.webhooks.log.listForTransaction(session.auth, walletId, transactionId),
    ]);
    const approval = await services.policies.approvals.ofTransaction(session.auth, transactionId);
    return sendPage(reply, transactionPage(frameOf(session, { notice, error }), session.csrfToken, { tx, deliveries, approval }), status);
  }

  app.get('/wallets/:walletId/transactions/:transactionId', async (req, reply) => {
    const q = req.query as Record<string, unknown>;
    const notice =
      q.resent === '1'
        ? 'Queued a new delivery of the latest event.'
        : q.released === '1'
          ? 'Released: the deposit is swept and settled as usual from now on.'
          : q.sent === 'held'
            ? 'Withdrawal accepted and held for approval by a policy: it waits in Approvals.'
            : q.sent === '1'
              ? 'Withdrawal accepted: it is being sent.'
              : null;
    return renderTransaction(req, reply, notice);
  });

  app.post('/wallets/:walletId/transactions/:transactionId/aml-release', async (req, reply) => {
    const session = sessionOf(req);
    const walletId = walletIdParam(req);
    const transactionId = transactionIdParam(req);
    try {
      // The same call as POST /v1/wallets/{id}/transactions/{id}/aml/release, as the signed-in operator.
      await services.aml.release(session.auth, walletId, transactionId, req.id);
      return redirect(reply, `${PREFIX}/wallets/${walletId}/transactions/${transactionId}?released=1`);
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
      return renderTransaction(req, reply, null, err.message, ctx.statusOf(err));
    }
  });

  app.post('/wallets/:walletId/transactions/:transactionId/resend', async (req, reply) => {
    const session = sessionOf(req);
    const walletId = walletIdParam(req);
    const transactionId = transactionIdParam(req);
    try {
      // The same call as POST /v1/wallets/{id}/webhooks/resend: a new delivery of the latest event.
      await services.webhooks.log.resend(session.auth, walletId, transactionId);
      return redirect(reply, `${PREFIX}/wallets/${walletId}/transactions/${transactionId}?resent=1`);
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
      return renderTransaction(req, reply, null, err.message, ctx.statusOf(err));
    }
  });
}

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const NO_ZONE = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(\.\d+)?)?$/;

/**
 * People type dates, not RFC 3339: a bare day covers the whole day (UTC), and a time
 * without a zone is UTC. Anything else goes to the API's schema as typed.
 */
export function normaliseDates(q: Record<string, string>): Record<string, string> {
  const out = { ...q };
  for (const [key, endOfDay] of [
    ['startDate', false],
    ['endDate', true],
  ] as const) {
    const v = out[key];
    if (!v) continue;
    if (DATE_ONLY.test(v)) out[key] = `${v}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z`;
    else {
      const m = NO_ZONE.exec(v);
      if (m) out[key] = `${m[1]}T${m[2]}${m[3] ?? ':00'}Z`;
    }
  }
  return out;
}
