import { bigint, integer, pgTable } from 'drizzle-orm/pg-core';

/**
 * The last position handed out in the event stream: one row, locked by the sequencer for the length of its
 * transaction, so sequencers in any number of processes take turns and positions follow their commits.
 */
export const eventStreamHead = pgTable('event_stream_head', {
  id: integer('id').primaryKey(),
  seq: bigint('seq', { mode: 'number' }).notNull(),
});
