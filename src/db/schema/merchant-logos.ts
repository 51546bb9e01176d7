import { integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

/**
 * A merchant's logo for the checkout: a PNG, JPEG or WebP checked by its magic bytes and header on upload (never SVG),
 * stored as base64, served from this origin under its SHA-256 with the content type stored here.
 */
export const merchantLogos = pgTable(
  'merchant_logos',
  {
    merchantId: text('merchant_id')
      .primaryKey()
      .references(() => merchants.id),
    contentType: text('content_type').notNull(),
    /** SHA-256 of the image bytes, hex: its address (`/pay/logos/{sha256}`), so a new logo is a new URL. */
    sha256: text('sha256').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    imageBase64: text('image_base64').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (table) => [uniqueIndex('merchant_logos_sha256_key').on(table.sha256, table.merchantId)],
);
