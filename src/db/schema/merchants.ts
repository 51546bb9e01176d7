import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const merchants = pgTable(
  'merchants',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    /** When a reset last set the password: dashboard tokens issued before it are refused. */
    passwordChangedAt: timestamp('password_changed_at', { withTimezone: true, mode: 'date' }),
  },
  (table) => [uniqueIndex('merchants_email_key').on(table.email)],
);
