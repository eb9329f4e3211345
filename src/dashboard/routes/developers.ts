/** Developers page: API keys, webhook URL, test event. Everything goes through the API's services. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../lib/errors.js';
import { UpdateWalletBody } from '../../modules/wallets/schemas.js';
import type { WebhookLogEntry } from '../../modules/webhooks/service.js';
import { frameOf, sessionOf, type Ctx } from '../context.js';
import { check } from '../validate.js';
import { developersPage, type DevelopersState } from '../views/developers.js';
import { formOf, sendPage } from '../web.js';
import { statusOf } from '../../http/errors.js';
import { walletIdParam } from './params.js';

/** How long a "send test event" request waits for the worker's first attempt. */
const TEST_WAIT_MS = 8_000;

export function developerRoutes(app: FastifyInstance, ctx: Ctx): void {
  const { services } = ctx;

  async function render(req: FastifyRequest, reply: FastifyReply, state: Omit<DevelopersState, 'wallets'> = {}, status = 200) {
    const session = sessionOf(req);
    const { items } = await services.wallets.list(session.auth, 1, 100);
    const wallets = await Promise.all(
      items.map(async (wallet) => ({
        wallet,
        keyPrefix: await services.apiKeys.walletKeyPrefix(wallet.id),
        recent: (await services.webhooks.listForWallet(session.auth, wallet.id, 1, 5)).items,
      })),
    );
    return sendPage(reply, developersPage(frameOf(session), session.csrfToken, { ...state, wallets }), status);
  }

  /** Runs a change; an AppError re-renders the page with the message beside its wallet. */
  async function attempt(
    req: FastifyRequest,
    reply: FastifyReply,
    walletId: string,
    work: () => Promise<Omit<DevelopersState, 'wallets'>>,
    draft?: string,
  ) {
    try {
      return await render(req, reply, await work());
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // A foreign or unknown wallet is a plain 404, like the API's.
      if (err.code === 'NOT_FOUND') throw err;
      const state = {
        failed: { walletId, message: err.message },
        ...(draft !== undefined ? { webhookDraft: { walletId, value: draft } } : {}),
      };
      return render(req, reply, state, statusOf(err));
    }
  }

  app.get('/developers', async (req, reply) => render(req, reply));

  app.post('/developers/:walletId/key', async (req, reply) => {
    const walletId = walletIdParam(req);
    const session = sessionOf(req);
    return attempt(req, reply, walletId, async () => {
      // The same call as POST /v1/wallets/{id}/regenerate-key: the old key is revoked in
      // the same transaction, so it stops working at once.
      const issued = await services.wallets.regenerateKey(session.auth, walletId);
      return { issued: { walletId, apiKey: issued.apiKey } };
    });
  });

  app.post('/developers/:walletId/webhook', async (req, reply) => {
    const walletId = walletIdParam(req);
    const session = sessionOf(req);
    const raw = (formOf(req).webhookUrl ?? '').trim();
    return attempt(
      req,
      reply,
      walletId,
      async () => {
        const body = check(UpdateWalletBody, { webhookUrl: raw === '' ? null : raw }, 'body');
        // The wallet service applies the API's URL rules (scheme, credentials, mainnet HTTPS and public addresses).
        await services.wallets.update(session.auth, walletId, body);
        return {};
      },
      raw,
    );
  });

  app.post('/developers/:walletId/test', async (req, reply) => {
    const walletId = walletIdParam(req);
    const session = sessionOf(req);
    return attempt(req, reply, walletId, async () => {
      const sent = await services.webhooks.sendTest(session.auth, walletId);
      return { test: { walletId, entry: await settled(ctx, walletId, sent) } };
    });
  });
}

/** The delivery once its first attempt is recorded, or as it stands after TEST_WAIT_MS. */
async function settled(ctx: Ctx, walletId: string, entry: WebhookLogEntry): Promise<WebhookLogEntry> {
  const deadline = Date.now() + TEST_WAIT_MS;
  let current = entry;
  while (current.attempts === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    current = await ctx.services.webhooks.one(walletId, entry.id);
  }
  return current;
}
