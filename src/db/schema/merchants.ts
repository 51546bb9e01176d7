import { pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const merchants = pgTable(
  'merchants',
  {
    id: text('id').primaryKey(),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [uniqueIndex('merchants_email_key').on(table.email)],
);
