import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import { credentialsSchema, merchantSchema, sessionSchema } from './schemas.ts';

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
      async (request) => services.accounts.login(request.body.email, request.body.password),
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
