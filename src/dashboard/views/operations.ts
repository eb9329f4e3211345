/** Transaction search across wallets, the webhook delivery log across wallets, and the withdrawal form. */
import { html, short, when, type Html } from '../html.js';
import { PREFIX } from '../web.js';
import type { TransactionView } from '../../modules/transactions/service.js';
import type { WebhookLogEntry } from '../../modules/webhooks/service.js';
import type { WalletView } from '../../modules/wallets/service.js';
import type { PageMeta } from '../../lib/schema.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../transaction-types.js';
import { transactionsTable } from './activity.js';
import { badge, csrf, layout, pager, walletTabs, type Frame } from './layout.js';

const STATUSES: string[] = [...TRANSACTION_STATUSES];
const TYPES: string[] = [...TRANSACTION_TYPES];

const select = (q: Record<string, string>, name: string, values: { value: string; label: string }[], anyLabel = 'any') =>
  html`<select name="${name}">
    <option value="">${anyLabel}</option>
    ${values.map((v) => html`<option value="${v.value}" ${q[name] === v.value ? 'selected' : ''}>${v.label}</option>`)}
  </select>`;
const plain = (values: string[]) => values.map((v) => ({ value: v, label: v }));
const text = (q: Record<string, string>, name: string, placeholder: string) =>
  html`<input name="${name}" value="${q[name] ?? ''}" placeholder="${placeholder}" />`;

export function searchPage(
  frame: Frame,
  s: { wallets: WalletView[]; items: TransactionView[]; meta: PageMeta; query: Record<string, string> },
): Html {
  const q = s.query;
  const walletOptions = s.wallets.map((w) => ({ value: w.id, label: `${w.name} (${w.network})` }));
  return layout(
    { ...frame, title: 'Transactions', section: 'transactions' },
    html`<h1>Transactions <span class="muted small">every wallet</span></h1>
      <section class="card">
        <form method="get" action="${PREFIX}/transactions" class="filters">
          <label>Hash ${text(q, 'hash', '0x…')}</label>
          <label>Address ${text(q, 'address', 'sender or recipient')}</label>
          <label>Reference ${text(q, 'reference', 'reference')}</label>
          <label>Amount from ${text(q, 'minAmount', '0')}</label>
          <label>Amount to ${text(q, 'maxAmount', '1000')}</label>
          <label>Status ${select(q, 'status', plain(STATUSES))}</label>
          <label>Type ${select(q, 'type', plain(TYPES))}</label>
          <label>Wallet ${select(q, 'walletId', walletOptions, 'every wallet')}</label>
          <div class="actions"><button type="submit" class="primary">Search</button> <a href="${PREFIX}/transactions">Reset</a></div>
        </form>
      </section>
      <section class="card">${transactionsTable(s.items, { acrossWallets: true })} ${pager(`${PREFIX}/transactions`, q, s.meta)}</section>`,
  );
}

export function deliveriesPage(
  frame: Frame,
  csrfToken: string,
  s: {
    wallets: WalletView[];
    items: (WebhookLogEntry & { walletId: string })[];
    meta: PageMeta;
    query: Record<string, string>;
    mayResend: boolean;
  },
): Html {
  const q = s.query;
  const names = new Map(s.wallets.map((w) => [w.id, w.name]));
  return layout(
    { ...frame, title: 'Webhook deliveries', section: 'deliveries' },
    html`<h1>Webhook deliveries <span class="muted small">every wallet</span></h1>
      <section class="card">
        <form method="get" action="${PREFIX}/deliveries" class="filters">
          <label>Status ${select(q, 'status', plain(['pending', 'success', 'failed']))}</label>
          <label>Event ${text(q, 'event', 'withdraw.success')}</label>
          <label
            >Wallet
            ${select(
              q,
              'walletId',
              s.wallets.map((w) => ({ value: w.id, label: w.name })),
              'every wallet',
            )}</label
          >
          <div class="actions"><button type="submit" class="primary">Filter</button> <a href="${PREFIX}/deliveries">Reset</a></div>
        </form>
      </section>
      <section class="card">
        <table class="deliveries">
          <thead>
            <tr>
              <th>Created</th>
              <th>Wallet</th>
              <th>Event</th>
              <th>Status</th>
              <th>HTTP</th>
              <th>Attempts</th>
              <th>Next attempt</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${
              s.items.length === 0
                ? html`<tr>
                    <td colspan="8" class="muted">No deliveries match.</td>
                  </tr>`
                : ''
            }
            ${s.items.map(
              (d) =>
                html`<tr data-delivery="${d.id}">
                  <td data-label="Created">${when(d.createdAt)}</td>
                  <td data-label="Wallet">${names.get(d.walletId) ?? '—'}</td>
                  <td data-label="Event">${d.event} <span class="muted small">${d.reference}</span></td>
                  <td data-label="Status">${badge(d.status)}</td>
                  <td data-label="HTTP">${d.lastStatusCode ?? '—'}</td>
                  <td data-label="Attempts">${d.attempts}</td>
                  <td data-label="Next attempt">${when(d.nextAttemptAt)}</td>
                  <td>
                    ${
                      s.mayResend
                        ? html`<form method="post" action="${PREFIX}/deliveries/${d.id}/resend">
                            ${csrf(csrfToken)}<button type="submit">Resend</button>
                          </form>`
                        : ''
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${pager(`${PREFIX}/deliveries`, q, s.meta)}
      </section>`,
  );
}

export interface WithdrawFormState {
  wallet: WalletView;
  assets: { id: string; symbol: string; balance: string | null }[];
  form: Record<string, string>;
  /** The form's Idempotency-Key: sent twice, it is one withdrawal. */
  idempotencyKey: string;
}

export function withdrawPage(frame: Frame, csrfToken: string, s: WithdrawFormState): Html {
  const f = s.form;
  return layout(
    { ...frame, title: `${s.wallet.name} · withdraw`, section: 'wallets' },
    html`${walletTabs(s.wallet.id, s.wallet.name, 'withdraw')}
      <h1>Withdraw from the master address</h1>
      <section class="card">
        <p class="muted">
          Goes through the same checks and transaction policies as the API: a rule may refuse it, or hold it for approval (it then waits in
          Approvals, its amount held back).
        </p>
        <form
          method="post"
          action="${PREFIX}/wallets/${s.wallet.id}/withdraw"
          class="stack narrow-form"
          data-confirm="Send this withdrawal?"
        >
          ${csrf(csrfToken)}
          <input type="hidden" name="idempotencyKey" value="${s.idempotencyKey}" />
          <label
            >Asset
            <select name="assetId" required>
              ${s.assets.map(
                (a) =>
                  html`<option value="${a.id}" ${f.assetId === a.id ? 'selected' : ''}>
                    ${a.symbol}${a.balance !== null ? ` (${a.balance} held)` : ''}
                  </option>`,
              )}
            </select></label
          >
          <label>To <input name="address" required maxlength="128" value="${f.address ?? ''}" placeholder="destination address" /></label>
          <label
            >Amount <input name="amount" required maxlength="80" inputmode="decimal" value="${f.amount ?? ''}" placeholder="12.5"
          /></label>
          <label>Reference (optional) <input name="reference" maxlength="100" value="${f.reference ?? ''}" /></label>
          <label>Note (optional) <input name="note" maxlength="1000" value="${f.note ?? ''}" /></label>
          <button type="submit" class="primary">Withdraw</button>
        </form>
      </section>`,
  );
}
