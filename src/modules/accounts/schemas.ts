import { z } from 'zod';

export const merchantSchema = z
  .object({
    id: z.string().describe('Merchant id, prefixed `mer_`.'),
    email: z.email(),
    created_at: z.iso.datetime(),
  })
  .meta({ id: 'Merchant' });

export const credentialsSchema = z.strictObject({
  email: z.email().max(254),
  password: z.string().max(256),
});

export const passwordSchema = z.strictObject({
  password: z.string().max(256),
});

export const sessionSchema = z
  .object({
    token: z.string().describe('JWT for the dashboard API; send as `Authorization: Bearer <token>`.'),
    expires_at: z.iso.datetime(),
    merchant: merchantSchema,
  })
  .meta({ id: 'Session' });

export type MerchantView = z.infer<typeof merchantSchema>;
export type SessionView = z.infer<typeof sessionSchema>;
