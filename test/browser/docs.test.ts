import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type Browser,
  launchBrowser,
  type RunningProgram,
  runBrowserTests,
  skipReason,
  startProgram,
} from './support.ts';

/** Swagger UI at /docs renders the API under its own Content-Security-Policy, with no violation reported. */
if (!runBrowserTests) {
  it.skip(skipReason, () => {});
} else {
  describe('API docs in Chromium', () => {
    let program: RunningProgram;
    let browser: Browser;

    beforeAll(async () => {
      program = await startProgram();
      browser = await launchBrowser(program.baseUrl);
    }, 120_000);

    afterAll(async () => {
      await browser?.close();
      await program?.stop();
    });

    it('renders every operation without a CSP violation', async () => {
      const violations: string[] = [];
      browser.page.on('console', (message) => {
        if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
      });
      const response = await browser.page.goto(`${program.baseUrl}/docs/`);
      expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
      await browser.page.locator('.opblock').first().waitFor();
      expect(await browser.page.locator('.opblock').count()).toBeGreaterThan(20);
      await browser.page.locator('.opblock-summary').first().click();
      await browser.page.locator('.opblock-body').first().waitFor();
      expect(violations).toEqual([]);
      expect(browser.problems).toEqual([]);
    });
  });
}
