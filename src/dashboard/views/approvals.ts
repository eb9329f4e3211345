/** The approvals queue: payouts held by a policy, with their votes and the forms to vote. */
import { groupDigits, html, short, when, type Html } from '../html.js';
import { PREFIX } from '../web.js';
import type { ApprovalView } from '../../modules/policies/service.js';
import type { PageMeta } from '../../lib/schema.js';
import { badge, csrf, layout, pager, type Frame } from './layout.js';

export interface ApprovalsState {
  pending: ApprovalView[];
  decided: ApprovalView[];
  meta: PageMeta;
  /** May vote at all (role), and with a two-factor session. */
  mayVote: boolean;
  twoFactor: boolean;
  mayOverride: boolean;
  me: string;
}

function card(a: ApprovalView, csrfToken: string, s: ApprovalsState): Html {
  const t = a.transaction;
  const mine = a.initiator.id === s.me;
  const voted = a.votes.some((v) => v.voter.id === s.me);
  const form = (action: string, label: string, cls = '') =>
    html`<form method="post" action="${PREFIX}/approvals/${a.id}/${action}" class="inline">
      ${csrf(csrfToken)}<input name="comment" maxlength="1000" placeholder="comment (optional)" /><button type="submit" class="${cls}">
        ${label}
      </button>
    </form>`;
  return html`<article class="card approval" data-approval="${a.id}" data-transaction="${t.id}">
    <div class="row-between">
      <h2>
        <span class="amount">${groupDigits(t.amount ?? '0')}</span> ${t.currency ?? ''} <span class="muted small">to</span>
        ${short(t.recipientAddress, 8)}
      </h2>
      ${badge(a.status)}
    </div>
    <dl class="grid">
      <dt>Wallet</dt>
      <dd><a href="${PREFIX}/wallets/${t.wallet.id}/transactions/${t.id}">${t.wallet.name}</a> · ${t.blockchain.name}</dd>
      <dt>Policy</dt>
      <dd>${a.policy.name}</dd>
      <dt>Asked by</dt>
      <dd>${a.initiator.label} at ${when(a.createdAt)}</dd>
      <dt>Approvals</dt>
      <dd data-testid="approvals">${a.approvals} of ${a.quorum}</dd>
      <dt>${a.status === 'PENDING' ? 'Expires' : 'Decided'}</dt>
      <dd>${a.status === 'PENDING' ? when(a.expiresAt) : html`${when(a.decidedAt)}${a.reason ? html` · ${a.reason}` : ''}`}</dd>
      ${
        t.reference
          ? html`<dt>Reference</dt>
              <dd>${t.reference}</dd>`
          : ''
      }
      ${
        t.note
          ? html`<dt>Note</dt>
              <dd>${t.note}</dd>`
          : ''
      }
    </dl>
    ${
      a.votes.length
        ? html`<ul class="votes">
            ${a.votes.map((v) => html`<li>${v.decision.toLowerCase()} by ${v.voter.label} at ${when(v.at)}${v.comment ? html`: “${v.comment}”` : ''}</li>`)}
          </ul>`
        : ''
    }
    ${
      a.status !== 'PENDING'
        ? ''
        : mine
          ? html`<p class="muted small">You asked for this payout: someone else approves it.</p>`
          : voted
            ? html`<p class="muted small">You have voted.</p>`
            : !s.mayVote
              ? ''
              : !s.twoFactor
                ? html`<p class="notice warn">
                    Approving needs a two-factor sign-in: <a href="${PREFIX}/account">set it up</a>, then sign in again.
                  </p>`
                : html`<div class="actions">
                    ${form('approve', 'Approve', 'primary')} ${form('reject', 'Reject', 'danger')}
                    ${s.mayOverride ? form('override', 'Override quorum') : ''}
                  </div>`
    }
  </article>`;
}

export function approvalsPage(frame: Frame, csrfToken: string, s: ApprovalsState): Html {
  return layout(
    { ...frame, title: 'Approvals', section: 'approvals' },
    html`<h1>Approvals</h1>
      ${s.pending.length === 0 ? html`<section class="card"><p class="muted">Nothing waits for approval.</p></section>` : ''}
      <div data-testid="pending">${s.pending.map((a) => card(a, csrfToken, s))}</div>
      <h2>Decided</h2>
      <section class="card">
        <table>
          <thead>
            <tr>
              <th>Decided</th>
              <th>Status</th>
              <th>Amount</th>
              <th>To</th>
              <th>Policy</th>
              <th>Why</th>
            </tr>
          </thead>
          <tbody>
            ${
              s.decided.length === 0
                ? html`<tr>
                    <td colspan="6" class="muted">None yet.</td>
                  </tr>`
                : ''
            }
            ${s.decided.map(
              (a) =>
                html`<tr data-decided="${a.id}">
                  <td data-label="Decided">${when(a.decidedAt)}</td>
                  <td data-label="Status">${badge(a.status)}</td>
                  <td data-label="Amount">${groupDigits(a.transaction.amount ?? '0')} ${a.transaction.currency ?? ''}</td>
                  <td data-label="To">${short(a.transaction.recipientAddress, 6)}</td>
                  <td data-label="Policy">${a.policy.name}</td>
                  <td data-label="Why">${a.reason ?? ''}</td>
                </tr>`,
            )}
          </tbody>
        </table>
        ${pager(`${PREFIX}/approvals`, {}, s.meta)}
      </section>`,
  );
}
