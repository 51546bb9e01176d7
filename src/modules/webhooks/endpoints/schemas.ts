import { z } from 'zod';

export const webhookEndpointSchema = z
  .object({
    id: z.string().describe('Endpoint id, prefixed `we_`.'),
    url: z.string(),
    is_test: z.boolean(),
    enabled: z.boolean(),
    description: z.string().nullable(),
    consecutive_failures: z
      .number()
      .int()
      .describe(
        'Failed attempts in a row; a success resets it. At SVC_WEBHOOK_BREAKER_FAILURES the endpoint trips.',
      ),
    tripped_at: z.iso
      .datetime()
      .nullable()
      .describe(
        'Set while the endpoint keeps failing: deliveries then wait and one probe at a time is sent, with a growing back-off, until one succeeds.',
      ),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const webhookEndpointWithSecretSchema = webhookEndpointSchema
  .extend({
    signing_secret: z
      .string()
      .describe(
        '`whsec_` + base64 of 32 random bytes. Shown only in this response; it signs every delivery.',
      ),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });

export const rotatedSecretSchema = webhookEndpointWithSecretSchema
  .extend({
    previous_secret_expires_at: z.iso
      .datetime()
      .describe('Until then deliveries are also signed with the previous secret (Standard Webhooks header).'),
  })
  .meta({ id: 'RotatedWebhookSecret' });

const description = z.string().max(500).nullable();

export const createWebhookEndpointSchema = z.strictObject({
  url: z.string().max(2048).describe('Absolute http(s) URL; live endpoints must use https.'),
  is_test: z
    .boolean()
    .optional()
    .describe("Mode. With an API key it defaults to the key's mode and must agree."),
  description: description.optional(),
});

export const updateWebhookEndpointSchema = z.strictObject({
  url: z.string().max(2048).optional(),
  description: description.optional(),
  enabled: z.boolean().optional(),
});

export const webhookEndpointParamsSchema = z.object({ id: z.string().max(64) });

const booleanQuery = z.enum(['true', 'false']).transform((value) => value === 'true');

export const listWebhookEndpointsQuerySchema = z.strictObject({
  is_test: booleanQuery
    .optional()
    .describe('With a dashboard token: only this mode. A key always sees its own.'),
});

export const webhookEndpointListSchema = z
  .object({ data: z.array(webhookEndpointSchema) })
  .meta({ id: 'WebhookEndpointList' });

export type WebhookEndpointView = z.infer<typeof webhookEndpointSchema>;
