import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import axe from 'axe-core';
import type { Page, Response } from 'playwright-core';
import QRCode from 'qrcode';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  type Browser,
  ensureDashboardBuilt,
  launchBrowser,
  type RunningProgram,
  runBrowserTests,
  screenshotDir,
  skipReason,
  startProgram,
  waitFor,
} from './support.ts';

/**
 * Issue 20 in a real browser against the real program: a merchant who never pastes a key (the dashboard's login
 * session creates the payment and reads the setup checklist), a payer who picks the coin on the checkout, a phone
 * that shows the amount, the QR and the address with its copy button without scrolling, the checkout in every
 * language (Arabic right to left), axe with no violation on every checkout and dashboard page visited, and the page's
 * weight compressed. Screenshots at 390×844 and 1280×800 in test-results/browser/payer-checkout/.
 */

const shots = 'payer-checkout';
const password = 'correct horse battery staple';
const languages = ['en', 'es', 'de', 'fr', 'pt', 'zh', 'ar'] as const;
const phone = { width: 390, height: 844 };
const desktop = { width: 1280, height: 800 };
/** axe-core's browser bundle, as a string to evaluate in the page. */
const axeSource = axe.source;

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown[] }>;
}

/** axe-core's violations on the page as it is now (injected through the devtools protocol: the CSP allows no inline script). */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate<AxeViolation[]>(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))",
  );
  return violations.map(
    (v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')}`,
  );
}

/** Both sizes: the phone first, the desktop second, each as a full-page screenshot. */
async function shootBoth(page: Page, name: string): Promise<void> {
  for (const [label, size] of [
    ['390x844', phone],
    ['1280x800', desktop],
  ] as const) {
    await page.setViewportSize(size);
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: join(screenshotDir, shots, `${name}-${label}.png`), fullPage: true });
  }
}

/** Whether an element lies entirely within the first screen (no scrolling). */
async function inFirstScreen(page: Page, selector: string): Promise<boolean> {
  const box = await page.locator(selector).first().boundingBox();
  const height = page.viewportSize()?.height ?? 0;
  return box !== null && box.y >= 0 && box.y + box.height <= height;
}

if (!runBrowserTests) {
  it.skip(skipReason, () => {});
} else {
  describe('the payer picks the coin, in every language, on a phone', () => {
    let program: RunningProgram;
    let browser: Browser;
    let token = '';
    const accessibility: string[] = [];

    beforeAll(async () => {
      rmSync(join(screenshotDir, shots), { recursive: true, force: true });
      mkdirSync(join(screenshotDir, shots), { recursive: true });
      ensureDashboardBuilt();
      program = await startProgram({ SVC_SIM_BLOCK_MS: '250', SVC_SIM_CONFIRMATIONS: '3' });
      browser = await launchBrowser(program.baseUrl);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await program?.stop();
    });

    afterEach(async (context) => {
      if (context.task.result?.state !== 'fail') return;
      await browser.page
        .screenshot({ path: join(screenshotDir, shots, 'zz-failure.png'), fullPage: true })
        .catch(() => {});
      writeFileSync(join(screenshotDir, shots, 'zz-failure-program.log'), program.output());
    });

    /** Runs axe on the page and keeps its findings under `name`. */
    async function audit(page: Page, name: string): Promise<void> {
      for (const violation of await axeViolations(page)) accessibility.push(`${name}: ${violation}`);
    }

    it('creates a payment from the login session alone, and shows the setup checklist', async () => {
      const { page } = browser;
      const base = program.baseUrl;
      await page.setViewportSize(desktop);
      await page.goto(`${base}/dashboard/signup`);
      await page.getByLabel('Email').fill(`payer-${randomBytes(4).toString('hex')}@example.com`);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
      const session = await page.evaluate<string | null>("sessionStorage.getItem('svc.dashboard.session')");
      token = (JSON.parse(session ?? '{}') as { token?: string }).token ?? '';
      expect(token).not.toBe('');
      await audit(page, 'dashboard payments');

      // The setup checklist: in test mode every chain runs on the simulator; live mode shows what is missing.
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Setup checklist' })
        .click();
      await page.getByRole('heading', { name: 'Setup checklist', level: 1 }).waitFor();
      await page.locator('[data-testid="readiness"] tr[data-chain="ethereum"][data-ready="true"]').waitFor();
      await shootBoth(page, 'dashboard-setup-test');
      await audit(page, 'dashboard setup (test)');
      await page.getByText('Live mode', { exact: true }).click();
      await page.locator('[data-testid="readiness"] tr[data-chain="ethereum"][data-ready="false"]').waitFor();
      expect(await page.locator('[data-testid="readiness"]').textContent()).toContain(
        'no payout wallet is set',
      );
      await shootBoth(page, 'dashboard-setup-live');
      await audit(page, 'dashboard setup (live)');
      // Before a live key is used: the keys page says no chain is ready.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
      await page.getByTestId('live-readiness').waitFor();
      expect(await page.getByTestId('live-readiness').textContent()).toContain(
        'No chain is ready for live payments',
      );
      await audit(page, 'dashboard keys (live)');
      await page.getByText('Test mode', { exact: true }).click();

      // Branding: a name, a colour, a support contact and a logo (a PNG, uploaded as a file), from the dashboard.
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Checkout branding' })
        .click();
      await page.getByLabel('Shop name').fill('Nordic Café');
      await page.getByLabel('Accent colour').fill('#0e7490');
      await page.getByLabel('Support email').fill('help@nordic.example');
      await page.getByLabel('Help page').fill('https://nordic.example/help');
      await page.getByRole('button', { name: 'Save branding' }).click();
      await page.getByTestId('toast').filter({ hasText: 'Branding saved' }).waitFor();
      const logoFile = join(screenshotDir, shots, 'logo.png');
      writeFileSync(logoFile, await QRCode.toBuffer('Nordic Café', { type: 'png', width: 96, margin: 1 }));
      await page.getByLabel('Upload a logo').setInputFiles(logoFile);
      await page.getByRole('img', { name: 'Your current logo' }).waitFor();
      // The coins offered: only USDC on Base and BTC, then every coin again.
      await page.getByLabel('Every coin and network this service can take').uncheck();
      for (const box of await page.locator('.offered-coins input').all()) await box.uncheck();
      await page.getByLabel('USDC on Base', { exact: true }).check();
      await page.getByLabel('BTC on Bitcoin', { exact: true }).check();
      await page.getByRole('button', { name: 'Save the coins offered' }).click();
      await page.getByTestId('toast').filter({ hasText: 'coins offered' }).waitFor();
      const settings = await apiCall(base, '/settings', { headers: { authorization: `Bearer ${token}` } });
      expect(settings.body.checkout_options).toEqual(['base:USDC', 'bitcoin:BTC']);
      await shootBoth(page, 'dashboard-branding');
      await audit(page, 'dashboard branding');
      await page.getByLabel('Every coin and network this service can take').check();
      await page.getByRole('button', { name: 'Save the coins offered' }).click();
      await expect
        .poll(
          async () =>
            (await apiCall(base, '/settings', { headers: { authorization: `Bearer ${token}` } })).body
              .checkout_options,
        )
        .toBeNull();

      // A payment whose customer picks the coin, made in the dashboard: no key is asked for.
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Create payment' })
        .click();
      await page.getByRole('heading', { name: 'Create a test payment', level: 1 }).waitFor();
      expect(await page.getByLabel('Paste a test key').count()).toBe(0);
      await page.getByLabel('Amount').fill('25.00');
      await page.getByLabel('Return address (optional)').fill('https://shop.example/thanks');
      await shootBoth(page, 'dashboard-new-payment');
      await audit(page, 'dashboard new payment');
      await page.getByRole('button', { name: 'Create test payment' }).click();
      await page.getByTestId('created-payment').waitFor();
      expect(await page.getByTestId('created-payment').textContent()).toContain(
        'The customer chooses on the checkout',
      );
      await audit(page, 'dashboard created payment');
      const href = (await page.getByTestId('open-checkout').getAttribute('href')) ?? '';
      expect(href).toMatch(/\/pay\/[0-9a-f-]{36}$/);

      // The payer, on a phone: picks USDC on Base among the options, each priced.
      await page.setViewportSize(phone);
      await page.goto(new URL(href, base).href);
      await page.getByRole('heading', { name: 'Choose how to pay', level: 1 }).waitFor();
      await shootBoth(page, 'checkout-choose-en');
      await page.setViewportSize(phone);
      await audit(page, 'checkout choose (en)');
      await page
        .getByRole('region', { name: 'Ether ETH' })
        .getByRole('button', { name: /^Base Sepolia test network 0\.008334\s+ETH$/ })
        .click();
      await page.getByRole('heading', { name: 'Send your payment', level: 1 }).waitFor();
      expect(await page.getByTestId('amount').textContent()).toContain('0.008334');
      // Phone first: amount, QR, address and its copy button without scrolling.
      for (const selector of [
        '[data-testid="amount"]',
        'svg.qr-code',
        '[data-testid="address"]',
        '.address-block button.copy',
      ]) {
        expect(await inFirstScreen(page, selector), `${selector} in the first screen of 390×844`).toBe(true);
      }
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await page.getByRole('link', { name: 'Open in wallet' }).waitFor();
      expect(await page.getByRole('link', { name: 'Open in wallet' }).getAttribute('href')).toMatch(
        /^ethereum:0x[0-9a-fA-F]{40}@84532\?value=8334000000000000$/,
      );
      await shootBoth(page, 'checkout-pending-en');
      await page.setViewportSize(phone);
      await audit(page, 'checkout pending (en)');
      expect(browser.problems).toEqual([]);
    }, 180_000);

    it('shows every state in every language, right to left in Arabic, with no accessibility violation', async () => {
      const { page } = browser;
      const base = program.baseUrl;
      const create = async (extra: Record<string, unknown> = {}) => {
        const created = await apiCall(base, '/payments', {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: {
            amount: '19.90',
            currency: 'EUR',
            is_test: true,
            success_url: 'https://nordic.example/thanks',
            cancel_url: 'https://nordic.example/cart',
            ...extra,
          },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        return created.body.payment_id as string;
      };
      const settle = async (id: string, outcome: string, status: string) => {
        const answer = await apiCall(base, `/payments/${id}/simulate`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}` },
          body: { outcome },
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(202);
        await waitFor(status, async () => {
          const view = await apiCall(base, `/payments/checkout/${id}`);
          return view.body.status === status ? true : undefined;
        });
      };
      const choose = await create();
      const pending = await create({ chain: 'polygon', asset: 'USDC' });
      const underpaid = await create({ chain: 'bitcoin' });
      await settle(underpaid, 'underpaid', 'underpaid');
      const completed = await create({ chain: 'solana' });
      await settle(completed, 'paid', 'completed');
      const expired = await create({ chain: 'tron' });
      await settle(expired, 'expired', 'expired');
      const pages = {
        choose,
        pending,
        underpaid,
        completed,
        expired,
        receipt: `${completed}/receipt`,
      };

      for (const language of languages) {
        for (const [state, path] of Object.entries(pages)) {
          await page.setViewportSize(phone);
          await page.goto(`${base}/pay/${path}?locale=${language}`);
          await page.locator(`html[lang="${language}"]`).waitFor();
          expect(await page.locator('html').getAttribute('dir')).toBe(language === 'ar' ? 'rtl' : 'ltr');
          expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(
            390,
          );
          await audit(page, `checkout ${state} (${language})`);
          await shootBoth(page, `checkout-${state}-${language}`);
        }
      }
      // The brand, its colour, its support contact and the ways back and to the receipt.
      await page.goto(`${base}/pay/${completed}`);
      expect(await page.getByTestId('brand').textContent()).toContain('Nordic Café');
      expect(await page.getByTestId('support').textContent()).toContain('help@nordic.example');
      expect(await page.getByTestId('redirect').getAttribute('href')).toBe('https://nordic.example/thanks');
      expect(
        await page.evaluate<string>(
          "getComputedStyle(document.querySelector('[data-testid=redirect]')).backgroundColor",
        ),
      ).toBe('rgb(14, 116, 144)');
      await page.getByTestId('receipt-link').click();
      await page.getByRole('heading', { name: 'Receipt', level: 1 }).waitFor();
      expect(await page.getByTestId('transactions').textContent()).toContain('Simulated on a test chain');
      await page.goto(`${base}/pay/${expired}`);
      expect(await page.getByTestId('cancel').getAttribute('href')).toBe('https://nordic.example/cart');
      expect(await page.getByTestId('expired-help').textContent()).toContain('Already sent funds?');

      // The payment's own locale, then the browser's language: German here, with ?locale= still first.
      const german = await create({ chain: 'ethereum', locale: 'de' });
      await page.goto(`${base}/pay/${german}`);
      await page.getByRole('heading', { name: 'Senden Sie Ihre Zahlung', level: 1 }).waitFor();
      await page.goto(`${base}/pay/${german}?locale=fr`);
      await page.getByRole('heading', { name: 'Envoyez votre paiement', level: 1 }).waitFor();
      expect(accessibility).toEqual([]);
      expect(browser.problems).toEqual([]);
    }, 300_000);

    it('makes a payment link in the dashboard; a visit enters the amount, picks the coin, pays, and the link adds it up', async () => {
      const { page } = browser;
      const base = program.baseUrl;
      await page.setViewportSize(desktop);
      await page.goto(`${base}/dashboard/links`);
      await page.getByRole('heading', { name: 'Payment links', level: 1 }).waitFor();
      await page.getByLabel('Title').fill('Tip jar');
      await page.getByLabel('Description (optional)').fill('Thank you for the coffee');
      await page.getByLabel('The customer enters the amount').check();
      await page.getByLabel('Link currency').fill('EUR');
      await page.getByRole('button', { name: 'Create payment link' }).click();
      await page.getByRole('link', { name: 'Tip jar' }).click();
      const url = (await page.getByTestId('link-url').getAttribute('href')) ?? '';
      expect(url).toMatch(/\/l\/plink_[0-9a-z]+$/);
      await audit(page, 'dashboard payment link');
      await shootBoth(page, 'dashboard-link');

      // The payer, on a phone, in every language: the link's page with the amount field.
      for (const language of languages) {
        await page.setViewportSize(phone);
        await page.goto(`${url}?locale=${language}`);
        await page.locator(`html[lang="${language}"]`).waitFor();
        await audit(page, `payment link (${language})`);
        await shootBoth(page, `link-${language}`);
      }
      await page.setViewportSize(phone);
      await page.goto(url);
      await page.getByLabel('Amount (EUR)').fill('4.20');
      await page.getByRole('button', { name: 'Continue to payment' }).click();
      await page.getByRole('heading', { name: 'Choose how to pay', level: 1 }).waitFor();
      await page
        .getByRole('region', { name: 'USD Coin USDC' })
        .getByRole('button', { name: /^Base Sepolia test network/ })
        .click();
      await page.getByRole('heading', { name: 'Send your payment', level: 1 }).waitFor();
      await page.getByRole('button', { name: 'Pay in full' }).click();
      await page.locator('#page[data-status="completed"]').waitFor({ timeout: 60_000 });

      // The link's page in the dashboard counts it.
      await page.setViewportSize(desktop);
      await page.goto(`${base}/dashboard/links`);
      await page.getByRole('link', { name: 'Tip jar' }).click();
      await expect
        .poll(() => page.getByTestId('link-totals').textContent(), { timeout: 30_000 })
        .toContain('1 created, 1 paid: 4.2 EUR');
      await page.locator('[data-testid="link-payments"] [data-status="completed"]').waitFor();
      expect(accessibility).toEqual([]);
      expect(browser.problems).toEqual([]);
    }, 180_000);

    it('weighs at most 30 KB compressed (HTML, CSS, script and the QR; the logo excluded)', async () => {
      const base = program.baseUrl;
      const created = await apiCall(base, '/payments', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: { amount: '12.34', currency: 'USD', chain: 'ethereum', asset: 'USDC', is_test: true },
      });
      const page = await browser.context.newPage();
      const responses: Response[] = [];
      page.on('response', (response) => responses.push(response));
      await page.goto(`${base}/pay/${created.body.payment_id}?locale=ar`, { waitUntil: 'load' });
      // What the first render took, the merchant's logo excluded (its size is the merchant's: at most 256 KB).
      const loaded = responses.filter((response) => response.request().resourceType() !== 'image');
      let raw = 0;
      let compressed = 0;
      for (const response of loaded) {
        const body = await response.body();
        raw += body.length;
        compressed += gzipSync(body, { level: 6 }).length;
      }
      // The page, its script, its stylesheet and the merchant's accent stylesheet.
      expect(loaded.map((response) => response.request().resourceType()).sort()).toEqual([
        'document',
        'script',
        'stylesheet',
        'stylesheet',
      ]);
      expect(compressed).toBeLessThanOrEqual(30 * 1024);
      writeFileSync(
        join(screenshotDir, shots, 'page-weight.txt'),
        `${compressed} bytes gzip-compressed, ${raw} bytes raw, over ${loaded.length} responses (HTML + CSS + JS, USDC payment with QR, Arabic)\n`,
      );
      await page.close();
    });
  });
}
