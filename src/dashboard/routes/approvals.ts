/** The approvals queue and the votes cast from it (through the same service and rules as the API). */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, NotFoundError } from '../../lib/errors.js';
import { UUID_PATTERN } from '../../lib/ids.js';
import { frameOf, sessionOf, type Ctx } from '../context.js';
import { can } from '../roles.js';
import { approvalsPage } from '../views/approvals.js';
import { compact } from '../validate.js';
import { formOf, PREFIX, redirect, sendPage } from '../web.js';

const UUID = new RegExp(UUID_PATTERN);

export function approvalRoutes(app: FastifyInstance, ctx: Ctx): void {
  const approvals = ctx.services.policies.approvals;

  async function render(req: FastifyRequest, reply: FastifyReply, notice: string | null = null, error: string | null = null, status = 200) {
    const session = sessionOf(req);
    // Lenient, as links are edited by hand: anything but a page number is the first page, a fraction its whole part.
    const page = Math.max(1, Math.min(10_000, Math.trunc(Number(compact(req.query).page ?? '1')) || 1));
    const [pending, decided] = await Promise.all([
      approvals.list(session.auth, { status: 'PENDING', page: 1, limit: 100 }),
      approvals.list(session.auth, { decided: true, page, limit: 25 }),
    ]);
    return sendPage(
      reply,
      approvalsPage(frameOf(session, { notice, error }), session.csrfToken, {
        pending: pending.items,
        decided: decided.items,
        meta: decided.meta,
        mayVote: can(session, 'approve'),
        twoFactor: session.twoFactor,
        mayOverride: session.role === 'owner',
        me: session.userId,
      }),
      status,
    );
  }

  app.get('/approvals', async (req, reply) => {
    const done = (req.query as Record<string, unknown>).done;
    return render(req, reply, typeof done === 'string' && /^[a-z]+$/.test(done) ? `Your ${done} is recorded.` : null);
  });

  for (const action of ['approve', 'reject', 'override'] as const) {
    app.post(`/approvals/:approvalId/${action}`, async (req, reply) => {
      const session = sessionOf(req);
      const id = (req.params as { approvalId?: string }).approvalId;
      if (!id || !UUID.test(id)) throw new NotFoundError('Approval');
      // At most 1,000 characters, as the API's schema counts them (code points): cut by UTF-16
      // units, an emoji astride the cut left half a surrogate pair, which jsonb (the audit
      // entry of the vote) refuses: a 500, and the vote lost.
      const comment = [...(formOf(req).comment ?? '').trim()].slice(0, 1000).join('') || undefined;
      try {
        // The policies decide who may vote (role, listed, two factors, never the initiator).
        if (action === 'approve') await approvals.approve(session.auth, id, comment, req.id);
        else if (action === 'reject') await approvals.reject(session.auth, id, comment, req.id);
        else await approvals.override(session.auth, id, comment, req.id);
        return redirect(
          reply,
          `${PREFIX}/approvals?done=${action === 'reject' ? 'rejection' : action === 'override' ? 'override' : 'approval'}`,
        );
      } catch (err) {
        if (!(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
        return render(req, reply, null, err.message, ctx.statusOf(err));
      }
    });
  }
}
