/**
 * Developers: the business's own API keys (several, each with restrictions and a rate,
 * created here and shown once, revoked here), then per master wallet its API key (shown
 * once), webhook URL and test event.
 */
import { html, short, when, type Html } from '../html.js';
import { PREFIX } from '../web.js';
import type { WalletView } from '../../modules/wallets/service.js';
import type { ApiKeyView } from '../../modules/apikeys/service.js';
import type { WebhookLogEntry } from '../../modules/webhooks/service.js';
import { badge, csrf, layout, type Frame } from './layout.js';

export interface DeveloperWallet {
  wallet: WalletView;
  keyPrefix: string | null;
  keyLastUsedAt?: string | null;
  /** The live key's restrictions (those of the key that minted it). */
  keyScopes?: readonly string[];
  recent: WebhookLogEntry[];
}

/** The id of the business keys' section, where its messages are shown. */
export const BUSINESS_KEYS = 'business-keys';

export interface DevelopersState {
  wallets: DeveloperWallet[];
  /** The viewer's role may not pay out: the keys it creates are read-only, and it hands out no wallet key. */
  readOnlyKeys?: boolean;
  /** The business's live business keys. */
  businessKeys?: ApiKeyView[];
  /** A business key created by this very request: the one time it is shown. */
  issuedBusinessKey?: (ApiKeyView & { apiKey: string }) | null;
  /** The business key just revoked. */
  revokedKey?: ApiKeyView | null;
  /** A key issued by this very request: the one time it is shown. */
  issued?: { walletId: string; apiKey: string } | null;
  /** The delivery of a test event sent by this request. */
  test?: { walletId: string; entry: WebhookLogEntry } | null;
  /** A form error, shown beside the wallet it concerns. */
  failed?: { walletId: string; message: string } | null;
  webhookDraft?: { walletId: string; value: string } | null;
  /** The wallet whose webhook URL was just saved. */
  saved?: string | null;
  /** A webhook signing secret created by this very request: the one time it is shown. */
  webhookSecret?: { walletId: string; secret: string } | null;
}

export function developersPage(frame: Frame, csrfToken: string, state: DevelopersState): Html {
  return layout(
    { ...frame, title: 'Developers', section: 'developers' },
    html`<h1>Developers</h1>
      <p class="muted">
        Each master wallet has its own API key (sent as <code>x-api-key</code>) and its own webhook URL. Webhooks are signed with the
        wallet's API key (<code>x-service-signature</code>) and with its signing secret (<code>webhook-signature</code>), so a receiver can
        verify them without the API key.
      </p>
      ${businessKeysCard(csrfToken, state)}
      ${state.wallets.length === 0 ? html`<p class="card">No wallets yet. <a href="${PREFIX}/wallets">Create one</a>.</p>` : ''}
      ${state.wallets.map((w) => walletCard(w, csrfToken, state))}`,
  );
}

function walletCard(w: DeveloperWallet, csrfToken: string, state: DevelopersState): Html {
  const id = w.wallet.id;
  const base = `${PREFIX}/developers/${id}`;
  const issued = state.issued?.walletId === id ? state.issued.apiKey : null;
  const failed = state.failed?.walletId === id ? state.failed.message : null;
  const test = state.test?.walletId === id ? state.test.entry : null;
  const draft = state.webhookDraft?.walletId === id ? state.webhookDraft.value : (w.wallet.webhookUrl ?? '');
  return html`<section class="card" id="wallet-${id}" data-wallet="${id}">
    <h2>${w.wallet.name} <span class="muted small">${w.wallet.blockchain.slug} · ${w.wallet.network}</span></h2>
    ${failed ? html`<p class="error" role="alert">${failed}</p>` : ''}
    ${state.saved === id ? html`<p class="notice" role="status">Webhook URL saved.</p>` : ''}
    <h3>API key</h3>
    ${
      issued
        ? html`<div class="secret" data-testid="new-key">
            <p><strong>Copy this key now. It is not shown again.</strong> Any previous key of this wallet has stopped working.</p>
            <p class="copyrow">
              <code class="key" id="key-${id}">${issued}</code><button type="button" class="copy" data-copy="key-${id}">Copy</button>
            </p>
          </div>`
        : html`<p>
            ${w.keyPrefix ? html`<code class="prefix" data-testid="key-prefix">${w.keyPrefix}…</code>` : html`<span class="muted">No live key.</span>`}
            ${w.keyPrefix ? html`<span class="muted small">last used ${lastUsed(w.keyLastUsedAt ?? null)}</span>` : ''}
            ${w.keyPrefix && w.keyScopes?.length ? html`<span class="small" data-testid="key-scopes">restricted: ${w.keyScopes.join(', ')}</span>` : ''}
          </p>`
    }
    ${
      state.readOnlyKeys
        ? html`<p class="muted small">An owner or an admin generates this wallet's key: it can pay out.</p>`
        : html`<form
            method="post"
            action="${base}/key"
            data-confirm="${w.keyPrefix ? 'Regenerate the key? The current key stops working at once.' : ''}"
          >
            ${csrf(csrfToken)}
            <button type="submit" name="action" value="regenerate">${w.keyPrefix ? 'Regenerate key' : 'Generate key'}</button>
          </form>`
    }

    <h3>Webhook URL</h3>
    <form method="post" action="${base}/webhook" class="inline">
      ${csrf(csrfToken)}
      <label class="grow"
        >URL
        <input type="text" inputmode="url" name="webhookUrl" value="${draft}" placeholder="https://example.com/webhooks" maxlength="2048"
      /></label>
      <button type="submit">Save</button>
    </form>
    <p class="muted small">
      ${w.wallet.network === 'mainnet' ? 'Mainnet: HTTPS only.' : 'Testnet: http is allowed.'} Private and local addresses only where the
      operator allows them. Leave empty to stop deliveries.
    </p>
    ${webhookSecret(base, csrfToken, state.webhookSecret?.walletId === id ? state.webhookSecret.secret : null)}
    <form method="post" action="${base}/test">
      ${csrf(csrfToken)}
      <button type="submit" ${w.wallet.webhookUrl ? '' : html`disabled title="Set a webhook URL first"`}>Send test event</button>
    </form>
    ${
      test
        ? html`<div class="result" data-testid="test-result" ${test.status === 'pending' ? html`data-refresh="2000"` : ''}>
            <h4>Test event</h4>
            ${delivery(test)}
          </div>`
        : ''
    }
    ${
      w.recent.length
        ? html`<details class="recent">
            <summary>Recent deliveries (${w.recent.length})</summary>
            <table>
              <thead>
                <tr>
                  <th>Event</th>
                  <th>Status</th>
                  <th>HTTP</th>
                  <th>Attempts</th>
                  <th>Last attempt</th>
                </tr>
              </thead>
              <tbody>
                ${w.recent.map(
                  (d) =>
                    html`<tr>
                      <td>${d.event}</td>
                      <td>${badge(d.status)}</td>
                      <td>${d.lastStatusCode ?? '—'}</td>
                      <td>${d.attempts}</td>
                      <td>${when(d.lastAttemptAt)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </details>`
        : ''
    }
  </section>`;
}

const lastUsed = (at: string | null) => (at ? when(at) : 'never');

const SCOPE_LABELS: Record<string, string> = {
  READ_ONLY: 'read only',
  NO_KEY_EXPORT: 'no key export',
  APPROVE: 'may approve payouts',
  MANAGE_POLICIES: 'may change policies',
};

function businessKeysCard(csrfToken: string, state: DevelopersState): Html {
  const keys = state.businessKeys ?? [];
  const issued = state.issuedBusinessKey ?? null;
  const failed = state.failed?.walletId === BUSINESS_KEYS ? state.failed.message : null;
  return html`<section class="card" id="${BUSINESS_KEYS}">
    <h2>Business API keys</h2>
    <p class="muted small">
      A business key reaches every wallet of the business and creates wallets. Give each integration its own key, restricted to what it
      needs; revoking one stops it on every server within 100 ms.
    </p>
    ${failed ? html`<p class="error" role="alert">${failed}</p>` : ''}
    ${state.revokedKey ? html`<p class="notice" role="status">Key <code>${state.revokedKey.prefix}…</code> revoked.</p>` : ''}
    ${
      issued
        ? html`<div class="secret" data-testid="new-business-key">
            <p><strong>Copy this key now. It is not shown again.</strong></p>
            <p class="copyrow">
              <code class="key" id="business-key-new">${issued.apiKey}</code
              ><button type="button" class="copy" data-copy="business-key-new">Copy</button>
            </p>
          </div>`
        : ''
    }
    ${
      keys.length
        ? html`<table data-testid="business-keys">
            <thead>
              <tr>
                <th>Name</th>
                <th>Key</th>
                <th>Restrictions</th>
                <th>Rate limit</th>
                <th>Created</th>
                <th>Last used</th>
                <th></th>
              </tr>
            </thead>
            <tbody>
              ${keys.map(
                (k) =>
                  html`<tr data-key="${k.id}">
                    <td data-label="Name">${k.name || html`<span class="muted">—</span>`}</td>
                    <td data-label="Key"><code class="prefix">${k.prefix}…</code></td>
                    <td data-label="Restrictions">${k.scopes.length ? k.scopes.map((s) => SCOPE_LABELS[s] ?? s).join(', ') : 'none'}</td>
                    <td data-label="Rate limit">
                      ${k.rateLimit === null ? 'default' : k.rateLimit === 0 ? 'unlimited' : `${k.rateLimit}/s`}
                    </td>
                    <td data-label="Created">${when(k.createdAt)}</td>
                    <td data-label="Last used">${lastUsed(k.lastUsedAt)}</td>
                    <td>
                      ${
                        state.readOnlyKeys && !k.scopes.includes('READ_ONLY')
                          ? html`<span class="muted small">An owner or admin revokes a key that may write</span>`
                          : html`<form
                              method="post"
                              action="${PREFIX}/developers/api-keys/${k.id}/revoke"
                              data-confirm="Revoke ${k.prefix}…? It stops working at once."
                            >
                              ${csrf(csrfToken)}<button type="submit">Revoke</button>
                            </form>`
                      }
                    </td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p class="muted">No live business keys.</p>`
    }
    <h3>New business key</h3>
    <form method="post" action="${PREFIX}/developers/api-keys" class="inline">
      ${csrf(csrfToken)}
      <label class="grow">Name <input type="text" name="name" maxlength="100" placeholder="e.g. payouts service" /></label>
      <label>Rate limit (requests/s) <input type="text" inputmode="numeric" name="rateLimit" placeholder="default" /></label>
      ${
        state.readOnlyKeys
          ? html`<span class="muted small">Read only (your role may not pay out, so its keys only read)</span>`
          : html`<label class="check"><input type="checkbox" name="readOnly" value="1" /> Read only</label>`
      }
      <label class="check"><input type="checkbox" name="noKeyExport" value="1" /> No key export</label>
      <button type="submit">Create key</button>
    </form>
  </section>`;
}

/** The signing secret: created or rotated here, shown once (docs/webhooks.md). */
function webhookSecret(base: string, csrfToken: string, issued: string | null): Html {
  return html`<h3>Webhook signing secret</h3>
    ${
      issued
        ? html`<div class="secret" data-testid="new-webhook-secret">
            <p>
              <strong>Copy this signing secret now. It is not shown again.</strong> A previous secret (or the API key) keeps signing beside
              it for 24 hours.
            </p>
            <p class="copyrow">
              <code class="key" id="whsec">${issued}</code><button type="button" class="copy" data-copy="whsec">Copy</button>
            </p>
          </div>`
        : ''
    }
    <form
      method="post"
      action="${base}/webhook-secret"
      data-confirm="Create a new signing secret? The current one keeps signing for 24 hours."
    >
      ${csrf(csrfToken)}
      <button type="submit">New signing secret</button>
    </form>`;
}

/** One delivery's outcome: status, HTTP code, timings, the receiver's answer. */
export function delivery(d: WebhookLogEntry): Html {
  const last = d.history[d.history.length - 1];
  return html`<dl class="grid">
    <dt>Status</dt>
    <dd data-testid="delivery-status">${badge(d.status)}</dd>
    <dt>Event</dt>
    <dd>${d.event}</dd>
    <dt>URL</dt>
    <dd><code>${d.url}</code></dd>
    <dt>HTTP status</dt>
    <dd data-testid="delivery-http">${d.lastStatusCode ?? '—'}</dd>
    <dt>Attempts</dt>
    <dd>${d.attempts}</dd>
    <dt>Last attempt</dt>
    <dd>${when(d.lastAttemptAt)}${last?.durationMs != null ? html` <span class="muted">(${last.durationMs} ms)</span>` : ''}</dd>
    ${
      d.nextAttemptAt
        ? html`<dt>Next attempt</dt>
            <dd>${when(d.nextAttemptAt)}</dd>`
        : ''
    }
    ${
      last?.error
        ? html`<dt>Error</dt>
            <dd>${last.error}</dd>`
        : ''
    }
    <dt>Response</dt>
    <dd>${d.response ? html`<code class="wrap">${d.response}</code>` : '—'}</dd>
    <dt>Delivery id</dt>
    <dd>${short(d.id, 6)}</dd>
  </dl>`;
}
