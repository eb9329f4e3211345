/** Wallet pages: list with balances, creation, assets on/off, auto-sweep settings. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, ValidationError } from '../../lib/errors.js';
import { CreateWalletBody, UpdateWalletBody } from '../../modules/wallets/schemas.js';
import { UpdateWalletAssetBody } from '../../modules/assets/schemas.js';
import { frameOf, sessionOf, type Ctx } from '../context.js';
import { check } from '../validate.js';
import { walletPage, walletsPage, type WalletDetailState, type WalletsState } from '../views/wallets.js';
import { formOf, PREFIX, redirect, sendPage } from '../web.js';
import { assetIdParam, walletIdParam } from './params.js';

const DECIMAL = /^(0|[1-9]\d*)(\.\d+)?$/;

export function walletRoutes(app: FastifyInstance, ctx: Ctx): void {
  const { services } = ctx;

  async function renderList(req: FastifyRequest, reply: FastifyReply, extra: Partial<WalletsState> = {}, status = 200, error?: string) {
    const session = sessionOf(req);
    const page = pageOf(req);
    const { items, meta } = await services.wallets.list(session.auth, page, 100);
    const rows = await Promise.all(
      items.map(async (wallet) => ({ wallet, balances: await services.balances.ofWallet(session.auth, wallet.id, {}).catch(unreadable) })),
    );
    const chains = services.catalogue
      .chains()
      .map((c) => ({
        value: `${c.config.blockchain.slug}|${c.row.network}`,
        label: `${c.config.blockchain.name} (${c.config.blockchain.slug}) · ${c.row.network}`,
      }))
      .sort((a, b) => a.label.localeCompare(b.label));
    return sendPage(
      reply,
      walletsPage(frameOf(session, { error: error ?? null }), session.csrfToken, { rows, meta, chains, ...extra }),
      status,
    );
  }

  app.get('/', async (_req, reply) => redirect(reply, `${PREFIX}/wallets`));
  app.get('/wallets', async (req, reply) => renderList(req, reply));

  app.post('/wallets', async (req, reply) => {
    const session = sessionOf(req);
    const form = formOf(req);
    const [blockchain = '', network = ''] = (form.chain ?? '').split('|');
    try {
      const input = check(
        CreateWalletBody,
        {
          blockchain,
          network,
          name: (form.name ?? '').trim(),
          ...(form.description?.trim() ? { description: form.description.trim() } : {}),
        },
        'body',
      );
      // The API's own call: the session's authority mints the wallet's key (apikeys scopesOfNewKey).
      const created = await services.wallets.create(session.auth, input);
      return await renderList(req, reply, { created });
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      return renderList(req, reply, { draft: form }, ctx.statusOf(err), err.message);
    }
  });

  async function renderWallet(req: FastifyRequest, reply: FastifyReply, failed: WalletDetailState['failed'] = null, status = 200) {
    const session = sessionOf(req);
    const walletId = walletIdParam(req);
    const wallet = await services.wallets.get(session.auth, walletId);
    const [walletAssets, balances] = await Promise.all([
      services.walletAssets.list(session.auth, walletId),
      services.balances.ofWallet(session.auth, walletId, {}).catch(unreadable),
    ]);
    const chain = services.catalogue.findChain(wallet.blockchain.slug, wallet.network);
    const enabled = new Map(walletAssets.map((wa) => [wa.asset.id, wa.isActive]));
    const balanceOf = new Map((balances ?? []).map((b) => [b.asset.asset.id, b.balance]));
    const assets = (chain?.assets ?? [])
      .filter((a) => a.is_active || enabled.has(a.id))
      .map((a) => ({
        id: a.id,
        symbol: a.symbol,
        name: a.name,
        decimals: a.decimals,
        address: a.address,
        native: a.is_native,
        enabled: enabled.get(a.id) ?? false,
        balance: balanceOf.get(a.id) ?? null,
      }));
    return sendPage(reply, walletPage(frameOf(session), session.csrfToken, { wallet, assets, failed }), status);
  }

  app.get('/wallets/:walletId', async (req, reply) => renderWallet(req, reply));

  app.post('/wallets/:walletId/assets/:assetId', async (req, reply) => {
    const session = sessionOf(req);
    const walletId = walletIdParam(req);
    const assetId = assetIdParam(req);
    return change(
      req,
      reply,
      'assets',
      async () => {
        const { isActive } = check(UpdateWalletAssetBody, { isActive: formOf(req).isActive === 'true' }, 'body');
        await services.walletAssets.setActive(session.auth, walletId, assetId, isActive);
      },
      `${PREFIX}/wallets/${walletId}`,
    );
  });

  app.post('/wallets/:walletId/sweeping', async (req, reply) => {
    const session = sessionOf(req);
    const walletId = walletIdParam(req);
    const form = formOf(req);
    return change(
      req,
      reply,
      'sweeping',
      async () => {
        const threshold = (form.threshold ?? '0').trim() || '0';
        // The API's threshold is a JSON number; the form's text must be a plain decimal first.
        if (!DECIMAL.test(threshold))
          throw new ValidationError('threshold must be a plain non-negative decimal such as 10.5', [
            { field: 'threshold', message: 'not a plain decimal' },
          ]);
        const body = check(
          UpdateWalletBody,
          { configurations: { autoSweeping: { isActive: form.isActive === 'true', threshold: Number(threshold) } } },
          'body',
        );
        await services.wallets.update(session.auth, walletId, body);
      },
      `${PREFIX}/wallets/${walletId}`,
    );
  });

  /** A change, then back to the wallet page (303); a refused change re-renders it with the reason. */
  async function change(req: FastifyRequest, reply: FastifyReply, form: 'assets' | 'sweeping', work: () => Promise<void>, back: string) {
    try {
      await work();
      return redirect(reply, back);
    } catch (err) {
      if (!(err instanceof AppError) || err.code === 'NOT_FOUND') throw err;
      return renderWallet(req, reply, { form, message: err.message }, ctx.statusOf(err));
    }
  }
}

/** A chain that cannot be read now leaves the page usable; other errors (404) propagate. */
function unreadable(err: unknown): null {
  if (err instanceof AppError && err.retryable) return null;
  throw err;
}

export function pageOf(req: FastifyRequest): number {
  const raw = (req.query as Record<string, string | undefined>).page;
  if (raw === undefined || raw === '') return 1;
  const page = Number(raw);
  if (!Number.isInteger(page) || page < 1 || page > 1_000_000)
    throw new ValidationError('page must be a whole number from 1', [{ field: 'page', message: 'out of range' }]);
  return page;
}
