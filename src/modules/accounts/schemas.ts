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

export const signupSchema = z.strictObject({
  email: z.email().max(254),
  password: z.string().max(256),
  invite: z
    .string()
    .max(128)
    .optional()
    .describe("The operator's invite (`svc invite`), when SVC_SIGNUP=invite."),
});

export const resetRequestSchema = z.strictObject({ email: z.email().max(254) });

export const resetSchema = z.strictObject({
  token: z.string().min(1).max(128).describe('The token of the reset link.'),
  password: z.string().max(256),
});

export const acceptedSchema = z
  .object({ status: z.literal('accepted'), message: z.string() })
  .meta({ id: 'Accepted' });

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
