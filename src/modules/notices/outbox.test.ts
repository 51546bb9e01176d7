import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, manualClock, type TestApp } from '../../../test/support/harness.ts';
import { freePort } from '../../../test/support/net.ts';
import { startSmtpServer } from '../../../test/support/smtp.ts';
import type { RefundView } from '../refunds/schemas.ts';
import { mailOutboxRepo } from './repo.ts';

/**
 * The mail outbox of payers' mails against a real SMTP server (smtp-server) and a real database: a mail exists only
 * if the transaction that queued it committed, is queued once per change however often that change is replayed, is
 * sent once, waits while another process holds it and is sent after that process died (its claim lapsed), and is
 * retried with backoff while the SMTP server refuses it.
 */
describe('mail outbox', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpServer>>;
  let t: TestApp;
  const clock = manualClock(new Date());

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await createTestApp({
      clock,
      env: { SVC_SMTP_URL: smtp.url, SVC_SMTP_FROM: 'shop <shop@example.com>' },
    });
  });

  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const refund = (id: string): RefundView =>
    ({ id, amount_native: '0.25', asset: 'ETH', chain: 'ethereum', is_test: true }) as RefundView;

  const mailsTo = (address: string) => smtp.mails.filter((mail) => mail.to.includes(address));

  it('sends what committed, once, whatever is replayed; never what rolled back', async () => {
    const { db } = t.database;
    await expect(
      db.transaction(async (tx) => {
        await t.services.notices.queueRefundLink(
          tx,
          'lost@example.com',
          'https://x/refund/a',
          refund('rf_a'),
        );
        throw new Error('the refund was never created');
      }),
    ).rejects.toThrow('never created');
    for (let replay = 0; replay < 3; replay++) {
      await db.transaction((tx) =>
        t.services.notices.queueRefundLink(tx, 'kept@example.com', 'https://x/refund/b', refund('rf_b')),
      );
    }
    expect(await t.services.notices.sendQueued()).toEqual({ sent: 1, failed: 0 });
    expect(await t.services.notices.sendQueued()).toEqual({ sent: 0, failed: 0 });
    expect(mailsTo('lost@example.com')).toHaveLength(0);
    const [mail] = mailsTo('kept@example.com');
    expect(mailsTo('kept@example.com')).toHaveLength(1);
    expect(mail?.raw).toContain('Subject: Your refund of 0.25 ETH');
    expect(mail?.raw).toContain('https://x/refund/b');
    const row = await mailOutboxRepo.byDedupeKey(db, 'refund_link:rf_b');
    expect(mail?.raw).toContain(`Message-ID: <${row?.id}@svc>`);
    expect(row?.sentAt).not.toBeNull();
  });

  it('leaves a mail another process holds, and sends it once that process died', async () => {
    const { db } = t.database;
    await db.transaction((tx) =>
      t.services.notices.queueRefundLink(tx, 'held@example.com', 'https://x/refund/c', refund('rf_c')),
    );
    // Another process claims it, then dies before sending.
    const claimed = await mailOutboxRepo.claimDue(db, clock.now(), 20, 5 * 60_000);
    expect(claimed.map((mail) => mail.toAddress)).toEqual(['held@example.com']);
    expect(await t.services.notices.sendQueued()).toEqual({ sent: 0, failed: 0 });
    clock.advance(5 * 60_000 + 1);
    expect(await t.services.notices.sendQueued()).toEqual({ sent: 1, failed: 0 });
    expect(mailsTo('held@example.com')).toHaveLength(1);
  });

  it('retries with backoff while the SMTP server cannot be reached', async () => {
    const down = await createTestApp({
      clock,
      database: t.database,
      env: { SVC_SMTP_URL: `smtp://127.0.0.1:${await freePort()}` },
    });
    try {
      await t.database.db.transaction((tx) =>
        t.services.notices.queueRefundLink(tx, 'later@example.com', 'https://x/refund/d', refund('rf_d')),
      );
      expect(await down.services.notices.sendQueued()).toEqual({ sent: 0, failed: 1 });
      const failed = await mailOutboxRepo.byDedupeKey(t.database.db, 'refund_link:rf_d');
      expect(failed).toMatchObject({ attempts: 1, sentAt: null, failedAt: null, claimedUntil: null });
      expect(failed?.lastError).toBeTruthy();
      // Not due again before its backoff (a minute after the first failure).
      expect(await t.services.notices.sendQueued()).toEqual({ sent: 0, failed: 0 });
      clock.advance(60_001);
      expect(await t.services.notices.sendQueued()).toEqual({ sent: 1, failed: 0 });
      expect(mailsTo('later@example.com')).toHaveLength(1);
    } finally {
      await down.close();
    }
  });

  it('retention removes the mails that were sent, and keeps those still to send', async () => {
    await t.database.db.transaction((tx) =>
      t.services.notices.queueRefundLink(tx, 'queued@example.com', 'https://x/refund/e', refund('rf_e')),
    );
    const removed = await t.services.notices.purgeFinishedMails(new Date(clock.now().getTime() + 1000), 100);
    expect(removed).toBe(3); // rf_b, rf_c and rf_d, all sent above
    expect(await mailOutboxRepo.byDedupeKey(t.database.db, 'refund_link:rf_b')).toBeUndefined();
    expect(await mailOutboxRepo.byDedupeKey(t.database.db, 'refund_link:rf_e')).toMatchObject({
      sentAt: null,
    });
  });
});
