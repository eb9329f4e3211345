/** Wallets: the list with on-chain balances, creation, and one wallet's assets and sweeping. */
import { groupDigits, html, short, when, type Html } from '../html.js';
import { PREFIX } from '../web.js';
import type { WalletView } from '../../modules/wallets/service.js';
import type { BalanceView } from '../../modules/balances/service.js';
import type { PageMeta } from '../../lib/schema.js';
import { csrf, layout, pager, walletTabs, type Frame } from './layout.js';

export interface WalletRowView {
  wallet: WalletView;
  /** null when the chain could not be read just now. */
  balances: BalanceView[] | null;
}

export interface ChainOption {
  value: string;
  label: string;
}

export interface WalletsState {
  rows: WalletRowView[];
  meta: PageMeta;
  chains: ChainOption[];
  created?: { wallet: WalletView; apiKey: string } | null;
  draft?: Record<string, string>;
}

export function balanceList(balances: BalanceView[] | null): Html {
  if (balances === null) return html`<span class="muted">unavailable (chain not reachable)</span>`;
  if (balances.length === 0) return html`<span class="muted">no assets enabled</span>`;
  return html`<ul class="balances">
    ${balances.map(
      (b) => html`<li><span class="amount">${groupDigits(b.balance)}</span> <span class="symbol">${b.asset.asset.symbol}</span></li>`,
    )}
  </ul>`;
}

export function walletsPage(frame: Frame, csrfToken: string, s: WalletsState): Html {
  const draft = s.draft ?? {};
  return layout(
    { ...frame, title: 'Wallets', section: 'wallets' },
    html`<h1>Wallets</h1>
      ${
        s.created
          ? html`<div class="secret card" data-testid="new-key">
              <p><strong>Wallet “${s.created.wallet.name}” created.</strong> Its API key is shown once: copy it now.</p>
              <p class="copyrow">
                <code class="key" id="created-key">${s.created.apiKey}</code
                ><button type="button" class="copy" data-copy="created-key">Copy</button>
              </p>
            </div>`
          : ''
      }
      <section class="card">
        <table class="wallets">
          <thead>
            <tr>
              <th>Name</th>
              <th>Chain</th>
              <th>Master address</th>
              <th>Balances (master address)</th>
            </tr>
          </thead>
          <tbody>
            ${
              s.rows.length === 0
                ? html`<tr>
                    <td colspan="4" class="muted">No wallets yet.</td>
                  </tr>`
                : ''
            }
            ${s.rows.map(
              (r) =>
                html`<tr data-wallet="${r.wallet.id}">
                  <td data-label="Name"><a href="${PREFIX}/wallets/${r.wallet.id}">${r.wallet.name}</a></td>
                  <td data-label="Chain">${r.wallet.blockchain.name} <span class="muted small">${r.wallet.network}</span></td>
                  <td data-label="Address">${short(r.wallet.address, 6)}</td>
                  <td data-label="Balances">${balanceList(r.balances)}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${pager(`${PREFIX}/wallets`, {}, s.meta)}
      </section>
      <section class="card">
        <h2>Create a master wallet</h2>
        <form method="post" action="${PREFIX}/wallets" class="grid-form">
          ${csrf(csrfToken)}
          <label
            >Blockchain and network
            <select name="chain" required>
              ${s.chains.map((c) => html`<option value="${c.value}" ${draft.chain === c.value ? 'selected' : ''}>${c.label}</option>`)}
            </select>
          </label>
          <label>Name <input name="name" required maxlength="200" value="${draft.name ?? ''}" /></label>
          <label class="wide">Description <input name="description" maxlength="2000" value="${draft.description ?? ''}" /></label>
          <div><button type="submit" class="primary">Create wallet</button></div>
        </form>
      </section>`,
  );
}

export interface AssetLine {
  id: string;
  symbol: string;
  name: string;
  decimals: number;
  address: string;
  native: boolean;
  enabled: boolean;
  balance: string | null;
}

export interface WalletDetailState {
  wallet: WalletView;
  assets: AssetLine[];
  /** Which form last failed, with its message. */
  failed?: { form: 'assets' | 'sweeping'; message: string } | null;
}

export function walletPage(frame: Frame, csrfToken: string, s: WalletDetailState): Html {
  const w = s.wallet;
  const sweeping = w.configurations.autoSweeping;
  const failed = (form: 'assets' | 'sweeping') =>
    s.failed?.form === form ? html`<p class="error" role="alert">${s.failed.message}</p>` : '';
  return layout(
    { ...frame, title: w.name, section: 'wallets' },
    html`${walletTabs(w.id, w.name, 'overview')}
      <h1>${w.name}</h1>
      <section class="card">
        <dl class="grid">
          <dt>Chain</dt>
          <dd>${w.blockchain.name} (${w.blockchain.slug}) · ${w.network}</dd>
          <dt>Master address</dt>
          <dd><code class="wrap">${w.address}</code></dd>
          <dt>Derivation path</dt>
          <dd><code>${w.derivationPath}</code></dd>
          <dt>Wallet id</dt>
          <dd><code class="wrap">${w.id}</code></dd>
          <dt>Webhook URL</dt>
          <dd>
            ${w.webhookUrl ? html`<code class="wrap">${w.webhookUrl}</code>` : html`<span class="muted">not set</span>`} ·
            <a href="${PREFIX}/developers#wallet-${w.id}">change</a>
          </dd>
          <dt>Created</dt>
          <dd>${when(w.createdAt)}</dd>
        </dl>
      </section>
      <section class="card">
        <h2>Assets</h2>
        ${failed('assets')}
        <table>
          <thead>
            <tr>
              <th>Asset</th>
              <th>Decimals</th>
              <th>Contract</th>
              <th>Balance (master)</th>
              <th>Enabled</th>
            </tr>
          </thead>
          <tbody>
            ${s.assets.map(
              (a) =>
                html`<tr data-asset="${a.symbol}">
                  <td data-label="Asset"><strong>${a.symbol}</strong> <span class="muted small">${a.name}</span></td>
                  <td data-label="Decimals">${a.decimals}</td>
                  <td data-label="Contract">${a.native ? html`<span class="muted">native</span>` : short(a.address, 6)}</td>
                  <td data-label="Balance">
                    ${a.balance === null ? html`<span class="muted">—</span>` : html`<span class="amount">${groupDigits(a.balance)}</span>`}
                  </td>
                  <td data-label="Enabled">
                    <form method="post" action="${PREFIX}/wallets/${w.id}/assets/${a.id}" class="inline">
                      ${csrf(csrfToken)}
                      <input type="hidden" name="isActive" value="${a.enabled ? 'false' : 'true'}" />
                      <span class="${a.enabled ? 'on' : 'off'}">${a.enabled ? 'On' : 'Off'}</span>
                      <button type="submit" class="small">${a.enabled ? 'Disable' : 'Enable'}</button>
                    </form>
                  </td>
                </tr>`,
            )}
          </tbody>
        </table>
      </section>
      <section class="card">
        <h2>Auto-sweep</h2>
        ${failed('sweeping')}
        <p class="muted">
          Confirmed deposits to child addresses are moved to the master address when their amount reaches the threshold (in the asset's
          units; 0 sweeps every deposit).
        </p>
        <form method="post" action="${PREFIX}/wallets/${w.id}/sweeping" class="inline">
          ${csrf(csrfToken)}
          <label class="check"
            ><input type="checkbox" name="isActive" value="true" ${sweeping.isActive ? 'checked' : ''} /> Sweep automatically</label
          >
          <label
            >Threshold <input name="threshold" inputmode="decimal" value="${String(sweeping.threshold)}" pattern="\\d+(\\.\\d+)?" size="12"
          /></label>
          <button type="submit">Save</button>
        </form>
      </section>`,
  );
}
