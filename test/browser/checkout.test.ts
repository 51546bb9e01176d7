import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page, Response } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  apiCall,
  type Browser,
  ensureDashboardBuilt,
  launchBrowser,
  type RunningProgram,
  runBrowserTests,
  screenshot,
  screenshotDir,
  skipReason,
  startProgram,
  startReceiver,
  waitFor,
} from './support.ts';

/**
 * The hosted checkout in a real browser against the real program: the whole flow from the dashboard (sign up, keys,
 * webhook endpoint, test payment) through the checkout's test banner to completion without a reload and back to the
 * dashboard; a page per status; the page without JavaScript; page weight and no request to any other origin.
 * Screenshots go to test-results/browser/checkout/.
 */

const shots = 'checkout';
const password = 'correct horse battery staple';
const statuses = ['pending', 'confirming', 'underpaid', 'overpaid', 'completed', 'expired'] as const;

const statusOf = (page: Page) => page.locator('#page').getAttribute('data-status');

if (!runBrowserTests) {
  it.skip(skipReason, () => {});
} else {
  describe('hosted checkout in Chromium', () => {
    let program: RunningProgram;
    let browser: Browser;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    /** Every URL any page of any browser of this file asked for. */
    const requested: string[] = [];
    let testKey = '';

    const watch = (b: Browser) => {
      b.context.on('request', (request) => requested.push(request.url()));
      return b;
    };

    beforeAll(async () => {
      rmSync(join(screenshotDir, shots), { recursive: true, force: true });
      mkdirSync(join(screenshotDir, shots), { recursive: true });
      ensureDashboardBuilt();
      receiver = await startReceiver();
      // Blocks every 250 ms and 8 confirmations: a payment confirms in about two seconds, long enough to see it.
      program = await startProgram({ SVC_SIM_BLOCK_MS: '250', SVC_SIM_CONFIRMATIONS: '8' });
      browser = watch(await launchBrowser(program.baseUrl));
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await program?.stop();
      await receiver?.close();
      if (program !== undefined) {
        const foreign = requested.filter(
          (url) =>
            !url.startsWith(`${program.baseUrl}/`) && !url.startsWith('data:') && url !== 'about:blank',
        );
        expect(foreign).toEqual([]);
      }
    });

    afterEach(async (context) => {
      if (context.task.result?.state !== 'fail') return;
      await screenshot(browser.page, `${shots}/zz-failure`).catch(() => {});
      writeFileSync(join(screenshotDir, shots, 'zz-failure-program.log'), program.output());
    });

    it('takes a merchant from sign-up to a completed payment seen live on the checkout and in the dashboard', async () => {
      const { page } = browser;
      const base = program.baseUrl;
      const email = `checkout-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}@example.com`;

      // Sign up in the dashboard.
      await page.goto(`${base}/dashboard`);
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();

      // Generate a keypair.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'API keys' }).click();
      await page.getByRole('button', { name: 'Generate keypair' }).click();
      testKey = await page.getByTestId('new-test-key').inputValue();
      expect(testKey).toMatch(/^svc_test_/);

      // A webhook endpoint on the local receiver.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Webhooks' }).click();
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secret = await page.getByTestId('signing-secret').inputValue();
      expect(secret).toMatch(/^whsec_/);
      await page.getByRole('button', { name: 'I have saved it' }).click();

      // A test payment from the dashboard's form (its login session alone, no key), on a chain it names.
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Create payment' })
        .click();
      await page.getByLabel('I choose the network and coin').check();
      const orderId = `order-${randomBytes(4).toString('hex')}`;
      await page.getByLabel('Amount').fill('25.00');
      await page.getByLabel('Order ID (optional)').fill(orderId);
      await page.getByLabel('Return address (optional)').fill('https://shop.example/thanks');
      await page.getByRole('button', { name: 'Create test payment' }).click();
      const href = await page.getByTestId('open-checkout').getAttribute('href');
      expect(href).toMatch(/\/pay\/[0-9a-f-]{36}$/);
      const checkoutUrl = new URL(href ?? '', base).href;
      const paymentId = checkoutUrl.split('/').at(-1) ?? '';

      // The checkout page: amount, address, QR, network warning, countdown and the test banner; no merchant data.
      await page.goto(checkoutUrl);
      await page.getByRole('heading', { name: 'Send your payment', level: 1 }).waitFor();
      expect(await page.title()).toBe('Send your payment · Checkout');
      const banner = page.getByTestId('test-banner');
      expect(await banner.textContent()).toContain('no real funds move');
      await page.getByRole('img', { name: /^QR code to pay/ }).waitFor();
      expect(await page.locator('.warning').textContent()).toMatch(/Send only ETH on Ethereum Sepolia/);
      const address = (await page.getByTestId('address').textContent()) ?? '';
      expect(address).toMatch(/^0x[0-9a-fA-F]{40}$/);
      const html = await page.content();
      expect(html).not.toContain(orderId);
      expect(html).not.toContain(email);
      expect(html).not.toContain('shop.example');
      const firstCountdown = await page.locator('time[data-countdown]').textContent();
      await page.waitForTimeout(1100);
      expect(await page.locator('time[data-countdown]').textContent()).not.toBe(firstCountdown);

      // Keyboard: Tab reaches the copy buttons, Enter copies, the button says so.
      const copyAddress = page.getByRole('button', { name: 'Copy address' });
      for (let i = 0; i < 20; i += 1) {
        if (await copyAddress.evaluate((el) => el === el.ownerDocument.activeElement)) break;
        await page.keyboard.press('Tab');
      }
      expect(await copyAddress.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
      await page.keyboard.press('Enter');
      await copyAddress.filter({ hasText: 'Copied' }).waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(address);
      await page.getByRole('button', { name: 'Copy amount' }).click();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toMatch(/^\d+\.\d+$/);
      await screenshot(page, `${shots}/01-flow-pending`);

      // Simulate the payer from the banner; the page follows the payment to completed without a reload.
      await page.evaluate('window.__sameDocument = true');
      const seen: string[] = [];
      await page.exposeFunction('recordStatus', (status: string) => seen.push(status));
      await page.evaluate(`new MutationObserver(() => {
        const status = document.getElementById('page')?.dataset.status;
        if (status) window.recordStatus(status);
      }).observe(document.body, { childList: true })`);
      let navigations = 0;
      page.on('framenavigated', (frame) => {
        if (frame === page.mainFrame()) navigations += 1;
      });
      await banner.getByRole('button', { name: 'Pay in full' }).click();
      await page.getByTestId('test-message').filter({ hasText: 'Simulated' }).waitFor();
      await page.locator('#page[data-status="completed"]').waitFor({ timeout: 60_000 });
      expect(navigations).toBe(0);
      expect(await page.evaluate('window.__sameDocument')).toBe(true);
      await page.getByRole('heading', { name: 'Payment complete', level: 1 }).waitFor();
      expect(await page.title()).toBe('Payment complete · Checkout');
      // Screen readers hear the change.
      await expect
        .poll(() => page.locator('#announce').textContent(), { timeout: 5_000 })
        .toContain('Payment complete');
      expect(await page.getByTestId('redirect').getAttribute('href')).toBe('https://shop.example/thanks');
      expect(seen.at(-1)).toBe('completed');
      await screenshot(page, `${shots}/02-flow-completed`);

      // The merchant's receiver got payment.confirmed, signed with the endpoint's secret.
      const confirmed = await waitFor('payment.confirmed at the receiver', () =>
        receiver.received.find((request) => request.body.includes('"payment.confirmed"')),
      );
      expect(confirmed.headers['x-service-signature']).toBe(
        `sha256=${createHmac('sha256', secret).update(confirmed.body).digest('hex')}`,
      );
      expect(JSON.parse(confirmed.body)).toMatchObject({ payment_id: paymentId, status: 'completed' });

      // The dashboard shows the payment completed and its delivery succeeded.
      await page.goto(`${base}/dashboard/payments`);
      await page.getByLabel('Payment ID or order ID').fill(paymentId);
      await page.getByRole('button', { name: 'Search' }).click();
      await page.getByRole('heading', { name: /^Payment of 25(\.00)? USD$/, level: 1 }).waitFor();
      await page.locator('.page-header [data-status="completed"]').waitFor({ timeout: 30_000 });
      const event = page.getByTestId('timeline').locator('li').filter({ hasText: 'payment.confirmed' });
      await event.getByRole('button', { name: 'Show deliveries' }).click();
      await event.locator('[data-testid="deliveries"] [data-status="succeeded"]').first().waitFor();
      await screenshot(page, `${shots}/03-flow-dashboard`);
      expect(browser.problems).toEqual([]);
    }, 180_000);

    it('shows a clear page for every status, on a desktop and a phone', async () => {
      const base = program.baseUrl;
      expect(testKey).not.toBe('');
      const key = { 'x-api-key': testKey };
      const { page } = browser;

      const ids = new Map<(typeof statuses)[number], string>();
      for (const status of statuses) {
        const created = await apiCall(base, '/payments', {
          method: 'POST',
          headers: key,
          body: {
            amount: '49.90',
            currency: 'USD',
            chain: 'ethereum',
            order_id: `secret-order-${status}`,
            redirect_url: 'https://shop.example/done',
          },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        ids.set(status, created.body.payment_id as string);
      }
      const outcome: Partial<Record<(typeof statuses)[number], string>> = {
        confirming: 'paid',
        completed: 'paid',
        underpaid: 'underpaid',
        overpaid: 'overpaid',
        expired: 'expired',
      };
      for (const [status, simulated] of Object.entries(outcome)) {
        const answer = await apiCall(base, `/payments/checkout/${ids.get(status as never)}/simulate`, {
          method: 'POST',
          body: { outcome: simulated },
        });
        expect(answer.status, JSON.stringify(answer.body)).toBe(202);
        expect(JSON.stringify(answer.body)).not.toContain(`secret-order-${status}`);
      }

      // Confirming lasts about two seconds: catch it first.
      const confirmingUrl = `${base}/pay/${ids.get('confirming')}`;
      await waitFor('confirming', async () => {
        const view = await apiCall(base, `/payments/checkout/${ids.get('confirming')}`);
        return view.body.status === 'confirming' ? true : undefined;
      });
      await page.goto(confirmingUrl);
      expect(await statusOf(page)).toBe('confirming');
      await page.getByTestId('confirmations').waitFor();
      expect(await page.getByTestId('confirmations').textContent()).toMatch(/\d of 8 confirmations/);
      await screenshot(page, `${shots}/status-confirming`);

      const titles: Record<(typeof statuses)[number], string> = {
        pending: 'Send your payment',
        confirming: 'Payment seen, confirming',
        underpaid: 'Partial payment received',
        overpaid: 'Payment received',
        completed: 'Payment complete',
        expired: 'This payment has expired',
      };
      for (const status of statuses) {
        if (status === 'confirming') continue;
        const id = ids.get(status) ?? '';
        await waitFor(status, async () => {
          const view = await apiCall(base, `/payments/checkout/${id}`);
          return view.body.status === status ? true : undefined;
        });
        await page.goto(`${base}/pay/${id}`);
        await page.getByRole('heading', { name: titles[status], level: 1 }).waitFor();
        expect(await statusOf(page)).toBe(status);
        const text = (await page.locator('main').textContent()) ?? '';
        expect(await page.content()).not.toContain(`secret-order-${status}`);
        if (status === 'underpaid') {
          expect(text).toMatch(/Received\s*0\.\d+\s*ETH/);
          expect(text).toMatch(/Remaining\s*0\.\d+\s*ETH/);
          expect(await page.getByRole('img', { name: /^QR code/ }).count()).toBe(1);
        }
        if (status === 'pending' || status === 'underpaid') {
          expect(await page.locator('time[data-countdown]').count()).toBe(1);
        } else {
          expect(await page.getByRole('img', { name: /^QR code/ }).count()).toBe(0);
        }
        expect(await page.getByTestId('redirect').count()).toBe(
          status === 'completed' || status === 'overpaid' ? 1 : 0,
        );
        await screenshot(page, `${shots}/status-${status}`);
      }

      // A phone-sized screen: nothing wider than the screen.
      await page.setViewportSize({ width: 375, height: 740 });
      for (const status of ['pending', 'underpaid', 'completed'] as const) {
        await page.goto(`${base}/pay/${ids.get(status)}`);
        await page.getByRole('heading', { name: titles[status], level: 1 }).waitFor();
        expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
        await screenshot(page, `${shots}/phone-${status}`);
      }
      await page.setViewportSize({ width: 1280, height: 860 });

      // Unknown and malformed links get friendly pages.
      const missing = await page.goto(`${base}/pay/01940000-0000-7000-8000-00000000dead`);
      expect(missing?.status()).toBe(404);
      await page.getByRole('heading', { name: 'Payment not found' }).waitFor();
      await screenshot(page, `${shots}/not-found`);
      const malformed = await page.goto(`${base}/pay/not-a-payment`);
      expect(malformed?.status()).toBe(400);
      await page.getByRole('heading', { name: 'This payment link is not valid' }).waitFor();
      expect(browser.problems).toEqual([]);
    }, 180_000);

    it('weighs under 50 KB with its CSS and JS (uncompressed), and asks nothing of any other origin', async () => {
      const base = program.baseUrl;
      const created = await apiCall(base, '/payments', {
        method: 'POST',
        headers: { 'x-api-key': testKey },
        body: { amount: '12.34', currency: 'USD', chain: 'ethereum', asset: 'USDC' },
      });
      expect(created.status).toBe(201);
      const page = await browser.context.newPage();
      const responses: Response[] = [];
      const urls: string[] = [];
      page.on('request', (request) => urls.push(request.url()));
      page.on('response', (response) => responses.push(response));
      await page.goto(`${base}/pay/${created.body.payment_id}`, { waitUntil: 'load' });
      // What the first render took (the script's first poll comes two seconds later).
      const loaded = [...responses];
      await page.getByRole('heading', { name: 'Send your payment' }).waitFor();
      let bytes = 0;
      for (const response of loaded) bytes += (await response.body()).length;
      const kinds = loaded.map((response) => response.request().resourceType()).sort();
      expect(kinds).toEqual(['document', 'script', 'stylesheet']);
      expect(bytes).toBeLessThan(50 * 1024);
      writeFileSync(
        join(screenshotDir, shots, 'page-weight.txt'),
        `${bytes} bytes over ${loaded.length} responses (HTML + CSS + JS, USDC payment with QR)\n`,
      );
      for (const url of urls) expect(url.startsWith(`${base}/`)).toBe(true);
      await page.close();
    });

    it('shows the right status without JavaScript and completes through its own refresh', async () => {
      const base = program.baseUrl;
      const created = await apiCall(base, '/payments', {
        method: 'POST',
        headers: { 'x-api-key': testKey },
        body: { amount: '5', currency: 'USD', chain: 'bitcoin' },
      });
      expect(created.status).toBe(201);
      const noJs = watch(await launchBrowser(base, { javaScriptEnabled: false }));
      try {
        const { page } = noJs;
        await page.goto(`${base}/pay/${created.body.payment_id}`);
        await page.getByRole('heading', { name: 'Send your payment', level: 1 }).waitFor();
        expect(await page.locator('html').getAttribute('class')).toBe('no-js');
        expect(await page.getByRole('button', { name: 'Copy address' }).isVisible()).toBe(false);
        expect(await page.getByRole('img', { name: /^QR code/ }).count()).toBe(1);
        expect(await page.locator('.warning').textContent()).toContain('Bitcoin Testnet4');
        await screenshot(page, `${shots}/nojs-pending`);
        // The banner's buttons are a plain form: post, redirect back, then the page refreshes itself to completed.
        await page.getByRole('button', { name: 'Pay in full' }).click();
        await page.waitForURL(`${base}/pay/${created.body.payment_id}`);
        await page.locator('#page[data-status="completed"]').waitFor({ timeout: 60_000 });
        await page.getByRole('heading', { name: 'Payment complete', level: 1 }).waitFor();
        await screenshot(page, `${shots}/nojs-completed`);
        expect(noJs.problems).toEqual([]);
      } finally {
        await noJs.close();
      }
    }, 120_000);
  });
}
