/** Payment links: the list with creation and (de)activation, and one link's checkout sessions. */
import { groupDigits, html, short, when, type Html } from '../html.js';
import { PREFIX } from '../web.js';
import type { CheckoutView, PaymentLinkView } from '../../modules/checkouts/service.js';
import type { WalletView } from '../../modules/wallets/service.js';
import type { PageMeta } from '../../lib/schema.js';
import { badge, csrf, layout, pager, type Frame } from './layout.js';

export interface LinksState {
  links: PaymentLinkView[];
  meta: PageMeta;
  wallets: WalletView[];
  draft?: Record<string, string>;
}

function activeForm(link: PaymentLinkView, csrfToken: string): Html {
  const stopped = !link.active && link.paymentLimit !== null && link.payments >= link.paymentLimit;
  if (stopped) return html`<span class="muted">limit reached</span>`;
  return html`<form method="post" action="${PREFIX}/payment-links/${link.id}/active">
    ${csrf(csrfToken)}<input type="hidden" name="active" value="${link.active ? 'false' : 'true'}" />
    <button type="submit">${link.active ? 'Deactivate' : 'Activate'}</button>
  </form>`;
}

export function linksPage(frame: Frame, csrfToken: string, s: LinksState): Html {
  const d = s.draft ?? {};
  return layout(
    { ...frame, title: 'Payment links', section: 'payment-links' },
    html`<h1>Payment links</h1>
      <section class="card">
        <table class="links">
          <thead>
            <tr>
              <th>Name</th>
              <th>Page</th>
              <th>Amount</th>
              <th>Payments</th>
              <th>Status</th>
              <th>Created</th>
              <th>Action</th>
            </tr>
          </thead>
          <tbody>
            ${
              s.links.length === 0
                ? html`<tr>
                    <td colspan="7" class="muted">No payment links yet.</td>
                  </tr>`
                : ''
            }
            ${s.links.map(
              (l) =>
                html`<tr data-link="${l.id}">
                  <td><a href="${PREFIX}/payment-links/${l.id}">${l.name}</a></td>
                  <td><a href="${l.url}">/pay/${l.slug}</a></td>
                  <td>${l.amount === null ? html`<span class="muted">payer chooses</span>` : `${groupDigits(l.amount)} ${l.currency}`}</td>
                  <td>${l.payments}${l.paymentLimit === null ? '' : ` of ${l.paymentLimit}`}</td>
                  <td>${badge(l.active ? 'ACTIVE' : 'INACTIVE')}</td>
                  <td>${when(l.createdAt)}</td>
                  <td>${activeForm(l, csrfToken)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${pager(`${PREFIX}/payment-links`, {}, s.meta)}
      </section>
      <section class="card">
        <h2>Create a payment link</h2>
        <form method="post" action="${PREFIX}/payment-links" class="stack">
          ${csrf(csrfToken)}
          <label>Name <input name="name" required maxlength="250" value="${d.name ?? ''}" /></label>
          <label>Amount (USD; blank: the payer chooses) <input name="amount" inputmode="decimal" value="${d.amount ?? ''}" /></label>
          <label>Description <input name="description" maxlength="250" value="${d.description ?? ''}" /></label>
          <label>Slug (blank: made from the name) <input name="slug" maxlength="250" value="${d.slug ?? ''}" /></label>
          <label>Payment limit (blank: none) <input name="paymentLimit" inputmode="numeric" value="${d.paymentLimit ?? ''}" /></label>
          <label>Success message <input name="successMessage" maxlength="500" value="${d.successMessage ?? ''}" /></label>
          <label>Inactive message <input name="inactiveMessage" maxlength="500" value="${d.inactiveMessage ?? ''}" /></label>
          <fieldset>
            <legend>Wallets it takes (their enabled USD stablecoins)</legend>
            ${s.wallets.map(
              (w) =>
                html`<label class="check"
                  ><input type="checkbox" name="wallet_${w.id}" value="on" ${d[`wallet_${w.id}`] ? html`checked` : ''} /> ${w.name}
                  <span class="muted">(${w.blockchain.slug} · ${w.network})</span></label
                >`,
            )}
          </fieldset>
          <button type="submit">Create payment link</button>
        </form>
      </section>`,
  );
}

export function linkPage(frame: Frame, csrfToken: string, link: PaymentLinkView, sessions: CheckoutView[], meta: PageMeta): Html {
  return layout(
    { ...frame, title: link.name, section: 'payment-links' },
    html`<p class="crumbs"><a href="${PREFIX}/payment-links">Payment links</a> / ${link.name}</p>
      <h1>${link.name}</h1>
      <section class="card">
        <dl>
          <dt>Page</dt>
          <dd><a href="${link.url}">${link.url}</a></dd>
          <dt>Amount</dt>
          <dd>${link.amount === null ? 'the payer chooses' : `${groupDigits(link.amount)} ${link.currency}`}</dd>
          <dt>Status</dt>
          <dd>${badge(link.active ? 'ACTIVE' : 'INACTIVE')} ${activeForm(link, csrfToken)}</dd>
          <dt>Takes</dt>
          <dd>${link.accepts.map((a) => `${a.symbol} on ${a.blockchain}`).join(', ')}</dd>
          <dt>Payments</dt>
          <dd>${link.payments}${link.paymentLimit === null ? '' : ` of ${link.paymentLimit}`}</dd>
        </dl>
      </section>
      <section class="card">
        <h2>Checkout sessions</h2>
        <table class="sessions">
          <thead>
            <tr>
              <th>Started</th>
              <th>Status</th>
              <th>Amount</th>
              <th>Paid</th>
              <th>Chain</th>
              <th>Address</th>
              <th>Reference</th>
            </tr>
          </thead>
          <tbody>
            ${
              sessions.length === 0
                ? html`<tr>
                    <td colspan="7" class="muted">No sessions yet.</td>
                  </tr>`
                : ''
            }
            ${sessions.map(
              (c) =>
                html`<tr data-checkout="${c.id}" data-status="${c.status}">
                  <td>${when(c.createdAt)}</td>
                  <td>
                    ${badge(c.status.toUpperCase())} ${c.partial ? badge('PARTIAL') : ''} ${c.overpaid ? badge('OVERPAID') : ''}
                    ${c.paidLate ? badge('PAID-LATE') : ''}
                  </td>
                  <td>${groupDigits(c.amount)} ${c.currency}</td>
                  <td>${groupDigits(c.amountPaid)}</td>
                  <td>${c.blockchain.slug}</td>
                  <td>${short(c.address)}</td>
                  <td>${c.reference ?? ''}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${pager(`${PREFIX}/payment-links/${link.id}`, {}, meta)}
      </section>`,
  );
}
