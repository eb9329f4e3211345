/**
 * The operations dashboard in headless Chromium: two-factor set-up, an invited approver who
 * must enrol, a withdrawal from the form held by a policy and approved from the queue, the
 * search across wallets, the delivery log with resend, the reports' charts and the policies
 * page. Screenshots of each new page go to test-results/dashboard/ (git-ignored).
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { base32 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { DEVNET_CHAINS } from '../../src/devnet/devnet.js';
import { totpAt } from '../../src/lib/totp.js';
import { startHarness, type Harness } from '../support/harness.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { chainOf } from '../support/chain.js';
import { eventually } from '../support/fixtures.js';
import { randomAddress } from '../withdrawals/world.js';
import { createDashboardUser } from './support.js';
import { TRANSACTION_STATUSES, TRANSACTION_TYPES } from '../../src/transaction-types.js';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
const SHOTS = path.resolve('test-results/dashboard');
const OWNER = { email: 'owner@test.example', password: 'owner test password' };
const APPROVER = { email: 'approver@test.example', password: 'approver test password' };
const ETH = 'devnet-eth';

if (!present) console.warn(`Chromium not found at ${CHROMIUM}; browser tests skipped — run scripts/install-chromium.sh`);

/** The code an authenticator shows for the secret the page showed (`ahead`: the next step's). */
const codeFor = (secret: string, ahead = 0) => totpAt(base32.decode(secret), Date.now() + ahead * 30_000);

describe.skipIf(!present)('the operations dashboard in a real browser', () => {
  let h: Harness;
  let receiver: Receiver;
  let browser: Browser;
  let owner: Page;
  let approverContext: BrowserContext;
  let approver: Page;
  let approverSecret = '';
  const to = randomAddress();
  let withdrawalId = '';

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    [h, receiver, browser] = await Promise.all([
      startHarness({
        specs: [DEVNET_CHAINS[0]!],
        worker: true,
        services: { outbound: { firstTrackDelayMs: 50, maxTrackDelayMs: 200 }, rates: { pegFallback: true } },
      }),
      startReceiver(),
      chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      }),
    ]);
    await createDashboardUser(h, h.businessId, OWNER.email, OWNER.password);
    const wallet = h.wallets[ETH]!;
    await chainOf(h, ETH).sendToken('USDC', wallet.address, '1000');
    expect((await h.api('PATCH', `/v1/wallets/${wallet.id}`, { key: wallet.apiKey, body: { webhookUrl: receiver.url } })).status).toBe(200);
    // A rule (made as the operator's policy manager would): over 100 USDC needs an approver.
    const manager = await h.services.apiKeys.createBusinessKey(
      { keyId: 'cli:operator', businessId: h.businessId, walletId: null, operator: true },
      { name: 'policies', scopes: ['MANAGE_POLICIES'] },
    );
    const rule = await h.api('POST', '/v1/policies', {
      key: manager.apiKey,
      body: {
        name: 'Payouts over 100 USDC need an approver',
        priority: 10,
        walletId: wallet.id,
        conditions: { types: ['WITHDRAW', 'BATCH_ITEM'], assets: ['USDC'], amount: { min: '100', currency: 'ASSET' } },
        action: 'REQUIRE_APPROVAL',
        approval: { approvers: { roles: ['approver', 'admin'] }, quorum: 1, ttlSeconds: 86_400 },
      },
    });
    expect(rule.status, JSON.stringify(rule.body)).toBe(200);
    owner = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage();
    owner.on('dialog', (d) => void d.accept());
    approverContext = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    approver = await approverContext.newPage();
    approver.on('dialog', (d) => void d.accept());
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await receiver?.close();
    await h?.stop();
  });

  const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

  async function signIn(page: Page, user: { email: string; password: string }) {
    await page.goto(`${h.baseUrl}/dashboard/login`);
    await page.fill('input[name=email]', user.email);
    await page.fill('input[name=password]', user.password);
    await page.click('button[type=submit]');
  }

  it('the owner sets up two-factor sign-in', async () => {
    await signIn(owner, OWNER);
    await owner.waitForURL('**/dashboard/wallets');
    await owner.click('nav >> text=Account');
    expect(await owner.locator('[data-testid=two-factor-state]').textContent()).toContain('off');
    await owner.click('button:has-text("Set up two-factor sign-in")');
    const secret = (await owner.locator('[data-testid=totp-secret]').textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await shot(owner, 'ops-01-account-two-factor');
    await owner.fill('input[name=code]', '000000');
    await owner.click('button:has-text("Turn on")');
    await expect.poll(() => owner.locator('.error').textContent()).toContain('Wrong code');
    // A wrong code does not keep the secret from being confirmed by a right one, after starting again.
    await owner.click('button:has-text("Set up two-factor sign-in")');
    const again = (await owner.locator('[data-testid=totp-secret]').textContent())!.trim();
    await owner.fill('input[name=code]', codeFor(again));
    await owner.click('button:has-text("Turn on")');
    await expect.poll(() => owner.locator('.notice').textContent()).toContain('Two-factor sign-in is on');
    expect(await owner.locator('[data-testid=two-factor-state]').textContent()).toContain('this session gave a code');
  });

  it('invites an approver, who joins and must enrol before anything else', async () => {
    await owner.click('nav >> text=Team');
    await owner.fill('input[name=email]', APPROVER.email);
    await owner.selectOption('form[action$="/users/invite"] select[name=role]', 'approver');
    await owner.click('button:has-text("Create invitation")');
    const link = (await owner.locator('[data-testid=invitation-link] code').textContent())!.trim();
    expect(link).toMatch(/\/dashboard\/join\/[A-Za-z0-9_-]{43}$/);
    await shot(owner, 'ops-02-team-invitation');
    // Shown once: the team page lists the invitation, never the link again.
    await owner.goto(`${h.baseUrl}/dashboard/users`);
    expect(await owner.locator(`tr[data-invitation="${APPROVER.email}"]`).count()).toBe(1);
    expect(await owner.content()).not.toContain(link.split('/').at(-1));

    await approver.goto(link);
    expect(await approver.locator('h1').textContent()).toContain('Join');
    await shot(approver, 'ops-03-join');
    await approver.fill('input[name=password]', APPROVER.password);
    await approver.click('button:has-text("Create my account")');
    await approver.waitForURL('**/dashboard/login?joined=*');
    // The link works once.
    const reuse = await (await browser.newContext()).newPage();
    expect((await reuse.goto(link))!.status()).toBe(404);

    await signIn(approver, APPROVER);
    await approver.waitForURL('**/dashboard/account');
    expect(await approver.locator('.notice.warn').textContent()).toContain('Your role signs in with two factors');
    // Nothing else is reachable until then.
    await approver.goto(`${h.baseUrl}/dashboard/approvals`);
    await approver.waitForURL('**/dashboard/account');
    await approver.click('button:has-text("Set up two-factor sign-in")');
    approverSecret = (await approver.locator('[data-testid=totp-secret]').textContent())!.trim();
    await shot(approver, 'ops-04-enrol');
    await approver.fill('input[name=code]', codeFor(approverSecret));
    await approver.click('button:has-text("Turn on")');
    await approver.waitForURL('**/dashboard/account?on=1');
    expect(await approver.locator('[data-testid=role]').textContent()).toBe('approver');
  });

  it('a withdrawal from the form is held by the policy, approved from the queue, and sent', { timeout: 90_000 }, async () => {
    const wallet = h.wallets[ETH]!;
    await owner.goto(`${h.baseUrl}/dashboard/wallets/${wallet.id}/withdraw`);
    await owner.fill('input[name=address]', to);
    await owner.fill('input[name=amount]', '150');
    await owner.fill('input[name=reference]', 'ops-payout-1');
    await shot(owner, 'ops-05-withdraw-form');
    await owner.click('button:has-text("Withdraw")');
    await owner.waitForURL(/\/transactions\/[0-9a-f-]{36}\?sent=held$/);
    withdrawalId = /transactions\/([0-9a-f-]{36})/.exec(owner.url())![1]!;
    expect(await owner.locator('.notice').textContent()).toContain('held for approval');
    expect(await owner.locator('[data-testid=approval]').textContent()).toContain('Payouts over 100 USDC need an approver');
    await shot(owner, 'ops-06-transaction-held');
    // The owner asked for it: the queue does not offer them a vote.
    await owner.goto(`${h.baseUrl}/dashboard/approvals`);
    expect(await owner.locator(`[data-transaction="${withdrawalId}"]`).textContent()).toContain('You asked for this payout');

    await approver.goto(`${h.baseUrl}/dashboard/approvals`);
    expect((await approver.locator('[data-testid=pending-count]').textContent())!.trim()).toBe('1');
    const card = approver.locator(`[data-transaction="${withdrawalId}"]`);
    expect(await card.locator('[data-testid=approvals]').textContent()).toBe('0 of 1');
    await shot(approver, 'ops-07-approvals');
    await card.locator('input[name=comment]').first().fill('invoice 981 checked');
    await card.locator('button:has-text("Approve")').click();
    await expect.poll(() => approver.locator('.notice').textContent()).toContain('Your approval is recorded');
    expect(await approver.locator('[data-decided]').first().textContent()).toContain('APPROVED');
    const sent = await eventually(
      async () => (await h.api('GET', `/v1/wallets/${wallet.id}/transactions/${withdrawalId}`, { key: wallet.apiKey })).body.data,
      (t) => t.status === 'SUCCESS',
      60_000,
    );
    expect(sent.hash).toBeTruthy();
    expect(await chainOf(h, ETH).balanceOf('USDC', to)).toBe(150_000_000n);
  });

  it('finds the payout across wallets by reference, address and amount range', async () => {
    await owner.goto(`${h.baseUrl}/dashboard/transactions?reference=ops-payout-1`);
    expect(await owner.locator(`tr[data-transaction="${withdrawalId}"]`).count()).toBe(1);
    await owner.goto(`${h.baseUrl}/dashboard/transactions`);
    await owner.fill('input[name=address]', to.toLowerCase());
    await owner.fill('input[name=minAmount]', '149.5');
    await owner.fill('input[name=maxAmount]', '150');
    await owner.selectOption('select[name=type]', 'WITHDRAW');
    await owner.click('button:has-text("Search")');
    await expect.poll(() => owner.locator(`tr[data-transaction="${withdrawalId}"]`).count()).toBe(1);
    await shot(owner, 'ops-08-search');
    await owner.fill('input[name=minAmount]', '150.000001');
    await owner.click('button:has-text("Search")');
    await expect.poll(() => owner.locator('tbody').textContent()).toContain('No transactions match');
  });

  it('offers every transaction type and status the API knows in its filters', async () => {
    await owner.goto(`${h.baseUrl}/dashboard/transactions`);
    const options = (name: string) =>
      owner.locator(`select[name=${name}] option`).evaluateAll((els) => els.map((e) => (e as HTMLOptionElement).value));
    expect((await options('type')).filter(Boolean)).toEqual([...TRANSACTION_TYPES]);
    expect((await options('status')).filter(Boolean)).toEqual([...TRANSACTION_STATUSES]);
    // A type beyond the first seven (staking) is a search, not a refused query.
    await owner.selectOption('select[name=type]', 'UNSTAKING_WITHDRAW');
    await owner.click('button:has-text("Search")');
    await expect.poll(() => owner.locator('tbody').textContent()).toContain('No transactions match');
  });

  it('the delivery log across wallets, and a resend', { timeout: 60_000 }, async () => {
    await eventually(
      async () => receiver.requests.filter((r) => r.body.includes(withdrawalId)).map((r) => JSON.parse(r.body).event as string),
      (events) => events.includes('withdraw.pending_approval') && events.includes('withdraw.success'),
      30_000,
    );
    await owner.goto(`${h.baseUrl}/dashboard/deliveries?event=withdraw.success`);
    const rows = owner.locator('tr[data-delivery]');
    await expect.poll(() => rows.count()).toBe(1);
    await rows.first().locator('button:has-text("Resend")').click();
    await expect.poll(() => owner.locator('.notice').textContent()).toContain('Queued a new delivery');
    await owner.goto(`${h.baseUrl}/dashboard/deliveries?event=withdraw.success`);
    expect(await rows.count()).toBe(2);
    await owner.goto(`${h.baseUrl}/dashboard/deliveries`);
    await shot(owner, 'ops-09-deliveries');
    await expect
      .poll(() => receiver.requests.filter((r) => r.body.includes(withdrawalId) && r.body.includes('"withdraw.success"')).length, {
        timeout: 15_000,
      })
      .toBe(2);
  });

  it('reports draw the day’s volume and fees; the policies page lists the rule', async () => {
    await owner.goto(`${h.baseUrl}/dashboard/reports`);
    const chart = owner.locator('svg[data-testid="volume-USDC"]');
    expect(await chart.count()).toBe(1);
    // Today's bars: 1,000 in (the faucet's deposit is not indexed here, so only the payout) and 150 out.
    expect(await chart.locator('rect.chart-out title').last().textContent()).toContain('out 150 USDC');
    expect(await owner.locator('svg[data-testid="fees-ETH"] rect.chart-fee').count()).toBe(30);
    await shot(owner, 'ops-10-reports');
    await owner.click('nav >> text=Policies');
    expect(await owner.locator('table.policies').textContent()).toContain('Payouts over 100 USDC need an approver');
    await shot(owner, 'ops-11-policies');
  });

  it('the next sign-in asks the approver for a code', async () => {
    await approver.click('button:has-text("Sign out")');
    await signIn(approver, APPROVER);
    await approver.waitForURL('**/dashboard/login/two-factor');
    await shot(approver, 'ops-12-two-factor-sign-in');
    await approver.goto(`${h.baseUrl}/dashboard/wallets`);
    await approver.waitForURL('**/dashboard/login/two-factor');
    // The next step's code (this step's was used to enrol).
    await approver.fill('input[name=code]', codeFor(approverSecret, 1));
    await approver.click('button:has-text("Continue")');
    await approver.waitForURL('**/dashboard/wallets');
    // An approver reads but does not change: no key management.
    expect((await approver.goto(`${h.baseUrl}/dashboard/developers`))!.status()).toBe(403);
  });
});

if (!present) {
  describe('the operations dashboard in a real browser', () => {
    it.skip(`Chromium not found at ${CHROMIUM}; browser tests skipped — run scripts/install-chromium.sh`, () => undefined);
  });
}
