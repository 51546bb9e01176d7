import { and, eq, sql } from 'drizzle-orm';
import { pgArray } from '../../db/arrays.ts';
import { type Db, queryRows } from '../../db/client.ts';
import { mailOutbox } from '../../db/schema/index.ts';

export type OutboxMail = typeof mailOutbox.$inferSelect;

/** All SQL of the mail outbox. */
export const mailOutboxRepo = {
  /** Queues a mail inside the caller's transaction; a second mail with the same dedupe key is dropped. */
  async enqueue(
    tx: Db,
    mail: Pick<OutboxMail, 'id' | 'kind' | 'dedupeKey' | 'toAddress' | 'subject' | 'body' | 'createdAt'>,
  ): Promise<void> {
    await tx
      .insert(mailOutbox)
      .values({ ...mail, nextAttemptAt: mail.createdAt })
      .onConflictDoNothing({ target: mailOutbox.dedupeKey });
  },

  /**
   * Claims up to `limit` mails due at `now` for `leaseMs` (one statement, SKIP LOCKED: of several processes each mail
   * goes to one), counting the attempt. A claim that lapses (its process died) makes the mail due again.
   */
  async claimDue(db: Db, now: Date, limit: number, leaseMs: number): Promise<OutboxMail[]> {
    const at = now.toISOString();
    const until = new Date(now.getTime() + leaseMs).toISOString();
    const rows = await queryRows<{ id: string }>(
      db,
      sql`update mail_outbox set claimed_until = ${until}::timestamptz, attempts = attempts + 1
          where id in (
            select id from mail_outbox
            where sent_at is null and failed_at is null and next_attempt_at <= ${at}::timestamptz
              and (claimed_until is null or claimed_until <= ${at}::timestamptz)
            order by next_attempt_at, id limit ${limit}
            for update skip locked)
          returning id`,
    );
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const claimed = await db
      .select()
      .from(mailOutbox)
      .where(sql`${mailOutbox.id} = any(${pgArray(ids)}::text[])`);
    return claimed.sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime());
  },

  async markSent(db: Db, id: string, now: Date): Promise<void> {
    await db
      .update(mailOutbox)
      .set({ sentAt: now, claimedUntil: null, lastError: null })
      .where(and(eq(mailOutbox.id, id), sql`${mailOutbox.sentAt} is null`));
  },

  /** A failed attempt: due again at `retryAt`, or given up (`failed_at`) when that is null. */
  async markFailed(db: Db, id: string, error: string, now: Date, retryAt: Date | null): Promise<void> {
    await db
      .update(mailOutbox)
      .set({
        lastError: error,
        claimedUntil: null,
        ...(retryAt === null ? { failedAt: now } : { nextAttemptAt: retryAt }),
      })
      .where(eq(mailOutbox.id, id));
  },

  async byDedupeKey(db: Db, key: string): Promise<OutboxMail | undefined> {
    const [row] = await db.select().from(mailOutbox).where(eq(mailOutbox.dedupeKey, key)).limit(1);
    return row;
  },

  /** Retention: sent or given-up mails finished before `before` (they hold payers' emails), at most `limit`. */
  async purgeFinished(db: Db, before: Date, limit: number): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      db,
      sql`delete from mail_outbox where id in (
            select id from mail_outbox
            where coalesce(sent_at, failed_at) < ${before.toISOString()}::timestamptz
            limit ${limit} for update skip locked)
          returning id`,
    );
    return rows.length;
  },
};
