import { createHmac, randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type FakeTronNode, startFakeTronNode, testKey } from '../support/tron-node.ts';
import {
  apiCall,
  type Browser,
  ensureDashboardBuilt,
  launchBrowser,
  type ReceivedRequest,
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
 * The merchant dashboard in a real browser against the real program: sign up, keys shown once and never again, a
 * revoked key refused by the API, a webhook endpoint on a local receiver, and a screenshot of every page under
 * test-results/browser/.
 */

const password = 'correct horse battery staple';
/** Screenshots go to test-results/browser/dashboard/. */
const shots = 'dashboard';

/** Polls like expect.poll, with room for a busy machine (its default gives up after one second). */
function poll<T>(probe: () => T | Promise<T>, options: { timeout?: number } = {}) {
  return expect.poll(probe, { timeout: options.timeout ?? 15_000, interval: 100 });
}

/** Follows a link of the main navigation. */
async function nav(page: Page, name: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();
}

async function heading(page: Page): Promise<string> {
  return (await page.locator('h1').first().textContent()) ?? '';
}

/** A page either shows what it is for, or (for API parts still being built) the API's error in plain words. */
async function expectContentOrPlainError(page: Page, content: string | RegExp) {
  const shown = page
    .getByText(content)
    .first()
    .or(page.getByText('Not available on this server yet').first());
  await shown.waitFor();
  expect(await page.getByText('Something went wrong in the dashboard').count()).toBe(0);
}

if (!runBrowserTests) {
  it.skip(skipReason, () => {});
} else {
  describe('merchant dashboard in Chromium', () => {
    let program: RunningProgram;
    let browser: Browser;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    /** Live Tron on the fake node, with a resource wallet whose stake is short: what operators see on Settings. */
    let tron: FakeTronNode;
    const resource = testKey('browser-resource');
    const email = `browser-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}@example.com`;

    beforeAll(async () => {
      rmSync(join(screenshotDir, shots), { recursive: true, force: true });
      ensureDashboardBuilt();
      receiver = await startReceiver();
      tron = await startFakeTronNode({ wallClock: true });
      tron.fund(resource.address, 10_000_000_000n);
      tron.stake(resource.address, 'ENERGY', 5_000_000_000n);
      tron.produceBlocks(25);
      program = await startProgram({
        SVC_MNEMONIC: 'legal winner thank year wave sausage worth useful legal winner thank yellow',
        SVC_CHAIN_TRON_RPC_URL: tron.url,
        SVC_CHAIN_TRON_RESOURCE_KEY: Buffer.from(resource.key).toString('hex'),
        // The fake node makes no blocks after these: not a lagging node to /readyz.
        SVC_CHAIN_TRON_MAX_HEAD_AGE_SECONDS: '0',
      });
      browser = await launchBrowser(program.baseUrl);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await program?.stop();
      await receiver?.close();
      await tron?.close();
    });

    afterEach(async (context) => {
      // On failure, what the browser showed at that moment.
      if (context.task.result?.state !== 'fail') return;
      await screenshot(browser.page, `${shots}/zz-failure`).catch(() => {});
      writeFileSync(join(screenshotDir, shots, 'zz-failure-program.log'), program.output());
    });

    it('signs up, shows keys once, revokes them, and registers a webhook endpoint', async () => {
      const { page } = browser;
      const base = program.baseUrl;

      // Sign up.
      await page.goto(`${base}/dashboard`);
      await page.getByRole('heading', { name: 'Log in to your dashboard' }).waitFor();
      await screenshot(page, `${shots}/01-login`);
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByRole('heading', { name: 'Create your merchant account' }).waitFor();
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('short');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('Use at least 10 characters.').waitFor();
      await screenshot(page, `${shots}/02-signup-error`);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
      expect(page.url()).toBe(`${base}/dashboard/payments`);
      await poll(() => page.getByTestId('mode-banner').textContent()).toContain('Test mode');
      await expectContentOrPlainError(page, 'No test payments yet');
      await screenshot(page, `${shots}/03-payments`);

      // The session is the dashboard's token; the test reads it to check the API's side of things.
      const session = await page.evaluate<string | null>("sessionStorage.getItem('svc.dashboard.session')");
      const token = session === null ? '' : (JSON.parse(session) as { token: string }).token;
      expect(token.length).toBeGreaterThan(20);
      const bearer = { authorization: `Bearer ${token}` };

      // Generate a keypair: both keys shown once, with copy buttons and the warning.
      await nav(page, 'API keys');
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      // After navigating, focus is on the new page's heading (screen readers announce it).
      await poll(() =>
        page.evaluate('document.activeElement.tagName + ":" + document.activeElement.textContent'),
      ).toBe('H1:API keys');
      expect(await page.title()).toBe('API keys · svc');
      await page.getByText('You have no API keys yet').waitFor();
      await screenshot(page, `${shots}/04-keys-empty`);
      await page.getByRole('button', { name: 'Generate keypair' }).click();
      const shownOnce = page.getByTestId('shown-once');
      await shownOnce.waitFor();
      await poll(() => shownOnce.textContent()).toContain('it will not be shown again');
      const testKey = await page.getByTestId('new-test-key').inputValue();
      const liveKey = await page.getByTestId('new-live-key').inputValue();
      expect(testKey).toMatch(/^svc_test_/);
      expect(liveKey).toMatch(/^svc_live_/);
      await page.getByRole('button', { name: 'Copy Test key' }).click();
      await page.getByRole('button', { name: 'Copy Test key' }).filter({ hasText: 'Copied' }).waitFor();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(testKey);
      await page.getByRole('button', { name: 'Copy Live key' }).click();
      expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(liveKey);
      await screenshot(page, `${shots}/05-keys-shown-once`);

      // Both keys work against the API.
      expect((await apiCall(base, '/me', { headers: { 'x-api-key': testKey } })).status).toBe(200);
      expect((await apiCall(base, '/me', { headers: { 'x-api-key': liveKey } })).status).toBe(200);

      // After a reload the keys are gone for good: not on the page, not in any storage.
      await page.reload();
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      const row = page.locator('[data-testid="keypairs"] tbody tr').first();
      await row.waitFor();
      expect(await page.getByTestId('shown-once').count()).toBe(0);
      const visible = (await page.locator('body').textContent()) ?? '';
      const html = await page.content();
      const stored = await page.evaluate<string>(
        'JSON.stringify({ ...sessionStorage }) + JSON.stringify({ ...localStorage })',
      );
      for (const key of [testKey, liveKey]) {
        expect(visible).not.toContain(key);
        expect(html).not.toContain(key);
        expect(stored).not.toContain(key);
      }
      const rowText = (await row.textContent()) ?? '';
      expect(rowText).toContain(`…${testKey.slice(-4)}`);
      expect(rowText).toContain(`…${liveKey.slice(-4)}`);
      expect(rowText).toContain('Active');
      await screenshot(page, `${shots}/06-keys-after-reload`);

      // Revoke the pair, with a confirmation that names what happens; by keyboard, focus starts on the safe choice.
      const revokeButton = row.getByRole('button', { name: /Revoke keypair/ });
      await revokeButton.focus();
      await page.keyboard.press('Enter');
      const dialog = page.getByRole('dialog', { name: 'Revoke this keypair?' });
      await dialog.waitFor();
      await poll(() => dialog.textContent()).toContain('stop working at once');
      await poll(() => page.evaluate('document.activeElement.textContent')).toBe('Cancel');
      await screenshot(page, `${shots}/07-keys-revoke-confirm`);
      // Cancel first: nothing happens, and focus goes back to the button that opened the dialog.
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await poll(() => revokeButton.evaluate((button) => button === button.ownerDocument.activeElement)).toBe(
        true,
      );
      expect((await apiCall(base, '/me', { headers: { 'x-api-key': testKey } })).status).toBe(200);
      await row.getByRole('button', { name: /Revoke keypair/ }).click();
      await dialog.getByRole('button', { name: 'Revoke both keys' }).click();
      await dialog.waitFor({ state: 'detached' });
      await row.getByText('Revoked').waitFor();
      await page.getByText('All your keypairs are revoked').waitFor();
      await screenshot(page, `${shots}/08-keys-revoked`);

      // The revoked keys now fail against the API, both of them.
      for (const key of [testKey, liveKey]) {
        const refused = await apiCall(base, '/me', { headers: { 'x-api-key': key } });
        expect(refused.status).toBe(401);
        expect(refused.body).toMatchObject({ error: { code: 'invalid_api_key' } });
      }

      // Register a webhook endpoint on the local receiver: its secret is shown once.
      await nav(page, 'Webhooks');
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByText('No test endpoints yet').waitFor();
      await page.getByLabel('Endpoint URL').fill('not a url');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.locator('.field-error').first().waitFor();
      await screenshot(page, `${shots}/09-webhooks-invalid-url`);
      await page.getByLabel('Endpoint URL').fill(receiver.url);
      await page.getByLabel('Description (optional)').fill('Local test receiver');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      const secretInput = page.getByTestId('signing-secret');
      await secretInput.waitFor();
      const secret = await secretInput.inputValue();
      expect(secret).toMatch(/^whsec_/);
      await screenshot(page, `${shots}/10-webhooks-secret-once`);
      await page.getByRole('button', { name: 'I have saved it' }).click();
      const card = page.locator('[data-testid="endpoints"] li').filter({ hasText: receiver.url });
      await card.waitFor();
      expect(await page.getByTestId('signing-secret').count()).toBe(0);
      expect(await page.content()).not.toContain(secret);

      const listed = await apiCall(base, '/webhooks?is_test=true', { headers: bearer });
      const endpoints = (listed.body?.data ?? []) as Array<{
        id: string;
        url: string;
        enabled: boolean;
        is_test: boolean;
      }>;
      expect(endpoints).toHaveLength(1);
      expect(endpoints[0]).toMatchObject({ url: receiver.url, enabled: true, is_test: true });
      const endpointId = endpoints[0]?.id ?? '';

      // Disable and enable it again.
      const toggle = card.getByRole('switch');
      await toggle.click();
      await poll(() => toggle.getAttribute('aria-checked')).toBe('false');
      await poll(
        async () => (await apiCall(base, `/webhooks/${endpointId}`, { headers: bearer })).body?.enabled,
      ).toBe(false);
      await screenshot(page, `${shots}/11-webhooks-list-disabled`);
      await toggle.click();
      await poll(() => toggle.getAttribute('aria-checked')).toBe('true');

      // The endpoint's page: deliveries and a test event (or, until the delivery engine exists, a plain message).
      await card.getByRole('link', { name: 'Deliveries and settings' }).click();
      await page.getByRole('heading', { name: 'Webhook endpoint', level: 1 }).waitFor();
      await expectContentOrPlainError(page, 'No deliveries yet');
      const before = receiver.received.length;
      await page.getByRole('button', { name: 'Send test event' }).click();
      const outcome = await waitFor('the test event or an error', async () => {
        if (receiver.received.length > before) return 'delivered';
        if ((await page.getByText('Not available on this server yet').count()) > 0) return 'unavailable';
        return undefined;
      });
      if (outcome === 'delivered') {
        const delivery = receiver.received.at(-1) as ReceivedRequest;
        const expected = `sha256=${createHmac('sha256', secret).update(delivery.body).digest('hex')}`;
        expect(delivery.headers['x-service-signature']).toBe(expected);
        // The dashboard lists the delivery with its attempt and the receiver's status code.
        await poll(async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return page.locator('[data-testid="deliveries"] li').count();
        }).toBeGreaterThan(0);
        const first = page.locator('[data-testid="deliveries"] li').first();
        await first.locator('summary').click();
        await first.getByText('200').first().waitFor();
        // The receiver is on loopback, a private target: what it answered is neither kept nor shown.
        await first.getByText('Body not kept (private network target)').waitFor();
        expect(await first.getByText('thanks').count()).toBe(0);
        await screenshot(page, `${shots}/12-webhook-detail`);

        // Redeliver it: the receiver gets the same event again, as a new delivery.
        const received = receiver.received.length;
        await first.getByRole('button', { name: 'Redeliver' }).click();
        await waitFor('the redelivery', () => (receiver.received.length > received ? true : undefined));
        expect(receiver.received.at(-1)?.body).toBe(delivery.body);
        await poll(async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return page.locator('[data-testid="deliveries"] > li').count();
        }).toBeGreaterThan(1);
        // Nothing failed, so "redeliver all failed" sends nothing and says so without an error.
        await page.getByRole('button', { name: 'Redeliver all failed' }).click();
        await page.getByTestId('toast').filter({ hasText: 'No failed delivery' }).waitFor();
        expect(await page.locator('.notice-error').count()).toBe(0);
      } else {
        await screenshot(page, `${shots}/12-webhook-detail`);
      }

      // Rotate the secret: a new one, shown once.
      await page.getByRole('button', { name: 'Rotate signing secret' }).click();
      await page
        .getByRole('dialog', { name: 'Rotate the signing secret?' })
        .getByRole('button', { name: 'Rotate secret' })
        .click();
      const rotated = await page.getByTestId('signing-secret').inputValue();
      expect(rotated).toMatch(/^whsec_/);
      expect(rotated).not.toBe(secret);
      await screenshot(page, `${shots}/13-webhook-rotated`);
      await page.getByRole('button', { name: 'I have saved it' }).click();

      // A test payment from the dashboard: its login session is enough, no key is ever pasted.
      await nav(page, 'Create payment');
      await page.getByRole('heading', { name: 'Create a test payment', level: 1 }).waitFor();
      expect(await page.getByText('Paste a test key').count()).toBe(0);
      await screenshot(page, `${shots}/14-new-test-payment`);
      const orderId = `order-${randomBytes(4).toString('hex')}`;
      await page.getByLabel('Amount').fill('25.00');
      await page.getByLabel('I choose the network and coin').check();
      await page.getByLabel('Order ID (optional)').fill(orderId);
      await page.getByLabel('Customer email (optional)').fill('payer@example.com');
      await page.getByRole('button', { name: 'Create test payment' }).click();
      const created = page.getByTestId('created-payment');
      const creation = await waitFor('the created payment or an error', async () => {
        if ((await created.count()) > 0) return 'created';
        if ((await page.getByText('Not available on this server yet').count()) > 0) return 'unavailable';
        return undefined;
      });
      if (creation === 'unavailable') await screenshot(page, `${shots}/15-test-payment-unavailable`);
      else {
        await screenshot(page, `${shots}/15-test-payment-created`);
        const listedPayments = await apiCall(base, `/payments?is_test=true&order_id=${orderId}`, {
          headers: bearer,
        });
        expect(listedPayments.status).toBe(200);
        const payment = (
          (listedPayments.body?.data ?? []) as Array<{
            payment_id: string;
            status: string;
            customer_email: string | null;
          }>
        )[0];
        expect(payment?.status).toBe('pending');
        expect(payment?.customer_email).toBe('payer@example.com');
        const paymentId = payment?.payment_id ?? '';
        expect(await created.getByTestId('open-checkout').getAttribute('href')).toContain(
          `/pay/${paymentId}`,
        );

        // Its page: amounts, deposit address, and the payer simulator (or the API's plain error until it exists).
        await created.getByRole('link', { name: 'View payment' }).click();
        await page.getByRole('heading', { name: /^Payment of 25(\.00)? USD$/, level: 1 }).waitFor();
        await page.getByText('Nothing has arrived at the deposit address yet.').waitFor();
        expect(await page.getByTestId('customer-email').textContent()).toBe('Payer payer@example.com');
        await screenshot(page, `${shots}/16-payment-pending`);
        await page.getByRole('button', { name: 'Pay in full' }).click();
        const simulated = await waitFor('the simulation or an error', async () => {
          if ((await page.getByText('Not available on this server yet').count()) > 0) return 'unavailable';
          if ((await page.getByTestId('toast').filter({ hasText: 'Simulated' }).count()) > 0)
            return 'simulated';
          return undefined;
        });
        if (simulated === 'simulated') {
          // The page follows the payment to completed without a reload, with its event and delivery.
          await page.locator('.page-header [data-status="completed"]').waitFor({ timeout: 60_000 });
          await page.getByTestId('timeline').getByText('payment.confirmed').waitFor({ timeout: 30_000 });
          const confirmed = page
            .getByTestId('timeline')
            .locator('li')
            .filter({ hasText: 'payment.confirmed' });
          await confirmed.getByRole('button', { name: 'Show deliveries' }).click();
          await confirmed
            .locator('[data-testid="deliveries"] [data-status="succeeded"]')
            .waitFor({ timeout: 30_000 });
        }
        await screenshot(page, `${shots}/17-payment-detail`);

        // The list finds it by order id and by status filter; a payment id opens it directly.
        await nav(page, 'Payments');
        await page.locator('[data-testid="payments"] tbody tr').first().waitFor();
        await page.getByLabel('Payment ID or order ID').fill(orderId);
        await page.getByRole('button', { name: 'Search' }).click();
        await poll(() => page.locator('[data-testid="payments"] tbody tr').count()).toBe(1);
        await page.getByLabel('Status').selectOption('expired');
        await page.getByText('No payments match').waitFor();
        await page.getByRole('button', { name: 'Clear' }).click();
        await page.locator('[data-testid="payments"] tbody tr').first().waitFor();
        await screenshot(page, `${shots}/18-payments-list`);
        await page.getByLabel('Payment ID or order ID').fill(paymentId);
        await page.getByRole('button', { name: 'Search' }).click();
        await page.getByRole('heading', { name: /^Payment of 25(\.00)? USD$/, level: 1 }).waitFor();
      }

      // Every other page renders: its content, or the API's error in plain words while that API is being built.

      await nav(page, 'Events');
      await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
      await expectContentOrPlainError(page, /No test events yet|Show deliveries/);
      await screenshot(page, `${shots}/19-events`);

      await nav(page, 'Settings');
      await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
      await expectContentOrPlainError(page, 'Save payout wallets');
      if ((await page.getByRole('button', { name: 'Save payout wallets' }).count()) > 0) {
        // A test payout wallet, checked by the API against the chain's address format.
        const wallet = '0x000000000000000000000000000000000000dEaD';
        await page.getByLabel('Ethereum', { exact: true }).fill('not an address');
        await page.getByRole('button', { name: 'Save payout wallets' }).click();
        await page.locator('.field-error, .notice-error').first().waitFor();
        await page.getByLabel('Ethereum', { exact: true }).fill(wallet);
        await page.getByRole('button', { name: 'Save payout wallets' }).click();
        await page.getByTestId('toast').filter({ hasText: 'payout wallets saved' }).waitFor();
        const wallets = await apiCall(base, '/settings/payout-wallets?is_test=true', { headers: bearer });
        expect(JSON.stringify(wallets.body)).toContain(wallet);
        // The change is listed at once, with who made it.
        await page.getByTestId('wallet-changes').filter({ hasText: wallet }).waitFor();
      }
      if ((await page.getByRole('button', { name: 'Save payment settings' }).count()) > 0) {
        await page.getByLabel('Underpayment tolerance (%)').fill('0.5');
        await page.getByRole('button', { name: 'Save payment settings' }).click();
        await page.getByTestId('toast').filter({ hasText: 'Payment settings saved' }).waitFor();
        const settings = await apiCall(base, '/settings', { headers: bearer });
        expect(settings.body).toMatchObject({
          underpayment_tolerance_percent: expect.stringMatching(/^0\.50*$/),
        });
      }
      // An operator sees the instance's fee wallets: Tron's resource wallet with its stake, short for the next USDT
      // sweep (5,000 TRX staked gives 50,000 energy; a sweep borrows 64,285), and what sweeps cost this month.
      const stake = page.getByTestId('fee-wallets').getByTestId('resource-stake');
      await stake.waitFor();
      expect(await stake.textContent()).toContain('Staked for energy: 5000 TRX');
      expect(await stake.textContent()).toContain('50,000 energy free: about 0 USDT sweeps of 64,285');
      await page.getByText('Stake more TRX for energy').waitFor();
      await page.getByRole('heading', { name: 'What sweeps cost' }).waitFor();
      await page.getByText(/No sweep became final in \d{4}-\d{2}/).waitFor();
      await screenshot(page, `${shots}/20-settings`);

      // Live mode: the switch changes what the lists show.
      await nav(page, 'Webhooks');
      await page.getByText('Live mode', { exact: true }).click();
      await page.getByText('No live endpoints yet').waitFor();
      await poll(() => page.getByTestId('mode-banner').textContent()).toContain('Live mode');
      await screenshot(page, `${shots}/21-webhooks-live-mode`);
      await page.getByText('Test mode', { exact: true }).click();
      await card.waitFor();

      // Delete the endpoint, after a confirmation: it is gone from the list and from the API.
      await card.getByRole('link', { name: 'Deliveries and settings' }).click();
      await page.getByRole('button', { name: 'Delete endpoint' }).click();
      const confirmDelete = page.getByRole('dialog', { name: 'Delete this endpoint?' });
      await confirmDelete.getByRole('button', { name: 'Delete endpoint' }).click();
      await page.getByRole('heading', { name: 'Webhooks', level: 1 }).waitFor();
      await page.getByText('No test endpoints yet').waitFor();
      expect((await apiCall(base, `/webhooks/${endpointId}`, { headers: bearer })).status).toBe(404);

      // A phone-sized screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.getByRole('button', { name: 'Menu' }).click();
      await nav(page, 'API keys');
      await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor();
      await page.getByTestId('keypairs').waitFor();
      expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      await screenshot(page, `${shots}/22-keys-phone`);
      await page.setViewportSize({ width: 1280, height: 860 });

      // Log out, and back in.
      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByRole('heading', { name: 'Log in to your dashboard' }).waitFor();
      expect(await page.evaluate("sessionStorage.getItem('svc.dashboard.session')")).toBeNull();
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('wrong password here');
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByText('Wrong email or password').waitFor();
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
      expect(await heading(page)).toBe('Payments');

      expect(browser.problems).toEqual([]);
    }, 180_000);
  });
}
