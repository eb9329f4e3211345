/** The account page (two-factor sign-in set up, on, off) and the sign-in's second step. */
import { html, type Html } from '../html.js';
import { PREFIX } from '../web.js';
import { csrf, layout, type Frame } from './layout.js';

export interface AccountState {
  email: string;
  role: string;
  twoFactorOn: boolean;
  /** The session gave a second factor. */
  sessionTwoFactor: boolean;
  /** Must enrol before anything else (a role that requires two factors). */
  mustEnrol: boolean;
  /** Enrolment started: the secret and its URI, shown this once. */
  enrolment?: { secret: string; uri: string } | null;
}

export function accountPage(frame: Frame, csrfToken: string, s: AccountState): Html {
  const enrol = s.enrolment;
  return layout(
    { ...frame, title: 'Account', section: 'account' },
    html`<h1>Account</h1>
      <section class="card">
        <dl class="grid">
          <dt>Email</dt>
          <dd>${s.email}</dd>
          <dt>Role</dt>
          <dd data-testid="role">${s.role}</dd>
          <dt>Two-factor sign-in</dt>
          <dd data-testid="two-factor-state">
            ${s.twoFactorOn ? 'on (TOTP)' : 'off'}${s.sessionTwoFactor ? html` <span class="muted small">this session gave a code</span>` : ''}
          </dd>
        </dl>
      </section>
      <section class="card" id="two-factor">
        <h2>Two-factor sign-in</h2>
        ${
          s.mustEnrol
            ? html`<p class="notice warn" role="alert">Your role signs in with two factors. Set up an authenticator app to continue.</p>`
            : ''
        }
        ${
          enrol
            ? html`<p>
                  Add this key to an authenticator app (Google Authenticator, 1Password, Aegis, …), then type the 6-digit code it shows.
                </p>
                <p><code class="key wrap" data-testid="totp-secret">${enrol.secret}</code></p>
                <details>
                  <summary>Setup link</summary>
                  <p><code class="wrap" data-testid="totp-uri">${enrol.uri}</code></p>
                </details>
                <form method="post" action="${PREFIX}/account/two-factor/confirm" class="inline">
                  ${csrf(csrfToken)}
                  <label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" required /></label>
                  <button type="submit" class="primary">Turn on</button>
                </form>`
            : s.twoFactorOn
              ? html`<p>Sign-ins ask for a code from your authenticator app after the password.</p>
                  ${
                    s.mustEnrol || s.role === 'approver'
                      ? ''
                      : html`<form method="post" action="${PREFIX}/account/two-factor/disable" data-confirm="Turn two-factor sign-in off?">
                          ${csrf(csrfToken)}
                          <label
                            >Code from your authenticator app <input name="code" inputmode="numeric" autocomplete="one-time-code" required
                          /></label>
                          <button type="submit">Turn off</button>
                        </form>`
                  }`
              : html`<p>Approving payouts needs a session signed in with a code from an authenticator app.</p>
                  <form method="post" action="${PREFIX}/account/two-factor">
                    ${csrf(csrfToken)}<button type="submit" class="primary">Set up two-factor sign-in</button>
                  </form>`
        }
      </section>`,
  );
}

export function twoFactorPage(frame: Frame, csrfToken: string): Html {
  return layout(
    { ...frame, title: 'Two-factor sign-in' },
    html`<section class="card narrow">
      <h1>Two-factor sign-in</h1>
      <p>Type the 6-digit code your authenticator app shows.</p>
      <form method="post" action="${PREFIX}/login/two-factor" class="stack">
        ${csrf(csrfToken)}
        <label>Code <input name="code" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9 ]{6,7}" required autofocus /></label>
        <button type="submit" class="primary">Continue</button>
      </form>
    </section>`,
  );
}
