/**
 * Payment links: what a link accepts (wallets of the business and their USD stablecoins), its
 * terms, checked before anything is written; and how a link is shown (the API's PaymentLink).
 */
import { randomBytes } from 'node:crypto';
import { BusinessRuleError, ConflictError, NotFoundError, ValidationError } from '../../lib/errors.js';
import type { AuthContext } from '../apikeys/service.js';
import type { AssetHandle, CatalogueService } from '../catalogue/service.js';
import type { WalletAssetService } from '../assets/service.js';
import type { WalletRow, WalletService } from '../wallets/service.js';
import type { CreateLinkBody, LinkConfigurations, PaymentLinkView } from './schemas.js';
import type { AcceptRow, LinkRow } from './store.js';

export const DEFAULT_CONFIGURATIONS: LinkConfigurations = { expiresInMinutes: 30, monitoringMinutes: 1440, underpaymentTolerance: '0' };
const MAX_TOLERANCE = 50;

/** An image a link shows on its page: PNG, JPEG, GIF or WebP, told by its first bytes (never by the name or the client's type). */
export const IMAGE_MAX_BYTES = 1024 * 1024;
export function imageTypeOf(data: Buffer): string | null {
  if (data.length >= 8 && data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  if (data.length >= 6 && /^GIF8[79]a$/.test(data.subarray(0, 6).toString('latin1'))) return 'image/gif';
  if (data.length >= 12 && data.subarray(0, 4).toString('latin1') === 'RIFF' && data.subarray(8, 12).toString('latin1') === 'WEBP')
    return 'image/webp';
  return null;
}

export function checkImage(data: Buffer): { data: Buffer; type: string } {
  if (data.length === 0) throw new ValidationError('file is empty', [{ field: 'file', message: 'empty' }]);
  if (data.length > IMAGE_MAX_BYTES) throw new ValidationError('file is larger than 1 MiB', [{ field: 'file', message: 'at most 1 MiB' }]);
  const type = imageTypeOf(data);
  if (!type) throw new ValidationError('file must be a PNG, JPEG, GIF or WebP image', [{ field: 'file', message: 'not an image we show' }]);
  return { data, type };
}

/** The configurations of a link: the stored ones with a patch over them, each checked. */
export function configurationsOf(stored: Record<string, unknown> | null, patch?: Partial<LinkConfigurations>): LinkConfigurations {
  const merged = { ...DEFAULT_CONFIGURATIONS, ...(stored ?? {}), ...(patch ?? {}) } as LinkConfigurations;
  if (Number(merged.underpaymentTolerance) > MAX_TOLERANCE)
    throw new ValidationError(`configurations.underpaymentTolerance is at most ${MAX_TOLERANCE} (percent)`, [
      { field: 'configurations.underpaymentTolerance', message: `at most ${MAX_TOLERANCE}` },
    ]);
  return merged;
}

/** A slug made from the name, with random letters so that two links of one name do not collide. */
export function slugFrom(name: string): string {
  const base = name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 40);
  return `${base || 'pay'}-${randomBytes(4).toString('hex')}`;
}

/** What a link may accept: a token whose currency is USD (a stablecoin, taken at par). */
export function isAcceptable(asset: AssetHandle): boolean {
  return !asset.row.is_native && asset.row.currency === 'USD' && asset.row.is_active;
}

export interface Accepted {
  wallet: WalletRow;
  asset: AssetHandle;
}

/**
 * Resolves `accepts` (or, for a wallet key, its own wallet) to (wallet, asset) pairs the
 * caller reaches: wallets active and of one network, assets enabled and USD stablecoins.
 */
export async function resolveAccepts(
  deps: { wallets: WalletService; walletAssets: WalletAssetService },
  auth: AuthContext,
  accepts: CreateLinkBody['accepts'],
): Promise<Accepted[]> {
  const wanted = accepts ?? (auth.walletId ? [{ walletId: auth.walletId }] : null);
  if (!wanted)
    throw new ValidationError('accepts is required with a business key: name the wallets the link takes', [
      { field: 'accepts', message: 'required with a business key' },
    ]);
  const out: Accepted[] = [];
  for (const [i, entry] of wanted.entries()) {
    const wallet = await deps.wallets.require(auth, entry.walletId);
    if (!wallet.is_active) throw new BusinessRuleError('WALLET_INACTIVE', 'This wallet is deactivated');
    const enabled = (await deps.walletAssets.enabled(wallet)).map((e) => e.asset);
    const chosen = entry.assets
      ? entry.assets.map((want, j) => {
          const found = enabled.find((a) => a.row.id === want || a.row.symbol.toUpperCase() === want.toUpperCase());
          if (!found)
            throw new BusinessRuleError('ASSET_NOT_ENABLED', `${want} is not enabled on wallet ${wallet.id}`, [
              { field: `accepts.${i}.assets.${j}`, message: 'not enabled on this wallet' },
            ]);
          if (!isAcceptable(found))
            throw new BusinessRuleError('ASSET_NOT_ACCEPTABLE', `${found.row.symbol} is not a USD stablecoin: a link takes only those`, [
              { field: `accepts.${i}.assets.${j}`, message: 'not a USD stablecoin' },
            ]);
          return found;
        })
      : enabled.filter(isAcceptable);
    for (const asset of chosen)
      if (!out.some((o) => o.wallet.id === wallet.id && o.asset.row.id === asset.row.id)) out.push({ wallet, asset });
  }
  if (out.length === 0)
    throw new BusinessRuleError('ASSET_NOT_ACCEPTABLE', 'No USD stablecoin is enabled on these wallets: enable one, or name the assets');
  const networks = new Set(out.map((o) => o.asset.chain.row.network));
  if (networks.size > 1)
    throw new BusinessRuleError('LINK_NETWORKS_DIFFER', 'A link takes wallets of one network: all testnet or all mainnet', [
      { field: 'accepts', message: 'mixes testnet and mainnet wallets' },
    ]);
  return out;
}

/**
 * A link's amount as stored: canonical and more than 0. The schema's pattern (shared with
 * sessions) lets "0" and "0.00" through, and the column's CHECK (amount > 0) would then fail
 * the insert as a 500; checked here, every way in (API, multipart, dashboard) answers 400.
 */
export function linkAmount(text: string, field = 'amount'): string {
  const amount = canonicalDecimal(text);
  if (amount === '0') throw new ValidationError(`${field} must be more than 0`, [{ field, message: 'must be more than 0' }]);
  return amount;
}

/**
 * Whether `text` is an absolute http(s) URL that the WHATWG parser (new URL, what the payer's
 * page builds the redirect with) reads. The schema's pattern only asks for a scheme and no
 * spaces, so "http://[" or "http://exa%mple.com" match it and then fail on every page that
 * would redirect.
 */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** Refuses a redirect URL (of a link or a session) that isHttpUrl rejects: 400, before anything is written. */
export function checkRedirectUrl(url: string | null | undefined, field = 'redirectUrl'): void {
  if (url !== undefined && url !== null && !isHttpUrl(url))
    throw new ValidationError(`${field} is not a valid absolute http(s) URL`, [{ field, message: 'not a valid absolute http(s) URL' }]);
}

/** The amount fits every accepted asset's decimals (a payer must be able to pay it exactly). */
export function checkAmountFits(amount: string | null, assets: AssetHandle[], field = 'amount'): void {
  if (amount === null) return;
  const digits = amount.split('.')[1]?.length ?? 0;
  const tight = assets.find((a) => a.row.decimals < digits);
  if (tight)
    throw new ValidationError(`${field} has more decimal places than ${tight.row.symbol} (${tight.row.decimals})`, [
      { field, message: `at most ${tight.row.decimals} decimal places` },
    ]);
}

/**
 * Slugs the pages' own paths take: /pay/assets/<file> serves the page's style and script, so
 * a link named `assets` would have its sessions' pages (/pay/assets/<checkoutId>) answer 404.
 */
export function isReservedSlug(slug: string): boolean {
  return slug.toLowerCase() === 'assets';
}

export function slugTaken(): ConflictError {
  return new ConflictError('SLUG_TAKEN', 'This slug is taken on this installation, or was held by another business: choose another');
}

/** The link if the caller's key reaches it: its business's, and for a wallet key, a link that takes that wallet only. */
export function requireReach(auth: AuthContext, link: LinkRow | undefined, accepts: AcceptRow[]): LinkRow {
  if (!link || link.business_id !== auth.businessId) throw new NotFoundError('Payment link');
  if (auth.walletId !== null && accepts.some((a) => a.wallet_id !== auth.walletId)) throw new NotFoundError('Payment link');
  return link;
}

/** Whether a link takes new sessions: switched on, and short of its payment limit. */
export function isOpen(link: LinkRow): boolean {
  return link.active && (link.payment_limit === null || link.payments < link.payment_limit);
}

export function presentLink(link: LinkRow, accepts: AcceptRow[], catalogue: CatalogueService, baseUrl: string): PaymentLinkView {
  return {
    id: link.id,
    slug: link.slug,
    url: `${baseUrl}/pay/${link.slug}`,
    name: link.name,
    description: link.description,
    amount: link.amount === null ? null : canonicalDecimal(link.amount),
    currency: link.currency,
    active: isOpen(link),
    network: link.network,
    type: 'payment',
    createdChannel: link.created_channel,
    configurations: configurationsOf(link.configurations),
    imageUrl: link.image_type ? `${baseUrl}/pay/${link.slug}/image` : null,
    metadata: link.metadata,
    paymentLimit: link.payment_limit,
    payments: link.payments,
    redirectUrl: link.redirect_url,
    successMessage: link.success_message,
    inactiveMessage: link.inactive_message,
    accepts: accepts
      .filter((a) => a.link_id === link.id)
      .flatMap((a) => {
        const asset = catalogue.asset(a.asset_id);
        return asset
          ? [
              {
                walletId: a.wallet_id,
                blockchain: asset.chain.config.blockchain.slug,
                network: asset.chain.row.network,
                assetId: a.asset_id,
                symbol: asset.row.symbol,
              },
            ]
          : [];
      }),
    createdAt: link.created_at.toISOString(),
    updatedAt: link.updated_at.toISOString(),
  };
}

/** numeric's text without trailing zeros ("12.50" -> "12.5"). */
export function canonicalDecimal(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
