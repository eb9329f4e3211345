/** One transaction: its facts, its webhook deliveries with a resend button, raw JSON in a drawer. */
import { html, short, when, type Html } from '../html.js';
import { PREFIX } from '../web.js';
import type { TransactionView } from '../../modules/transactions/service.js';
import type { WebhookLogEntry } from '../../modules/webhooks/service.js';
import { badge, csrf, layout, walletTabs, type Frame } from './layout.js';
import { amountOf } from './activity.js';

export function transactionPage(frame: Frame, csrfToken: string, s: { tx: TransactionView; deliveries: WebhookLogEntry[] }): Html {
  const t = s.tx;
  const native = t.blockchain.symbol;
  const row = (label: string, value: Html | string | number | null) =>
    html`<dt>${label}</dt>
      <dd>${value === null || value === '' ? html`<span class="muted">—</span>` : value}</dd>`;
  return layout(
    { ...frame, title: `Transaction ${t.reference}`, section: 'wallets' },
    html`${walletTabs(t.wallet.id, t.wallet.name, 'transactions')}
      <h1>${t.type} ${badge(t.status)}</h1>
      <section class="card">
        <dl class="grid">
          ${row('Amount', amountOf(t))} ${row('Reference', t.reference)}
          ${row('Confirmations', t.confirmations === null ? null : `${t.confirmations}${t.confirmed ? ' (confirmed)' : ''}`)}
          ${row('Hash', t.hash ? html`<code class="wrap">${t.hash}</code>` : null)} ${row('Block', t.blockNumber)}
          ${row('From', t.senderAddress ? html`<code class="wrap">${t.senderAddress}</code>` : null)}
          ${row('To', t.recipientAddress ? html`<code class="wrap">${t.recipientAddress}</code>` : null)}
          ${row('Child address', t.address ? html`${t.address.name ? html`${t.address.name} ` : ''}${short(t.address.address, 6)}` : null)}
          ${row('Token', t.tokenAddress ? short(t.tokenAddress, 6) : null)} ${row('Network fee', t.gasFee ? `${t.gasFee} ${native}` : null)}
          ${row('Swept', t.assetSwept ? html`yes, ${t.assetSweptAmount ?? ''} at ${when(t.assetSweptAt)} ${short(t.assetSweptHash, 6)}` : 'no')}
          ${row('AML screening', amlOf(t))} ${row('Note', t.note)} ${row('Reason', t.reason)} ${row('Created', when(t.createdAt))}
          ${row('Updated', when(t.updatedAt))} ${row('Transaction id', html`<code class="wrap">${t.id}</code>`)}
        </dl>
        ${
          aml(t)?.held
            ? html`<form method="post" action="${PREFIX}/wallets/${t.wallet.id}/transactions/${t.id}/aml-release" class="row-between">
                ${csrf(csrfToken)}
                <p class="bad">Held by AML screening: not swept or settled until released.</p>
                <button type="submit">Release this deposit</button>
              </form>`
            : ''
        }
        <details class="drawer">
          <summary>Raw JSON</summary>
          <pre>${JSON.stringify(t, null, 2)}</pre>
        </details>
      </section>
      <section class="card">
        <div class="row-between">
          <h2>Webhook deliveries</h2>
          <form method="post" action="${PREFIX}/wallets/${t.wallet.id}/transactions/${t.id}/resend">
            ${csrf(csrfToken)}<button type="submit">Resend latest event</button>
          </form>
        </div>
        ${s.deliveries.length === 0 ? html`<p class="muted">No deliveries yet${t.wallet.webhookUrl ? '' : ' (the wallet has no webhook URL)'}.</p>` : ''}
        ${
          s.deliveries.length
            ? html`<table class="deliveries">
                <thead>
                  <tr>
                    <th>Event</th>
                    <th>Status</th>
                    <th>HTTP</th>
                    <th>Attempts</th>
                    <th>Last attempt</th>
                    <th>Next attempt</th>
                    <th>Response</th>
                  </tr>
                </thead>
                <tbody>
                  ${s.deliveries.map(
                    (d) =>
                      html`<tr data-delivery="${d.id}">
                        <td data-label="Event">${d.event} <span class="muted small">${when(d.createdAt)}</span></td>
                        <td data-label="Status">${badge(d.status)}</td>
                        <td data-label="HTTP">${d.lastStatusCode ?? '—'}</td>
                        <td data-label="Attempts">${d.attempts}</td>
                        <td data-label="Last attempt">${when(d.lastAttemptAt)}</td>
                        <td data-label="Next attempt">${when(d.nextAttemptAt)}</td>
                        <td data-label="Response">
                          ${d.response ? html`<code class="wrap">${d.response.slice(0, 120)}</code>` : '—'}
                          ${
                            d.history.length
                              ? html`<details>
                                  <summary>Attempts (${d.history.length})</summary>
                                  <ol class="attempts">
                                    ${d.history.map(
                                      (a) =>
                                        html`<li>
                                          ${when(a.attemptedAt)} ·
                                          ${a.statusCode ?? 'no answer'}${a.durationMs === null ? '' : ` · ${a.durationMs} ms`}${a.error ? html` · <span class="bad">${a.error}</span>` : ''}
                                        </li>`,
                                    )}
                                  </ol>
                                </details>`
                              : ''
                          }
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>`
            : ''
        }
      </section>`,
  );
}

interface AmlShown {
  status?: string;
  message?: string;
  held?: boolean;
  releasedAt?: string;
  releasedBy?: string;
}

function aml(t: TransactionView): AmlShown | null {
  const a = t.amlScreening as AmlShown | null | undefined;
  return a && typeof a === 'object' && a.status ? a : null;
}

/** The screening's status and message, and whether the deposit is held or who released it. */
function amlOf(t: TransactionView): Html | null {
  const a = aml(t);
  if (!a) return null;
  return html`${badge(a.status!)}
  ${a.message ?? ''}${a.held ? html` <strong class="bad">(held)</strong>` : ''}${
    a.releasedAt ? html` <span class="muted">released ${when(a.releasedAt)} by ${a.releasedBy ?? ''}</span>` : ''
  }`;
}
