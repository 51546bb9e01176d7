import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import {
  acceptedSchema,
  credentialsSchema,
  merchantSchema,
  passwordSchema,
  resetRequestSchema,
  resetSchema,
  sessionSchema,
  signupSchema,
} from './schemas.ts';

export function accountsRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.post(
      '/auth/signup',
      {
        schema: {
          tags: ['Accounts'],
          summary:
            'Create a merchant account (SVC_SIGNUP: open, invite or closed). An email that has an account logs in ' +
            'with its password and answers like a failed login otherwise, so the answer never tells whether it exists',
          body: signupSchema,
          response: { 201: sessionSchema },
        },
      },
      async (request, reply) => {
        const session = await services.accounts.signup(request.body.email, request.body.password, {
          invite: request.body.invite,
          ip: request.ip,
        });
        return reply.status(201).send(session);
      },
    );

    app.post(
      '/auth/password-reset-request',
      {
        schema: {
          tags: ['Accounts'],
          summary:
            'Mail a one-time reset link (when the service has SMTP); the same answer whether or not the email has an account',
          body: resetRequestSchema,
          response: { 202: acceptedSchema },
        },
      },
      async (request, reply) => {
        services.accounts.requestPasswordReset(request.body.email);
        return reply.status(202).send({
          status: 'accepted' as const,
          message:
            'If this email has an account and this service sends mail, a reset link is on its way. Otherwise ask the ' +
            'operator: `svc reset-password EMAIL` prints one.',
        });
      },
    );

    app.post(
      '/auth/password-reset',
      {
        schema: {
          tags: ['Accounts'],
          summary: 'Set a new password with the token of a reset link (works once, within an hour)',
          body: resetSchema,
          response: { 200: acceptedSchema },
        },
      },
      async (request) => {
        await services.accounts.resetPassword(request.body.token, request.body.password);
        return { status: 'accepted' as const, message: 'The password is changed: log in with it.' };
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
