/** Developers page: business and wallet API keys, webhook URL, test event. Everything goes through the API's services. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ForbiddenError } from '../../lib/errors.js';
import { UpdateWalletBody } from '../../modules/wallets/schemas.js';
import type { WebhookLogEntry } from '../../modules/webhooks/service.js';
import { frameOf, sessionOf, type Ctx } from '../context.js';
import { mayRevokeKey, mintedKeyRestrictions, requireCan } from '../roles.js';
import { check } from '../validate.js';
import { BUSINESS_KEYS, developersPage, type DevelopersState } from '../views/developers.js';
import { CreateApiKeyBody } from '../../modules/apikeys/schemas.js';
import type { ApiKeyScope } from '../../modules/apikeys/service.js';
import { formOf, PREFIX, redirect, sendPage } from '../web.js';
import { UUID_PATTERN } from '../../lib/ids.js';
import { apiKeyIdParam, walletIdParam } from './params.js';

/** How long a "send test event" request waits for the worker's first attempt. */
const TEST_WAIT_MS = 8_000;
const UUID = new RegExp(UUID_PATTERN);

export function developerRoutes(app: FastifyInstance, ctx: Ctx): void {
  const { services } = ctx;

  async function render(req: FastifyRequest, reply: FastifyReply, state: Omit<DevelopersState, 'wallets'> = {}, status = 200) {
    const session = sessionOf(req);
    // Checked in plugin.ts for the route already; again here because this page lists every
    // key's name, prefix and scopes and every webhook URL and delivery.
    requireCan(session, 'develop');
    const { items } = await services.wallets.list(session.auth, 1, 100);
    const wallets = await Promise.all(
      items.map(async (wallet) => {
        const key = await services.apiKeys.walletKeyInfo(wallet.id);
        return {
          wallet,
          keyPrefix: key?.prefix ?? null,
          keyLastUsedAt: key?.lastUsedAt ?? null,
          keyScopes: key?.scopes ?? [],
          recent: (await services.webhooks.log.listForWallet(session.auth, wallet.id, 1, 5)).items,
        };
      }),
    );
    const businessKeys = (await services.apiKeys.listBusinessKeys(session.auth, { page: 1, limit: 100 })).items;
    const readOnlyKeys = mintedKeyRestrictions(session).length > 0;
    return sendPage(reply, developersPage(frameOf(session), session.csrfToken, { ...state, wallets, businessKeys, readOnlyKeys }), status);
  }

  /**
   * Runs a change. Its outcome is either a page to show now (a new key: shown once, never
   * put in a URL) or a query for the redirect back to the page; an AppError re-renders
   * the page with the message beside its wallet.
   */
  async function attempt(
    req: FastifyRequest,
    reply: FastifyReply,
    walletId: string,
    work: () => Promise<Omit<DevelopersState, 'wallets'> | URLSearchParams>,
    draft?: string,
  ) {
    try {
      const outcome = await work();
      const anchor = walletId === BUSINESS_KEYS ? BUSINESS_KEYS : `wallet-${walletId}`;
      if (outcome instanceof URLSearchParams) return redirect(reply, `${PREFIX}/developers?${outcome.toString()}#${anchor}`);
      return await render(req, reply, outcome);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      // A foreign or unknown wallet is a plain 404, like the API's.
      if (err.code === 'NOT_FOUND') throw err;
      const state = {
        failed: { walletId, message: err.message },
        ...(draft !== undefined ? { webhookDraft: { walletId, value: draft } } : {}),
      };
      return render(req, reply, state, ctx.statusOf(err));
    }
  }

  // After a change the browser is sent back here (post/redirect/get), so a reload never
  // repeats it; `saved` and `delivery` only select what to show, access is checked again.
  app.get('/developers', async (req, reply) => {
    const session = sessionOf(req);
    const q = req.query as Record<string, unknown>;
    const walletId = typeof q.wallet === 'string' && UUID.test(q.wallet) ? q.wallet : null;
    if (typeof q.revoked === 'string' && UUID.test(q.revoked)) {
      const revokedKey = await services.apiKeys.getBusinessKey(session.auth, q.revoked).catch(() => null);
      return render(req, reply, { revokedKey });
    }
    if (!walletId) return render(req, reply);
    await services.wallets.get(session.auth, walletId);
    const state: Omit<DevelopersState, 'wallets'> = {};
    if (q.saved === '1') state.saved = walletId;
    if (typeof q.delivery === 'string' && UUID.test(q.delivery)) {
      const entry = await services.webhooks.log.one(walletId, q.delivery).catch(() => null);
      if (entry) state.test = { walletId, entry };
    }
    return render(req, reply, state);
  });

  // The business's own keys: the same calls as POST and DELETE /v1/api-keys.
  app.post('/developers/api-keys', async (req, reply) => {
    const session = sessionOf(req);
    const form = formOf(req);
    return attempt(req, reply, BUSINESS_KEYS, async () => {
      const scopes: ApiKeyScope[] = [...mintedKeyRestrictions(session)];
      if (form.readOnly && !scopes.includes('READ_ONLY')) scopes.push('READ_ONLY');
      if (form.noKeyExport) scopes.push('NO_KEY_EXPORT');
      const name = (form.name ?? '').trim();
      const rate = (form.rateLimit ?? '').trim();
      const body = check(
        CreateApiKeyBody,
        { ...(name ? { name } : {}), scopes, ...(rate ? { rateLimit: /^\d+$/.test(rate) ? Number(rate) : rate } : {}) },
        'body',
      );
      return { issuedBusinessKey: await services.apiKeys.createBusinessKey(session.auth, body) };
    });
  });

  app.post('/developers/api-keys/:keyId/revoke', async (req, reply) => {
    const keyId = apiKeyIdParam(req);
    const session = sessionOf(req);
    return attempt(req, reply, BUSINESS_KEYS, async () => {
      // A key's restrictions never change, so reading them first decides the revoke.
      const key = await services.apiKeys.getBusinessKey(session.auth, keyId);
      if (!mayRevokeKey(session, key.scopes))
        throw new ForbiddenError(`Your role (${session.role}) revokes only keys it could create (read-only); this one may write`);
      await services.apiKeys.revokeBusinessKey(session.auth, keyId);
      return new URLSearchParams({ revoked: keyId });
    });
  });

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
        return new URLSearchParams({ wallet: walletId, saved: '1' });
      },
      raw,
    );
  });

  app.post('/developers/:walletId/webhook-secret', async (req, reply) => {
    const walletId = walletIdParam(req);
    const session = sessionOf(req);
    return attempt(req, reply, walletId, async () => {
      // The same call as POST /v1/wallets/{id}/webhooks/secret: shown on this page only, once.
      const created = await services.webhooks.secrets.rotate(session.auth, walletId);
      return { webhookSecret: { walletId, secret: created.secret } };
    });
  });

  app.post('/developers/:walletId/test', async (req, reply) => {
    const walletId = walletIdParam(req);
    const session = sessionOf(req);
    return attempt(req, reply, walletId, async () => {
      const sent = await services.webhooks.log.sendTest(session.auth, walletId);
      // Wait for the worker's first attempt, so the page shows how the receiver answered.
      const entry = await settled(ctx, walletId, sent);
      return new URLSearchParams({ wallet: walletId, delivery: entry.id });
    });
  });
}

/** The delivery once its first attempt is recorded, or as it stands after TEST_WAIT_MS. */
async function settled(ctx: Ctx, walletId: string, entry: WebhookLogEntry): Promise<WebhookLogEntry> {
  const deadline = Date.now() + TEST_WAIT_MS;
  let current = entry;
  while (current.attempts === 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    current = await ctx.services.webhooks.log.one(walletId, entry.id);
  }
  return current;
}
