import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import { credentialsSchema, merchantSchema, passwordSchema, sessionSchema } from './schemas.ts';

export function accountsRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/auth/signup',
      {
        schema: {
          tags: ['Accounts'],
          summary: 'Create a merchant account',
          body: credentialsSchema,
          response: { 201: sessionSchema },
        },
      },
      async (request, reply) => {
        const session = await services.accounts.signup(request.body.email, request.body.password);
        return reply.status(201).send(session);
      },
    );

    app.post(
      '/auth/login',
      {
        schema: {
          tags: ['Accounts'],
          summary: 'Log in and get a dashboard token',
          body: credentialsSchema,
          response: { 200: sessionSchema },
        },
      },
      async (request) => services.accounts.login(request.body.email, request.body.password, request.ip),
    );

    app.post(
      '/auth/reauthenticate',
      {
        preHandler: requireAuth('jwt'),
        schema: {
          tags: ['Accounts'],
          summary:
            'Enter the password again for a fresh token: changes of payout wallets need one from the last 10 minutes',
          security: [{ bearer: [] }],
          body: passwordSchema,
          response: { 200: sessionSchema },
        },
      },
      async (request) =>
        services.accounts.reauthenticate(principalOf(request).merchantId, request.body.password, request.ip),
    );

    app.get(
      '/me',
      {
        preHandler: requireAuth('either'),
        schema: {
          tags: ['Accounts'],
          summary: 'The authenticated merchant',
          security: [{ apiKey: [] }, { bearer: [] }],
          response: { 200: merchantSchema },
        },
      },
      async (request) => services.accounts.getMerchant(principalOf(request).merchantId),
    );
  };
}
