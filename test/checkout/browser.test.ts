/**
 * The payer's page in headless Chromium (Debian's package, driven by playwright-core, as
 * test/dashboard/browser.test.ts does), paying a link on each family on the devnets: the
 * exact amount settles (seen, then confirmed, live on the page); less is partial, then topped
 * up settles; after expiry (the service clock moved, no waiting) the session is expired, then
 * paidLate when the money still comes; more settles as overpaid. The QR code decodes to the
 * session's payment URI; axe-core finds no serious violation; screenshots at 1280 and 360 px
 * go to test-results/checkout/ (git-ignored). Also: the payment limit's inactive message, two
 * payers at once, an unknown slug, the page without JavaScript, and no third-party request.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import decodeQR from 'qr/decode.js';
import { ManualClock } from '../../src/lib/clock.js';
import { FAMILIES, startCheckoutWorld, type CheckoutWorld, type Family } from './world.js';
import { createDashboardUser } from '../dashboard/support.js';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const present = existsSync(CHROMIUM);
const SHOTS = path.resolve('test-results/checkout');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

if (!present) console.warn(`Chromium not found at ${CHROMIUM}; browser tests skipped — run scripts/install-chromium.sh`);

describe.skipIf(!present)('the payment page in a real browser', () => {
  const clock = new ManualClock(Date.now());
  let w: CheckoutWorld;
  let browser: Browser;
  let context: BrowserContext;
  let link: Record<string, any>;
  const requests: string[] = [];

  beforeAll(async () => {
    await mkdir(SHOTS, { recursive: true });
    [w, browser] = await Promise.all([
      startCheckoutWorld(clock),
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
    link = await createLink({
      name: 'Coffee beans',
      amount: '12.5',
      slug: 'coffee',
      successMessage: 'Thank you! Your beans are on their way.',
    });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    context.on('request', (r) => void requests.push(r.url()));
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await w?.stop();
  });

  async function createLink(body: Record<string, unknown>) {
    const accepts = FAMILIES.map((f) => ({ walletId: w.families[f].walletId }));
    const res = await w.h.api('POST', '/v1/payment_links', { key: w.h.businessKey, body: { accepts, ...body } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.data as Record<string, any>;
  }

  const api = async (id: string) =>
    (await w.h.api('GET', `/v1/checkouts/${id}`, { key: w.h.businessKey })).body.data as Record<string, any>;
  const status = (page: Page) => page.locator('#status').getAttribute('data-status');

  /** Opens the link's page, picks the family's coin (and an amount when the link lets the payer choose), continues. */
  async function openSession(page: Page, family: Family, opts: { slug?: string; amount?: string; query?: string } = {}) {
    const f = w.families[family];
    await page.goto(`${w.h.baseUrl}/pay/${opts.slug ?? 'coffee'}${opts.query ?? ''}`);
    await page
      .locator('label.choice', { hasText: `${f.symbol} on ${f.chainName}` })
      .locator('input')
      .check();
    if (opts.amount) await page.fill('#amount', opts.amount);
    await page.click('button:has-text("Continue to payment")');
    await page.waitForURL(/\/pay\/[A-Za-z0-9-]+\/[0-9a-f-]{36}$/);
    const id = page.url().split('/').pop()!;
    return {
      id,
      address: (await page.locator('#address').textContent())!.trim(),
      due: (await page.locator('#amount').textContent())!.trim(),
    };
  }

  async function axe(page: Page, what: string) {
    await page.evaluate(AXE);
    const result = (await page.evaluate(() => (window as any).axe.run(document, { resultTypes: ['violations'] }))) as {
      violations: { id: string; impact: string; help: string; nodes: { target: string[]; failureSummary?: string }[] }[];
    };
    const serious = result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    // Each offending element and axe's reason (the colours and the ratio, for contrast), so a failure says what to fix.
    expect(
      serious.map(
        (v) =>
          `${what}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => `${n.target.join(' ')} ${n.failureSummary ?? ''}`).join('; ')}`,
      ),
    ).toEqual([]);
  }

  async function shots(page: Page, name: string) {
    await page.screenshot({ path: path.join(SHOTS, `${name}-1280.png`), fullPage: true });
    await page.setViewportSize({ width: 360, height: 740 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);
    expect(overflow, `${name} scrolls sideways at 360 px`).toBe(false);
    await page.screenshot({ path: path.join(SHOTS, `${name}-360.png`), fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** The QR code as the browser drew it, decoded. */
  async function qrText(page: Page): Promise<string> {
    const image = await page.evaluate(async () => {
      const img = document.querySelector('img.qr') as HTMLImageElement;
      await img.decode();
      const size = 348;
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = size;
      const ctx = canvas.getContext('2d')!;
      ctx.fillStyle = '#fff';
      ctx.fillRect(0, 0, size, size);
      ctx.drawImage(img, 0, 0, size, size);
      // As base64: a third of a million numbers in JSON is slow to pass over a busy machine.
      const bytes = ctx.getImageData(0, 0, size, size).data;
      let binary = '';
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      return { width: size, height: size, data: btoa(binary) };
    });
    return decodeQR({ width: image.width, height: image.height, data: Uint8Array.from(Buffer.from(image.data, 'base64')) });
  }

  for (const family of FAMILIES) {
    describe(family, () => {
      it('exact amount: seen, then confirmed, live on the page; the QR code is the payment URI', async () => {
        const page = await context.newPage();
        const f = w.families[family];
        await page.goto(`${w.h.baseUrl}/pay/coffee`);
        if (family === 'evm') {
          await axe(page, 'chooser');
          await shots(page, '01-chooser');
        }
        const s = await openSession(page, family);
        expect(s.due).toBe('12.5');
        const checkout = await api(s.id);
        expect(checkout).toMatchObject({ status: 'new', address: s.address, amount: '12.5', currency: f.symbol });
        expect(await qrText(page)).toBe(checkout.paymentUri);
        expect(checkout.paymentUri).toMatch({ evm: /^ethereum:0x/, tron: /^tron:T/, solana: /^solana:.*reference=/ }[family]);
        expect(await status(page)).toBe('waiting');
        await axe(page, `${family} session`);
        await shots(page, `02-${family}-waiting`);

        await f.pay(s.address, '12.5', checkout.paymentReference);
        await f.see();
        await expect.poll(() => status(page), { timeout: 45_000 }).toBe('seen');
        await f.settle();
        await expect.poll(() => status(page), { timeout: 45_000 }).toBe('confirmed');
        expect(await page.locator('#success').textContent()).toContain('Your beans are on their way');
        expect(await page.locator('#instructions').isHidden()).toBe(true);
        expect(await api(s.id)).toMatchObject({
          status: 'settled',
          partial: false,
          overpaid: false,
          paidLate: false,
          amountConfirmed: '12.5',
        });
        if (family === 'evm') await axe(page, 'confirmed');
        await shots(page, `03-${family}-confirmed`);
        await page.close();
      }, 180_000);

      it('less is partial; topped up, it settles. More settles as overpaid', async () => {
        const page = await context.newPage();
        const f = w.families[family];
        const s = await openSession(page, family);
        await f.pay(s.address, '5', (await api(s.id)).paymentReference);
        await f.see();
        await f.settle();
        await expect.poll(() => status(page), { timeout: 45_000 }).toBe('partial');
        await expect.poll(async () => (await page.locator('#amount').textContent())!.trim()).toBe('7.5');
        expect(await api(s.id)).toMatchObject({ status: 'processing', partial: true, amountDue: '7.5' });
        await shots(page, `04-${family}-partial`);
        await f.pay(s.address, '7.5', null);
        await f.see();
        await f.settle();
        await expect.poll(() => status(page), { timeout: 45_000 }).toBe('confirmed');
        expect(await api(s.id)).toMatchObject({ status: 'settled', partial: false, amountPaid: '12.5' });

        const over = await openSession(page, family);
        await f.pay(over.address, '20', null);
        await f.see();
        await f.settle();
        await expect.poll(() => status(page), { timeout: 45_000 }).toBe('confirmed');
        expect(await api(over.id)).toMatchObject({ status: 'settled', overpaid: true, amountPaid: '20' });
        await page.close();
      }, 180_000);

      it('after expiry: expired, then paidLate when the money still comes', async () => {
        const page = await context.newPage();
        const f = w.families[family];
        const s = await openSession(page, family);
        clock.advance(31 * 60_000);
        await expect.poll(() => status(page), { timeout: 45_000 }).toBe('expired');
        expect(await page.locator('#instructions').isHidden()).toBe(true);
        await shots(page, `05-${family}-expired`);
        await f.pay(s.address, '12.5', null);
        await f.see();
        await expect.poll(() => status(page), { timeout: 45_000 }).toBe('late');
        expect(await api(s.id)).toMatchObject({ status: 'expired', paidLate: true, amountPaid: '12.5' });
        await page.close();
      }, 120_000);
    });
  }

  it('two payers at once each get their own address and amount', async () => {
    await createLink({ name: 'Tips', slug: 'tips' });
    const [a, b] = await Promise.all([browser.newContext(), browser.newContext()]);
    const [pa, pb] = await Promise.all([a.newPage(), b.newPage()]);
    const [sa, sb] = await Promise.all([
      openSession(pa, 'evm', { slug: 'tips', amount: '3' }),
      openSession(pb, 'evm', { slug: 'tips', amount: '4.25' }),
    ]);
    expect(sa.address).not.toBe(sb.address);
    expect([sa.due, sb.due]).toEqual(['3', '4.25']);
    expect((await api(sa.id)).amount).toBe('3');
    expect((await api(sb.id)).amount).toBe('4.25');
    await Promise.all([a.close(), b.close()]);
  });

  it('takes the payer details from the URL; the payment limit reached, the page shows the inactive message', async () => {
    await createLink({ name: 'One-off', slug: 'one-off', amount: '1', paymentLimit: 1, inactiveMessage: 'Sold out, sorry!' });
    const page = await context.newPage();
    const s = await openSession(page, 'evm', { slug: 'one-off', query: '?name=Ada&email=ada%40example.com&reference=ORDER-9&amount=999' });
    expect(await api(s.id)).toMatchObject({ name: 'Ada', email: 'ada@example.com', reference: 'ORDER-9', amount: '1' });
    await w.families.evm.pay(s.address, '1');
    await w.families.evm.see();
    await w.families.evm.settle();
    await expect.poll(() => status(page), { timeout: 45_000 }).toBe('confirmed');
    await page.goto(`${w.h.baseUrl}/pay/one-off`);
    expect(await page.locator('main').textContent()).toContain('Sold out, sorry!');
    expect(await page.locator('form').count()).toBe(0);
    await shots(page, '06-inactive');
    await page.close();
  });

  it('an unknown slug is a plain 404 page', async () => {
    const page = await context.newPage();
    const res = await page.goto(`${w.h.baseUrl}/pay/no-such-link`);
    expect(res!.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Payment page not found');
    await page.close();
  });

  it('works without JavaScript: the form, the address, the amount and the QR code', async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 360, height: 740 } });
    const page = await plain.newPage();
    const s = await openSession(page, 'tron');
    expect(s.due).toBe('12.5');
    expect(s.address).toMatch(/^T/);
    const qr = await page.locator('img.qr').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0);
    expect(qr).toBe(true);
    expect(await page.locator('#countdown').textContent()).toMatch(/^\d+:\d\d$/);
    await page.screenshot({ path: path.join(SHOTS, '07-no-javascript-360.png'), fullPage: true });
    await plain.close();
  });

  it('the dashboard lists links and their sessions, creates a link and deactivates it', async () => {
    await createDashboardUser(w.h, w.h.businessId, 'ops@checkout.example', 'checkout test password');
    const page = await context.newPage();
    await page.goto(`${w.h.baseUrl}/dashboard/login`);
    await page.fill('input[name=email]', 'ops@checkout.example');
    await page.fill('input[name=password]', 'checkout test password');
    await page.click('button[type=submit]');
    await page.waitForURL('**/dashboard/wallets');
    await page.click('nav >> text=Payment links');
    await page.waitForURL('**/dashboard/payment-links');
    expect(await page.locator(`tr[data-link="${link.id}"]`).textContent()).toContain('Coffee beans');
    await axe(page, 'dashboard links');

    await page.fill('input[name=name]', 'Gift card');
    await page.fill('input[name=amount]', '50');
    await page.check(`input[name="wallet_${w.families.solana.walletId}"]`);
    await page.click('button:has-text("Create payment link")');
    await page.waitForURL(/\/dashboard\/payment-links\/[0-9a-f-]{36}$/);
    const created = page.url().split('/').pop()!;
    const made = (await w.h.api('GET', `/v1/payment_links/${created}`, { key: w.h.businessKey })).body.data;
    expect(made).toMatchObject({ name: 'Gift card', amount: '50', createdChannel: 'dashboard', active: true });
    expect(made.accepts.map((a: any) => a.walletId)).toEqual([w.families.solana.walletId]);
    await page.click('button:has-text("Deactivate")');
    await expect
      .poll(async () => (await w.h.api('GET', `/v1/payment_links/${created}`, { key: w.h.businessKey })).body.data.active)
      .toBe(false);

    await page.goto(`${w.h.baseUrl}/dashboard/payment-links/${link.id}`);
    const sessions = (await w.h.api('GET', `/v1/payment_links/${link.id}/checkouts`, { key: w.h.businessKey })).body.data as any[];
    expect(sessions.length).toBeGreaterThan(0);
    expect(await page.locator('tr[data-checkout]').count()).toBe(sessions.length);
    for (const st of ['settled', 'expired', 'processing', 'new'])
      expect(await page.locator(`tr[data-status="${st}"]`).count(), st).toBe(sessions.filter((c) => c.status === st).length);
    await axe(page, 'dashboard link');
    await shots(page, '08-dashboard-link');
    await page.close();
  });

  it('sends every request to the service itself, under a strict CSP', async () => {
    const origin = new URL(w.h.baseUrl).origin;
    expect(requests.length).toBeGreaterThan(10);
    expect(requests.filter((u) => !u.startsWith(origin))).toEqual([]);
    const res = await fetch(`${w.h.baseUrl}/pay/coffee`);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
  });
});

if (!present) {
  describe('the payment page in a real browser', () => {
    it.skip(`Chromium not found at ${CHROMIUM}; browser tests skipped — run scripts/install-chromium.sh`, () => undefined);
  });
}
