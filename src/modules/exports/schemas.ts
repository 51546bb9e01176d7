import { z } from 'zod';

const exportKinds = ['payments', 'deposits', 'sweeps', 'refunds', 'events'] as const;
export type ExportKind = (typeof exportKinds)[number];

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const exportParamsSchema = z.object({
  kind: z.enum(exportKinds).describe('What to export.'),
});

export const exportQuerySchema = z.strictObject({
  format: z
    .enum(['csv', 'jsonl'])
    .default('csv')
    .describe('CSV with a header row, or JSON Lines (one object a line).'),
  from: z.iso
    .datetime()
    .optional()
    .describe('Created at or after (payments: of the payment; deposits: of their payment).'),
  to: z.iso.datetime().optional().describe('Created before.'),
  status: z.string().max(32).optional().describe('Payments and refunds: only this status.'),
  chain: z.string().max(32).optional(),
  asset: z.string().max(12).optional(),
  is_test: booleanQuery
    .optional()
    .describe('The mode; an API key exports its own, a dashboard token must say.'),
});
export type ExportQuery = z.infer<typeof exportQuerySchema>;
