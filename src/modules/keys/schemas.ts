import { z } from 'zod';

const fullKeySchema = (isTest: boolean) =>
  z.object({
    full_key: z
      .string()
      .describe(`The full key, prefixed \`${isTest ? 'svc_test_' : 'svc_live_'}\`. Shown only once.`),
    is_test: z.literal(isTest),
  });

export const createdKeypairSchema = z
  .object({
    keypair_id: z.string(),
    test: fullKeySchema(true),
    live: fullKeySchema(false),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'CreatedKeypair' });

const redactedKeySchema = z.object({
  display_prefix: z.string().describe('The first characters of the key, for recognising it.'),
  last4: z.string(),
  is_test: z.boolean(),
});

export const keypairSchema = z
  .object({
    keypair_id: z.string(),
    test: redactedKeySchema,
    live: redactedKeySchema,
    created_at: z.iso.datetime(),
    revoked: z.boolean(),
    revoked_at: z.iso.datetime().nullable(),
  })
  .meta({ id: 'Keypair' });

export const keypairListSchema = z.object({ data: z.array(keypairSchema) }).meta({ id: 'KeypairList' });

export const keypairParamsSchema = z.object({ id: z.string().max(64) });

export type CreatedKeypairView = z.infer<typeof createdKeypairSchema>;
export type KeypairView = z.infer<typeof keypairSchema>;
