import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  bearer,
  createMerchant,
  createTestApp,
  type TestApp,
} from '../../../test/support/harness.ts';
import { startSmtpServer } from '../../../test/support/smtp.ts';
import { waitFor } from '../../../test/support/webhooks.ts';
import { createNoticesJob } from './jobs.ts';

/**
 * Email notices sent to a real SMTP server (smtp-server) started here, read as they arrived: a payout wallet changed
 * (to the merchant), a webhook endpoint failing for an hour (once per trip of its breaker), a fee wallet turned low (to
 * the operators). Without SVC_SMTP_URL nothing is sent and everything else works the same.
 */
describe('email notices', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp({ env: { SVC_SMTP_URL: smtp.url, SVC_SMTP_FROM: 'svc <svc@example.com>' } });
  });

  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  it('mails the merchant when payout wallets change', async () => {
    const merchant = await createMerchant(t.app);
    const address = `0x${randomBytes(20).toString('hex')}`;
    const put = await t.app.inject({
      method: 'PUT',
      url: '/v1/settings/payout-wallets?is_test=false',
      headers: bearer(merchant.token),
      payload: { ethereum: address },
    });
    expect(put.statusCode, put.body).toBe(200);
    const mail = await waitFor('the payout notice', () =>
      smtp.mails.find((m) => m.to.includes(merchant.email)),
    );
    expect(mail.raw).toContain('Subject: Payout wallets changed (live mode)');
    expect(mail.raw).toContain(`ethereum: (none) -> ${address}`);
  });

  it('mails a webhook endpoint failing for an hour once, and low fee wallets to the operators', async () => {
    const merchant = await createMerchant(t.app);
    const created = await t.app.inject({
      method: 'POST',
      url: '/v1/webhooks',
      headers: apiKey(merchant.testKey),
      payload: { url: 'https://hooks.example.com/svc' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const endpointId = (created.json() as { id: string }).id;
    // Its breaker tripped two hours ago (as the delivery worker records it).
    await t.database.db.execute(
      sql`update webhook_endpoints set tripped_at = now() - interval '2 hours', consecutive_failures = 12
          where id = ${endpointId}`,
    );
    let lowRounds = 0;
    const job = createNoticesJob({
      clock: t.clock,
      notices: t.services.notices,
      claimFailingEndpoints: t.services.webhookEndpoints.claimFailingNotices,
      feeWallets: async () => {
        lowRounds += 1;
        return [
          {
            chain: 'tron',
            isTest: false,
            wallet: {
              role: 'stakes energy for USDT sweeps',
              address: 'TResource',
              balance: 5n,
              lowBelow: 100n,
              low: true,
            },
          },
        ];
      },
      operatorEmails: async () => ['ops@example.com'],
      intervalMs: 20,
    });
    job.start();
    try {
      const failing = await waitFor('the failing-endpoint notice', () =>
        smtp.mails.find((m) => m.to.includes(merchant.email) && m.raw.includes('hooks.example.com')),
      );
      expect(failing.raw).toContain(
        'Subject: Webhook endpoint failing for an hour: https://hooks.example.com/svc',
      );
      expect(failing.raw).toContain('12 attempts in a row');
      const low = await waitFor('the low wallet notice', () =>
        smtp.mails.find((m) => m.to.includes('ops@example.com')),
      );
      expect(low.raw).toContain('tron (live): TResource');
      await waitFor('more rounds', () => lowRounds >= 5);
    } finally {
      await job.stop();
    }
    // One mail each, however many rounds ran.
    expect(smtp.mails.filter((m) => m.raw.includes('hooks.example.com'))).toHaveLength(1);
    expect(smtp.mails.filter((m) => m.to.includes('ops@example.com'))).toHaveLength(1);
  });

  it('sends nothing without SVC_SMTP_URL, and changes work the same', async () => {
    const quiet = await createTestApp({ database: t.database });
    try {
      expect(quiet.services.notices.enabled).toBe(false);
      const merchant = await createMerchant(quiet.app);
      const before = smtp.mails.length;
      const put = await quiet.app.inject({
        method: 'PUT',
        url: '/v1/settings/payout-wallets?is_test=true',
        headers: bearer(merchant.token),
        payload: { ethereum: `0x${randomBytes(20).toString('hex')}` },
      });
      expect(put.statusCode).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(smtp.mails.length).toBe(before);
    } finally {
      await quiet.close();
    }
  });
});
