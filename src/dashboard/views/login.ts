import { html } from '../html.js';
import { PREFIX } from '../web.js';
import { layout } from './layout.js';

export function loginPage(opts: { csrfToken: string; next: string; email?: string; error?: string | null; notice?: string | null }) {
  return layout(
    { title: 'Sign in', error: opts.error ?? null, notice: opts.notice ?? null },
    html`<section class="card narrow">
      <h1>Sign in</h1>
      <form method="post" action="${PREFIX}/login" class="stack">
        <input type="hidden" name="_csrf" value="${opts.csrfToken}" />
        <input type="hidden" name="next" value="${opts.next}" />
        <label>Email <input type="email" name="email" autocomplete="username" required value="${opts.email ?? ''}" /></label>
        <label>Password <input type="password" name="password" autocomplete="current-password" required /></label>
        <button type="submit" class="primary">Sign in</button>
      </form>
    </section>`,
  );
}
