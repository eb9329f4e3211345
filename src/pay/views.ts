/**
 * The payer's pages, server-rendered: everything a payer needs (address, amount, QR code) is
 * in the HTML, so the page works without JavaScript; pay.js only adds copy buttons, the
 * countdown and live status.
 */
import { html, raw, type Html } from '../dashboard/html.js';
import type { CheckoutRow, LinkRow } from '../modules/checkouts/service.js';

export const PREFIX = '/pay';

export interface Choice {
  value: string;
  symbol: string;
  chain: string;
}

function frame(title: string, body: Html, opts: { refresh?: boolean } = {}): Html {
  return html`<html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="no-referrer" />
      <title>${title}</title>
      <link rel="stylesheet" href="${PREFIX}/assets/pay.css" />
      <script src="${PREFIX}/assets/pay.js" defer></script>
      ${opts.refresh ? raw('<noscript><meta http-equiv="refresh" content="10" /></noscript>') : ''}
    </head>
    <body>
      <main class="card">${body}</main>
      <footer><p>Payments in stablecoins, on chain. Never send from an exchange account that cannot receive refunds.</p></footer>
    </body>
  </html>`;
}

function header(link: LinkRow, slug: string): Html {
  return html`<header class="merchant">
    ${link.image_type ? html`<img class="logo" src="${PREFIX}/${slug}/image" alt="" width="64" height="64" />` : ''}
    <div>
      <h1>${link.name}</h1>
      ${link.description ? html`<p class="muted">${link.description}</p>` : ''}
    </div>
  </header>`;
}

export function notFoundPage(): Html {
  return frame(
    'Payment page not found',
    html`<h1>Payment page not found</h1>
      <p>There is no payment page at this address. Check the link you were given.</p>`,
  );
}

export function errorPage(): Html {
  return frame(
    'Something went wrong',
    html`<h1>Something went wrong</h1>
      <p>The payment page could not be shown. Try again in a moment; nothing was charged.</p>`,
  );
}

/** A request the page cannot take (bad text in the address, a form of the wrong type or size): the payer's mistake or their tool's, not ours. */
export function requestErrorPage(message: string): Html {
  return frame(
    'Request not accepted',
    html`<h1>Request not accepted</h1>
      <p>${message}</p>
      <p>Go back to the payment link you were given and try again; nothing was charged.</p>`,
  );
}

export function inactivePage(link: LinkRow, slug: string): Html {
  return frame(
    link.name,
    html`${header(link, slug)}
      <p class="notice" role="status">${link.inactive_message || 'This payment link no longer takes payments.'}</p>`,
  );
}

export interface ChooserState {
  choices: Choice[];
  amount: string | null;
  prefill: { amount?: string; name?: string; email?: string; reference?: string; redirectUrl?: string };
  error?: string;
}

export function chooserPage(link: LinkRow, slug: string, s: ChooserState): Html {
  const first = s.choices[0]?.value;
  return frame(
    `Pay ${link.name}`,
    html`${header(link, slug)} ${s.error ? html`<p class="error" role="alert">${s.error}</p>` : ''}
      <form method="post" action="${PREFIX}/${slug}">
        ${
          s.amount
            ? html`<p class="amount-line">
                Amount: <strong>${s.amount} USD</strong> <span class="muted">(paid in a USD stablecoin, 1:1)</span>
              </p>`
            : html`<p>
                <label for="amount">Amount (USD)</label>
                <input
                  id="amount"
                  name="amount"
                  inputmode="decimal"
                  autocomplete="off"
                  required
                  pattern="[0-9]+([.][0-9]+)?"
                  value="${s.prefill.amount ?? ''}"
                />
              </p>`
        }
        <fieldset>
          <legend>Network and coin</legend>
          ${s.choices.map(
            (c) =>
              html`<label class="choice">
                <input type="radio" name="choice" value="${c.value}" ${c.value === first ? raw('checked') : ''} required />
                <span><strong>${c.symbol}</strong> on ${c.chain}</span>
              </label>`,
          )}
        </fieldset>
        <p>
          <label for="name">Your name <span class="muted">(optional)</span></label>
          <input id="name" name="name" autocomplete="name" maxlength="200" value="${s.prefill.name ?? ''}" />
        </p>
        <p>
          <label for="email">Email <span class="muted">(optional, for the merchant)</span></label>
          <input id="email" name="email" type="email" autocomplete="email" maxlength="254" value="${s.prefill.email ?? ''}" />
        </p>
        ${s.prefill.reference ? html`<input type="hidden" name="reference" value="${s.prefill.reference}" />` : ''}
        ${s.prefill.redirectUrl ? html`<input type="hidden" name="redirectUrl" value="${s.prefill.redirectUrl}" />` : ''}
        <button type="submit">Continue to payment</button>
      </form>`,
  );
}

export interface SessionState {
  slug: string;
  link: LinkRow;
  row: CheckoutRow;
  symbol: string;
  chain: string;
  amountDue: string;
  amount: string;
  amountPaid: string;
  /** Something is still due on an open session: the instructions show. */
  owing: boolean;
  paymentUri: string | null;
  remainingMs: number;
  redirect: string | null;
}

export function statusText(row: Pick<CheckoutRow, 'status' | 'partial' | 'paid_late'>): { key: string; text: string } {
  switch (row.status) {
    case 'new':
      return { key: 'waiting', text: 'Waiting for your payment.' };
    case 'processing':
      return row.partial
        ? { key: 'partial', text: 'Part of the amount arrived. Send the rest to the same address.' }
        : { key: 'seen', text: 'Payment seen. Waiting for the network to confirm it.' };
    case 'settled':
      return { key: 'confirmed', text: 'Payment confirmed. Thank you!' };
    case 'expired':
      return row.paid_late
        ? { key: 'late', text: 'A payment arrived after this request expired. The merchant has been told.' }
        : { key: 'expired', text: 'This payment request expired. Do not send money to this address any more.' };
    case 'invalid':
      return { key: 'invalid', text: 'The payment could not be confirmed in time. The merchant has been told.' };
  }
}

function minutes(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
}

/**
 * What the payer is told once the session settled. Only then is it in the page or its live
 * status: a merchant may put what the payment buys in it (a download code, an invitation), so
 * an unpaid session's page must not carry it, hidden or not.
 */
export function successText(link: Pick<LinkRow, 'success_message'>): string {
  return link.success_message || 'Your payment is complete.';
}

export function sessionPage(s: SessionState): Html {
  const { row, link } = s;
  const status = statusText(row);
  const open = row.status === 'new' || row.status === 'processing';
  const qr = `${PREFIX}/${s.slug}/${row.id}/qr.svg`;
  return frame(
    `Pay ${link.name}`,
    html`${header(link, s.slug)}
      <section id="session" data-events="${PREFIX}/${s.slug}/${row.id}/events" data-remaining-ms="${String(s.remainingMs)}">
        <p id="status" class="status status-${status.key}" role="status" aria-live="polite" data-status="${status.key}">${status.text}</p>
        <p id="success" class="success" ${row.status === 'settled' ? '' : raw('hidden')}>
          ${row.status === 'settled' ? successText(link) : ''}
        </p>
        ${s.redirect && row.status === 'settled' ? html`<p><a id="continue" href="${s.redirect}">Continue</a></p>` : ''}
        <div class="pay" ${s.owing ? '' : raw('hidden')} id="instructions">
          <h2>Send exactly <span id="due">${s.amountDue}</span> ${s.symbol} on ${s.chain}</h2>
          <img class="qr" src="${qr}" width="232" height="232" alt="QR code to pay ${s.amountDue} ${s.symbol} to ${row.address}" />
          <dl>
            <dt>Network</dt>
            <dd>${s.chain}</dd>
            <dt id="address-label">Address</dt>
            <dd class="copyable">
              <code id="address" aria-labelledby="address-label">${row.address}</code>
              <button type="button" class="copy" data-copy="address" aria-label="Copy the address">Copy</button>
            </dd>
            <dt id="amount-label">Amount</dt>
            <dd class="copyable">
              <code id="amount" aria-labelledby="amount-label">${s.amountDue}</code> ${s.symbol}
              <button type="button" class="copy" data-copy="amount" aria-label="Copy the amount">Copy</button>
            </dd>
            <dt>Time left</dt>
            <dd><span id="countdown">${minutes(s.remainingMs)}</span></dd>
          </dl>
          ${s.paymentUri ? html`<p><a class="wallet" href="${s.paymentUri}">Open in a wallet app</a></p>` : ''}
          <p class="muted">Paid so far: <span id="paid">${s.amountPaid}</span> of ${s.amount} ${s.symbol}.</p>
        </div>
      </section>`,
    { refresh: open },
  );
}
