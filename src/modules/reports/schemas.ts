import { z } from 'zod';

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const reportQuerySchema = z.strictObject({
  from: z.iso.datetime().optional().describe('Start (inclusive); default 30 days before `to`.'),
  to: z.iso.datetime().optional().describe('End (exclusive); default now.'),
  is_test: booleanQuery
    .optional()
    .describe('The mode; an API key reports on its own, a dashboard token must say.'),
});

export const reportSchema = z
  .object({
    from: z.iso.datetime(),
    to: z.iso.datetime(),
    is_test: z.boolean(),
    volume_by_day: z
      .array(
        z.object({
          day: z.string().describe('UTC day, YYYY-MM-DD, of the payments’ creation.'),
          chain: z.string(),
          asset: z.string(),
          received_native: z
            .string()
            .describe('What the paid payments (completed, overpaid) of the day received.'),
          paid: z.number().int(),
          created: z.number().int(),
        }),
      )
      .describe('Days with at least one payment, oldest first.'),
    conversion: z
      .object({
        created: z.number().int(),
        paid: z.number().int(),
        ratio: z.number().nullable().describe('paid / created; null without payments.'),
      })
      .describe('Payments created in the period and those of them paid (completed or overpaid).'),
    median_seconds_to_confirmation: z
      .number()
      .nullable()
      .describe(
        'Median time from creation to the payment being paid (its first confirmed or overpaid event).',
      ),
    sweep_fees_by_month: z
      .array(
        z.object({
          month: z.string().describe('UTC month, YYYY-MM, of the sweeps’ finality.'),
          chain: z.string(),
          native_asset: z.string(),
          fee_native: z.string(),
          sweeps: z.number().int(),
        }),
      )
      .describe('Network fees of final sweeps, in the chain’s native coin.'),
  })
  .meta({ id: 'Report' });
export type ReportView = z.infer<typeof reportSchema>;
