import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * Mails to payers (a receipt, a refund link), written in the same transaction as the change they report (the payment
 * confirmed, the refund created) and sent by the notices worker: a crash before the commit leaves neither, a crash
 * after it leaves the mail to send. `dedupe_key` (`receipt:<payment id>`, `refund_link:<refund id>`) is unique, so
 * a mail is queued once however often its change is replayed. A row is claimed for `claimed_until` before it is
 * sent and marked `sent_at` after the SMTP server took it; a process that dies between the two leaves the claim to
 * lapse and the mail is sent again with the same Message-ID (`<id@svc>`), which mail systems use to drop the repeat.
 */
export const mailOutbox = pgTable(
  'mail_outbox',
  {
    id: text('id').primaryKey(),
    kind: text('kind').notNull(),
    dedupeKey: text('dedupe_key').notNull(),
    toAddress: text('to_address').notNull(),
    subject: text('subject').notNull(),
    body: text('body').notNull(),
    attempts: integer('attempts').notNull().default(0),
    lastError: text('last_error'),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }).notNull(),
    claimedUntil: timestamp('claimed_until', { withTimezone: true, mode: 'date' }),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
    /** Given up after too many failed attempts (logged): never retried on its own. */
    failedAt: timestamp('failed_at', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [
    uniqueIndex('mail_outbox_dedupe_key').on(table.dedupeKey),
    index('mail_outbox_due_idx')
      .on(table.nextAttemptAt)
      .where(sql`${table.sentAt} is null and ${table.failedAt} is null`),
  ],
);
