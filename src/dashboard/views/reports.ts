/** Reports (daily money in and out per asset, network fees) and the business's policies, read-only. */
import { html, type Html } from '../html.js';
import type { DailyReport } from '../../modules/transactions/service.js';
import type { PolicyView } from '../../modules/policies/service.js';
import { barChart } from './charts.js';
import { layout, type Frame } from './layout.js';

export function reportsPage(frame: Frame, r: DailyReport): Html {
  const range = `${r.days[0]} to ${r.days.at(-1)} (UTC)`;
  return layout(
    { ...frame, title: 'Reports', section: 'reports' },
    html`<h1>Reports <span class="muted small">${range}</span></h1>
      ${
        r.volumes.length === 0 && r.fees.length === 0
          ? html`<section class="card"><p class="muted">Nothing moved in these days yet.</p></section>`
          : ''
      }
      ${r.volumes.map(
        (v) =>
          html`<section class="card">
            ${barChart({
              title: `${v.symbol}: daily volume`,
              days: r.days,
              unit: v.symbol,
              testid: `volume-${v.symbol}`,
              series: [
                { label: 'in', className: 'chart-in', values: v.inflow },
                { label: 'out', className: 'chart-out', values: v.outflow },
              ],
            })}
          </section>`,
      )}
      ${r.fees.map(
        (f) =>
          html`<section class="card">
            ${barChart({
              title: `Network fees in ${f.symbol}`,
              days: r.days,
              unit: f.symbol,
              testid: `fees-${f.symbol}`,
              series: [{ label: 'fees', className: 'chart-fee', values: f.values }],
            })}
          </section>`,
      )}
      <p class="muted small">
        In: successful deposits. Out: successful withdrawals and auto-settlement transfers. Fees: what the service paid to send and to
        sweep. Amounts of one symbol on several chains are added up, each in its own decimals.
      </p>`,
  );
}

function conditions(p: PolicyView): string {
  const k = p.conditions;
  const parts: string[] = [];
  if (k.types) parts.push(k.types.join('/').toLowerCase().replace(/_/g, ' '));
  if (k.assets) parts.push(k.assets.join('/'));
  if (k.amount) {
    const unit = k.amount.currency === 'USD' ? ' USD' : '';
    if (k.amount.min !== undefined) parts.push(`≥ ${k.amount.min}${unit}`);
    if (k.amount.max !== undefined) parts.push(`≤ ${k.amount.max}${unit}`);
  }
  if (k.velocity) {
    const v = k.velocity;
    const what = v.measure === 'COUNT' ? `${v.limit} payouts` : `${v.limit}${v.currency === 'USD' ? ' USD' : ''}`;
    parts.push(`over ${what} per ${v.scope === 'WALLET' ? 'wallet' : 'destination'} in ${v.windowSeconds / 3600} h`);
  }
  if (k.destination && k.destination !== 'ANY') parts.push(`to ${k.destination.toLowerCase().replace('_', '-')}`);
  if (k.initiators) parts.push('by listed initiators');
  return parts.length ? parts.join(', ') : 'every transaction';
}

export function policiesPage(frame: Frame, policies: PolicyView[], wallets: Map<string, string>): Html {
  return layout(
    { ...frame, title: 'Policies', section: 'policies' },
    html`<h1>Policies</h1>
      <section class="card">
        <p class="muted">
          Evaluated in this order; the first rule that matches decides. Owners and admins change them through the API
          (<code>/v1/policies</code>, a key with the MANAGE_POLICIES scope); every change is on the audit log.
        </p>
        <table class="policies">
          <thead>
            <tr>
              <th>Priority</th>
              <th>Name</th>
              <th>Scope</th>
              <th>When</th>
              <th>Then</th>
            </tr>
          </thead>
          <tbody>
            ${
              policies.length === 0
                ? html`<tr>
                    <td colspan="5" class="muted">No rules: every payout is allowed.</td>
                  </tr>`
                : ''
            }
            ${policies.map(
              (p) =>
                html`<tr data-policy="${p.id}" class="${p.isActive ? '' : 'muted'}">
                  <td data-label="Priority">${p.priority}</td>
                  <td data-label="Name">${p.name}${p.isActive ? '' : ' (off)'}</td>
                  <td data-label="Scope">
                    ${p.walletId ? (wallets.get(p.walletId) ?? 'a wallet') : 'every wallet'}${p.addressId ? ', one address' : ''}
                  </td>
                  <td data-label="When">${conditions(p)}</td>
                  <td data-label="Then">
                    ${p.action}${
                      p.approval
                        ? html`<br /><span class="muted small"
                              >${p.approval.quorum} of
                              ${[...(p.approval.approvers.roles ?? []), ...(p.approval.approvers.users ?? []).map(() => 'a user'), ...(p.approval.approvers.apiKeys ?? []).map(() => 'an API key')].join(', ')},
                              within ${Math.round(p.approval.ttlSeconds / 3600)} h</span
                            >`
                        : ''
                    }
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </section>`,
  );
}
