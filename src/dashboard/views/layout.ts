/** The page frame: header, navigation, notices, and the shared form pieces. */
import { html, when, type Html } from '../html.js';
import { PREFIX } from '../web.js';
import type { PageMeta } from '../../lib/schema.js';
import type { SignInNotice } from '../service.js';

export type Section =
  'wallets' | 'transactions' | 'payment-links' | 'approvals' | 'deliveries' | 'reports' | 'policies' | 'developers' | 'users' | 'account';

export interface Frame {
  title: string;
  /** Which top-level section is highlighted. */
  section?: Section;
  /** `role` decides which sections are shown; `stage` other than full: a sign-in still waiting for its second factor. */
  user?: { email: string; csrfToken: string; role?: string; stage?: string; pendingApprovals?: number };
  notice?: string | null;
  error?: string | null;
  /** Failed sign-in attempts before this session, shown until dismissed. */
  signInNotice?: SignInNotice | null;
}

export function layout(frame: Frame, body: Html): Html {
  const nav = (key: Section, label: string | Html) =>
    html`<a href="${PREFIX}/${key}" ${frame.section === key ? html`aria-current="page"` : ''}>${label}</a>`;
  const u = frame.user;
  const full = u && (u.stage ?? 'full') === 'full';
  const manager = u?.role === 'owner' || u?.role === 'admin';
  const pending = u?.pendingApprovals ?? 0;
  return html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <title>${frame.title} · Wallet dashboard</title>
      <link rel="stylesheet" href="${PREFIX}/assets/dashboard.css" />
      <script src="${PREFIX}/assets/dashboard.js" defer></script>
    </head>
    <body>
      <header class="top">
        <a class="brand" href="${PREFIX}/wallets">Stablecoin Wallet</a>
        ${
          frame.user
            ? html`<nav>
                  ${
                    full
                      ? html`${nav('wallets', 'Wallets')}${nav('transactions', 'Transactions')}${nav('payment-links', 'Payment links')}${nav(
                          'approvals',
                          pending > 0 ? html`Approvals <span class="count" data-testid="pending-count">${pending}</span>` : 'Approvals',
                        )}${nav('deliveries', 'Webhooks')}${nav('reports', 'Reports')}${nav('policies', 'Policies')}${nav(
                          'developers',
                          'Developers',
                        )}${manager ? nav('users', 'Team') : ''}${nav('account', 'Account')}`
                      : ''
                  }
                </nav>
                <div class="who">
                  <span>${frame.user.email}${frame.user.role ? html` <span class="muted small">(${frame.user.role})</span>` : ''}</span>
                  <form method="post" action="${PREFIX}/logout">
                    ${csrf(frame.user.csrfToken)}<button class="link" type="submit">Sign out</button>
                  </form>
                </div>`
            : ''
        }
      </header>
      <main>
        ${frame.user && frame.signInNotice ? signInBanner(frame.signInNotice, frame.user.csrfToken) : ''}
        ${frame.notice ? html`<p class="notice" role="status">${frame.notice}</p>` : ''}
        ${frame.error ? html`<p class="error" role="alert">${frame.error}</p>` : ''} ${body}
      </main>
    </body>
  </html>`;
}

/** The failed sign-in attempts since the previous sign-in, newest first. */
function signInBanner(n: SignInNotice, csrfToken: string): Html {
  const attempts = n.failures === 1 ? '1 failed sign-in attempt' : `${n.failures} failed sign-in attempts`;
  const more = n.failures - n.recent.length;
  return html`<section class="notice warn" role="alert" data-testid="sign-in-notice">
    <p>
      <strong>${attempts}</strong> on this account since your previous
      sign-in${n.recent.length < n.failures ? html` (the newest ${n.recent.length})` : ''}. If they were not yours, someone is guessing your
      password: browsers you signed in with before are never delayed by them, but choose a long password if yours is not.
    </p>
    <ul>
      ${n.recent.map(
        (a) =>
          html`<li>
            <time datetime="${a.at}">${when(a.at)}</time> from ${a.ip}
            (${a.knownDevice ? 'a browser that signed in before' : 'an unknown browser'})
          </li>`,
      )}
      ${more > 0 ? html`<li>and ${more} more (the audit log holds them all)</li>` : ''}
    </ul>
    <form method="post" action="${PREFIX}/notice/dismiss">${csrf(csrfToken)}<button type="submit">Dismiss</button></form>
  </section>`;
}

export function csrf(token: string): Html {
  return html`<input type="hidden" name="_csrf" value="${token}" />`;
}

/** Previous/next links that keep the current filters. */
export function pager(path: string, query: Record<string, string | number | undefined>, meta: PageMeta): Html {
  if (meta.totalPages <= 1) return html`<p class="muted">${meta.totalItems} in all</p>`;
  const link = (page: number) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '' && k !== 'page') params.set(k, String(v));
    params.set('page', String(page));
    return `${path}?${params.toString()}`;
  };
  return html`<nav class="pager" aria-label="pages">
    ${meta.currentPage > 1 ? html`<a href="${link(meta.currentPage - 1)}" rel="prev">← Previous</a>` : html`<span></span>`}
    <span class="muted">Page ${meta.currentPage} of ${meta.totalPages} · ${meta.totalItems} in all</span>
    ${meta.currentPage < meta.totalPages ? html`<a href="${link(meta.currentPage + 1)}" rel="next">Next →</a>` : html`<span></span>`}
  </nav>`;
}

export function badge(status: string): Html {
  return html`<span class="badge badge-${status.toLowerCase()}">${status}</span>`;
}

/** Tabs of one wallet's pages. */
export function walletTabs(walletId: string, name: string, active: 'overview' | 'addresses' | 'transactions' | 'withdraw'): Html {
  const base = `${PREFIX}/wallets/${walletId}`;
  const tab = (key: typeof active, href: string, label: string) =>
    html`<a href="${href}" ${active === key ? html`aria-current="page"` : ''}>${label}</a>`;
  return html`<p class="crumbs"><a href="${PREFIX}/wallets">Wallets</a> / ${name}</p>
    <nav class="tabs">
      ${tab('overview', base, 'Overview')}${tab('addresses', `${base}/addresses`, 'Addresses')}${tab(
        'transactions',
        `${base}/transactions`,
        'Transactions',
      )}${tab('withdraw', `${base}/withdraw`, 'Withdraw')}
    </nav>`;
}
