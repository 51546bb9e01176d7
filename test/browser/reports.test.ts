import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
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
  waitFor,
} from './support.ts';

/**
 * Refunds and reports in the dashboard, in Chromium against the real program: test payments paid, overpaid and left
 * open; a refund made with the payment page's button (its payer link shown); the Reports page with its figures and
 * charts. Screenshots under test-results/browser/reports/.
 */

const password = 'correct horse battery staple';
const shots = 'reports';

if (!runBrowserTests) {
  it.skip(skipReason, () => {});
} else {
  describe('refunds and reports in the dashboard (Chromium)', () => {
    let program: RunningProgram;
    let browser: Browser;

    beforeAll(async () => {
      rmSync(join(screenshotDir, shots), { recursive: true, force: true });
      ensureDashboardBuilt();
      program = await startProgram();
      browser = await launchBrowser(program.baseUrl);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await program?.stop();
    });

    afterEach(async (context) => {
      if (context.task.result?.state !== 'fail') return;
      await screenshot(browser.page, `${shots}/zz-failure`).catch(() => {});
      writeFileSync(join(screenshotDir, shots, 'zz-failure-program.log'), program.output());
    });

    it('refunds a payment from its page and shows the reports with charts', {
      timeout: 120_000,
    }, async () => {
      const { page } = browser;
      const base = program.baseUrl;
      const email = `reports-${randomBytes(4).toString('hex')}@example.com`;
      await page.goto(`${base}/dashboard/signup`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByRole('heading', { name: 'Payments', level: 1 }).waitFor();
      const session = await page.evaluate<string | null>("sessionStorage.getItem('svc.dashboard.session')");
      const token = (JSON.parse(session ?? '{}') as { token: string }).token;
      const pair = await apiCall(base, '/keypairs', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
      const key = (pair.body.test as { full_key: string }).full_key;
      const headers = { 'x-api-key': key };

      // Five test payments: three paid, one overpaid, one left open.
      const ids: string[] = [];
      for (const outcome of ['paid', 'paid', 'paid', 'overpaid', null]) {
        const created = await apiCall(base, '/payments', {
          method: 'POST',
          headers,
          body: { amount: '25', currency: 'USD', chain: 'ethereum' },
        });
        const id = created.body.payment_id as string;
        ids.push(id);
        if (outcome !== null) {
          await apiCall(base, `/payments/${id}/simulate`, { method: 'POST', headers, body: { outcome } });
        }
      }
      await waitFor(
        'the payments paid',
        async () => {
          const statuses = await Promise.all(
            ids
              .slice(0, 4)
              .map(async (id) => (await apiCall(base, `/payments/${id}`, { headers })).body.status),
          );
          return statuses.every((status) => status === 'completed' || status === 'overpaid')
            ? true
            : undefined;
        },
        60_000,
      );

      // A refund with the payment page's button: no address, so the payer's link is shown.
      await page.goto(`${base}/dashboard/payments/${ids[3]}`);
      const refunds = page.getByTestId('refunds');
      await refunds.waitFor();
      await refunds.getByLabel('Amount (ETH)').fill('0.001');
      await refunds.getByRole('button', { name: 'Refund' }).click();
      await refunds.getByText('Waiting for the payer’s address').waitFor();
      await screenshot(page, `${shots}/01-payment-refund`);

      // The payer's page behind the link: an address of another chain refused with the reason, then theirs taken.
      const link =
        (await refunds.locator('code').filter({ hasText: '/refund/' }).first().textContent()) ?? '';
      expect(link).toContain(`${base}/refund/rf_`);
      await page.goto(link.trim());
      await page.getByRole('heading', { name: 'Your refund' }).waitFor();
      await page.getByLabel('Your Ethereum address').fill('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq');
      await page.getByRole('button', { name: 'Send my refund here' }).click();
      await page.getByRole('alert').getByText('is not a valid Ethereum address').waitFor();
      await screenshot(page, `${shots}/02-refund-link-refused`);
      await page.getByLabel('Your Ethereum address').fill(`0x${randomBytes(20).toString('hex')}`);
      await page.getByRole('button', { name: 'Send my refund here' }).click();
      await page.getByText('Thank you: your address was received.').waitFor();
      await waitFor(
        'the refund sent',
        async () => {
          await page.reload();
          return (await page.getByText('The refund was sent.').count()) > 0 ? true : undefined;
        },
        60_000,
      );
      await screenshot(page, `${shots}/03-refund-link-sent`);
      await page.goto(`${base}/dashboard/payments/${ids[3]}`);

      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Reports', exact: true })
        .click();
      await page.getByRole('heading', { name: 'Reports', level: 1 }).waitFor();
      await expect
        .poll(() => page.getByTestId('conversion').textContent(), { timeout: 15_000 })
        .toBe('80.0 %');
      await page.getByTestId('volume-chart').first().waitFor();
      expect(await page.getByTestId('volume-chart').locator('rect').count()).toBe(1);
      expect(await page.getByTestId('median-confirmation').textContent()).toMatch(/^\d+ s$/);
      await screenshot(page, `${shots}/04-reports`);
      expect(browser.problems).toEqual([]);
    });
  });
}
