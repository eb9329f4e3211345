/** A wallet's addresses (with analytics) and transactions (with the API's filters). */
import { groupDigits, html, short, when, type Html } from '../html.js';
import { PREFIX } from '../web.js';
import type { WalletView } from '../../modules/wallets/service.js';
import type { AddressAnalytics, AddressView } from '../../modules/addresses/service.js';
import type { TransactionView } from '../../modules/transactions/service.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../transaction-types.js';
import type { PageMeta } from '../../lib/schema.js';
import { badge, csrf, layout, pager, walletTabs, type Frame } from './layout.js';

export function addressesPage(
  frame: Frame,
  csrfToken: string,
  s: { wallet: WalletView; items: AddressView[]; meta: PageMeta; analytics: AddressAnalytics; query: Record<string, string> },
): Html {
  const a = s.analytics;
  const base = `${PREFIX}/wallets/${s.wallet.id}`;
  const stat = (label: string, value: number, testid: string) =>
    html`<div class="stat">
      <span class="value" data-testid="${testid}">${groupDigits(String(value))}</span><span class="label">${label}</span>
    </div>`;
  const opt = (name: string, value: string, label: string) =>
    html`<option value="${value}" ${s.query[name] === value ? 'selected' : ''}>${label}</option>`;
  return layout(
    { ...frame, title: `${s.wallet.name} · addresses`, section: 'wallets' },
    html`${walletTabs(s.wallet.id, s.wallet.name, 'addresses')}
      <h1>Addresses</h1>
      <section class="stats">
        ${stat('addresses', a.addressesCount, 'count-all')}${stat('active', a.activeAddressesCount, 'count-active')}${stat(
          'inactive',
          a.inactiveAddressesCount,
          'count-inactive',
        )}${stat('internal', a.internalAddressesCount, 'count-internal')}${stat('external', a.externalAddressesCount, 'count-external')}${stat(
          'limit',
          a.addressLimit,
          'count-limit',
        )}
      </section>
      <section class="card">
        <form method="get" action="${base}/addresses" class="filters">
          <label
            >Type
            <select name="type">
              ${opt('type', '', 'any')}${opt('type', 'INTERNAL', 'internal')}${opt('type', 'EXTERNAL', 'external')}
            </select></label
          >
          <label
            >State
            <select name="isActive">
              ${opt('isActive', '', 'any')}${opt('isActive', 'true', 'active')}${opt('isActive', 'false', 'inactive')}
            </select></label
          >
          <button type="submit">Filter</button>
        </form>
        <table>
          <thead>
            <tr>
              <th>Address</th>
              <th>Name</th>
              <th>Type</th>
              <th>State</th>
              <th>Created</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${
              s.items.length === 0
                ? html`<tr>
                    <td colspan="6" class="muted">No addresses.</td>
                  </tr>`
                : ''
            }
            ${s.items.map(
              (x) =>
                html`<tr data-address="${x.address}">
                  <td data-label="Address"><code class="wrap">${x.address}</code></td>
                  <td data-label="Name">${x.name ?? html`<span class="muted">—</span>`}</td>
                  <td data-label="Type">${x.type.toLowerCase()}</td>
                  <td data-label="State">${x.isActive ? 'active' : html`<span class="muted">inactive</span>`}</td>
                  <td data-label="Created">${when(x.createdAt)}</td>
                  <td><a href="${base}/transactions?address=${x.id}">Transactions</a></td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${pager(`${base}/addresses`, s.query, s.meta)}
      </section>
      <section class="card">
        <h2>New deposit address</h2>
        <form method="post" action="${base}/addresses" class="inline">
          ${csrf(csrfToken)}
          <label class="grow">Name (optional) <input name="name" maxlength="200" placeholder="customer-42" /></label>
          <button type="submit" class="primary">Create address</button>
        </form>
      </section>`,
  );
}

const STATUSES: string[] = [...TRANSACTION_STATUSES];
const TYPES: string[] = [...TRANSACTION_TYPES];

export function amountOf(t: TransactionView): Html {
  if (t.amount === null) return html`<span class="muted">—</span>`;
  return html`<span class="amount">${groupDigits(t.amount)}</span> <span class="symbol">${t.asset?.symbol ?? t.blockchain.symbol}</span>`;
}

/**
 * A table of transactions, one row each, linked to the transaction's page. A wallet's own
 * list shows each row's hash, a pending row's confirmations and its reference as a link; the
 * search across wallets (`acrossWallets`) shows the wallet's name in their place.
 */
export function transactionsTable(items: TransactionView[], opts: { acrossWallets?: boolean } = {}): Html {
  const across = opts.acrossWallets === true;
  const column = (shown: boolean, cell: Html | string) => (shown ? cell : '');
  return html`<table class="transactions">
    <thead>
      <tr>
        <th>Created</th>
        ${column(across, html`<th>Wallet</th>`)}
        <th>Type</th>
        <th>Status</th>
        <th>Amount</th>
        <th>Counterparty</th>
        ${column(!across, html`<th>Hash</th>`)}
        <th>Reference</th>
      </tr>
    </thead>
    <tbody>
      ${
        items.length === 0
          ? html`<tr>
              <td colspan="7" class="muted">No transactions match.</td>
            </tr>`
          : ''
      }
      ${items.map((t) => {
        const page = `${PREFIX}/wallets/${t.wallet.id}/transactions/${t.id}`;
        const pending = !across && t.confirmations !== null && t.status === 'PENDING';
        return html`<tr data-transaction="${t.id}" data-hash="${t.hash ?? ''}">
          <td data-label="Created"><a href="${page}">${when(t.createdAt)}</a></td>
          ${column(across, html`<td data-label="Wallet">${t.wallet.name}</td>`)}
          <td data-label="Type">${t.type}</td>
          <td data-label="Status">${badge(t.status)}${pending ? html` <span class="muted small">${t.confirmations} conf.</span>` : ''}</td>
          <td data-label="Amount">${amountOf(t)}</td>
          <td data-label="Counterparty">${short(t.type === 'DEPOSIT' ? t.senderAddress : t.recipientAddress, 6)}</td>
          ${column(!across, html`<td data-label="Hash">${short(t.hash, 6)}</td>`)}
          <td data-label="Reference">${across ? t.reference : html`<a href="${page}">${t.reference}</a>`}</td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

export function transactionsPage(
  frame: Frame,
  s: { wallet: WalletView; items: TransactionView[]; meta: PageMeta; query: Record<string, string>; addressLabel: string | null },
): Html {
  const q = s.query;
  const base = `${PREFIX}/wallets/${s.wallet.id}`;
  const select = (name: string, values: string[], anyLabel = 'any') =>
    html`<select name="${name}">
      <option value="">${anyLabel}</option>
      ${values.map((v) => html`<option value="${v}" ${q[name] === v ? 'selected' : ''}>${v}</option>`)}
    </select>`;
  const text = (name: string, placeholder: string) => html`<input name="${name}" value="${q[name] ?? ''}" placeholder="${placeholder}" />`;
  return layout(
    { ...frame, title: `${s.wallet.name} · transactions`, section: 'wallets' },
    html`${walletTabs(s.wallet.id, s.wallet.name, 'transactions')}
      <h1>Transactions${s.addressLabel ? html` <span class="muted small">of ${s.addressLabel}</span>` : ''}</h1>
      <section class="card">
        <form method="get" action="${base}/transactions" class="filters">
          ${q.address ? html`<input type="hidden" name="address" value="${q.address}" />` : ''}
          <label>Status ${select('status', STATUSES)}</label>
          <label>Type ${select('type', TYPES)}</label>
          <label>Assets ${text('assets', 'USDT,USDC')}</label>
          <label>Reference ${text('reference', 'reference')}</label>
          <label>Hash ${text('hash', '0x…')}</label>
          <label>Transaction id ${text('id', 'uuid')}</label>
          <label>From ${text('startDate', '2026-01-31 or ISO 8601')}</label>
          <label>To ${text('endDate', '2026-02-28 or ISO 8601')}</label>
          <label>Order ${select('order', ['DESC', 'ASC'], 'newest first')}</label>
          <label>Per page ${select('limit', ['10', '25', '50', '100'], '100')}</label>
          <div class="actions"><button type="submit" class="primary">Apply</button> <a href="${base}/transactions">Reset</a></div>
        </form>
      </section>
      <section class="card">${transactionsTable(s.items)} ${pager(`${base}/transactions`, q, s.meta)}</section>`,
  );
}
