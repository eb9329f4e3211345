/** The team page (users, roles, invitations) and the page an invited person joins from. */
import { html, when, type Html } from '../html.js';
import { PREFIX } from '../web.js';
import type { Invitation, TeamUser } from '../team.js';
import { ROLES } from '../../modules/policies/service.js';
import { csrf, layout, type Frame } from './layout.js';

const ROLE_HELP: Record<string, string> = {
  owner: 'everything, including owners and the team',
  admin: 'everything but owners',
  approver: 'reads everything, approves payouts (two-factor sign-in required)',
  developer: 'API keys, webhooks, addresses',
  viewer: 'reads everything, changes nothing',
};

export interface TeamState {
  users: TeamUser[];
  invitations: Invitation[];
  /** A new invitation's link, shown once. */
  link?: { url: string; email: string; role: string } | null;
  me: { id: string; role: string };
}

const roleSelect = (name: string, current: string, allowed: readonly string[]) =>
  html`<select name="${name}">
    ${allowed.map((r) => html`<option value="${r}" ${r === current ? 'selected' : ''}>${r}</option>`)}
  </select>`;

export function teamPage(frame: Frame, csrfToken: string, s: TeamState): Html {
  const assignable = s.me.role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');
  return layout(
    { ...frame, title: 'Team', section: 'users' },
    html`<h1>Team</h1>
      ${
        s.link
          ? html`<section class="card" data-testid="invitation-link">
              <h2>Invitation for ${s.link.email} (${s.link.role})</h2>
              <p>Send this link to ${s.link.email} yourself; it works once, for 7 days, and is not shown again.</p>
              <p>
                <code class="key wrap" id="invitation-url">${s.link.url}</code>
                <button type="button" class="copy" data-copy="invitation-url">Copy</button>
              </p>
            </section>`
          : ''
      }
      <section class="card">
        <table class="users">
          <thead>
            <tr>
              <th>Email</th>
              <th>Role</th>
              <th>Two-factor</th>
              <th>Member since</th>
              <th>Last sign-in</th>
              <th></th>
            </tr>
          </thead>
          <tbody>
            ${s.users.map((u) => {
              const mayChange = u.id !== s.me.id && (s.me.role === 'owner' || u.role !== 'owner');
              return html`<tr data-user="${u.email}">
                <td data-label="Email">${u.email}${u.id === s.me.id ? html` <span class="muted small">(you)</span>` : ''}</td>
                <td data-label="Role">
                  ${
                    mayChange
                      ? html`<form method="post" action="${PREFIX}/users/${u.id}/role" class="inline">
                          ${csrf(csrfToken)}${roleSelect('role', u.role, assignable)}<button type="submit">Change</button>
                        </form>`
                      : u.role
                  }
                </td>
                <td data-label="Two-factor">${u.totp_enabled_at ? 'on' : html`<span class="muted">off</span>`}</td>
                <td data-label="Member since">${when(u.created_at.toISOString())}</td>
                <td data-label="Last sign-in">${when(u.last_sign_in_at?.toISOString())}</td>
                <td>
                  ${
                    mayChange
                      ? html`<form
                          method="post"
                          action="${PREFIX}/users/${u.id}/remove"
                          data-confirm="Remove ${u.email}? Their sessions end at once."
                        >
                          ${csrf(csrfToken)}<button type="submit" class="danger">Remove</button>
                        </form>`
                      : ''
                  }
                </td>
              </tr>`;
            })}
          </tbody>
        </table>
      </section>
      <section class="card">
        <h2>Invite someone</h2>
        <form method="post" action="${PREFIX}/users/invite" class="inline">
          ${csrf(csrfToken)}
          <label class="grow">Email <input type="email" name="email" required maxlength="254" /></label>
          <label>Role ${roleSelect('role', 'viewer', assignable)}</label>
          <button type="submit" class="primary">Create invitation</button>
        </form>
        <ul class="muted small">
          ${ROLES.map((r) => html`<li><strong>${r}</strong>: ${ROLE_HELP[r]}</li>`)}
        </ul>
        ${
          s.invitations.length
            ? html`<h3>Open invitations</h3>
                <table>
                  <tbody>
                    ${s.invitations.map(
                      (i) =>
                        html`<tr data-invitation="${i.email}">
                          <td>${i.email}</td>
                          <td>${i.role}</td>
                          <td>expires ${when(i.expires_at.toISOString())}</td>
                          <td>
                            <form method="post" action="${PREFIX}/invitations/${i.id}/revoke">
                              ${csrf(csrfToken)}<button type="submit">Revoke</button>
                            </form>
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

export function joinPage(opts: { csrfToken: string; token: string; email: string; role: string; error?: string | null }): Html {
  return layout(
    { title: 'Join', error: opts.error ?? null },
    html`<section class="card narrow">
      <h1>Join the dashboard</h1>
      <p>
        You are invited as <strong>${opts.email}</strong> with the role <strong>${opts.role}</strong>. Choose a password (10 characters or
        more).
      </p>
      <form method="post" action="${PREFIX}/join/${opts.token}" class="stack">
        <input type="hidden" name="_csrf" value="${opts.csrfToken}" />
        <label>Password <input type="password" name="password" autocomplete="new-password" minlength="10" required /></label>
        <button type="submit" class="primary">Create my account</button>
      </form>
    </section>`,
  );
}
