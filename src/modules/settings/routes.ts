import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import { AppError } from '../../lib/errors.ts';
import { MAX_LOGO_BYTES } from './logo.ts';
import {
  changesQuerySchema,
  merchantSettingsSchema,
  modeQuerySchema,
  patchMerchantSettingsSchema,
  payoutWalletChangeListSchema,
  payoutWalletsSchema,
  putPayoutWalletsSchema,
  readinessSchema,
} from './schemas.ts';

export function settingsRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    const either = { preHandler: requireAuth('either') };
    const security = [{ apiKey: [] }, { bearer: [] }];
    const tags = ['Settings'];

    app.get(
      '/settings',
      {
        ...either,
        schema: {
          tags,
          summary: 'Payment rules: under/overpayment tolerances and the default payment window',
          security,
          response: { 200: merchantSettingsSchema },
        },
      },
      async (request) => services.settings.get(principalOf(request)),
    );

    app.patch(
      '/settings',
      {
        preHandler: requireAuth('jwt'),
        schema: {
          tags,
          summary: 'Change payment rules (dashboard token only); fields left out keep their value',
          security: [{ bearer: [] }],
          body: patchMerchantSettingsSchema,
          response: { 200: merchantSettingsSchema },
        },
      },
      async (request) => services.settings.update(principalOf(request), request.body),
    );

    app.get(
      '/settings/payout-wallets',
      {
        ...either,
        schema: {
          tags,
          summary: 'Payout wallets of the mode, by chain',
          security,
          querystring: modeQuerySchema,
          response: { 200: payoutWalletsSchema },
        },
      },
      async (request) => services.settings.getPayoutWallets(principalOf(request), request.query.is_test),
    );

    app.put(
      '/settings/payout-wallets',
      {
        // Either scheme authenticates, so that an API key is told 403 forbidden rather than 401 (the service decides).
        ...either,
        schema: {
          tags,
          summary:
            'Set the payout wallets of the mode (the whole set; a dashboard token whose password was entered in the ' +
            'last 10 minutes only, see POST /auth/reauthenticate); each address is checked for its chain, and each ' +
            'change is recorded and announced as `payout_wallet.updated`',
          security: [{ bearer: [] }],
          querystring: modeQuerySchema,
          body: putPayoutWalletsSchema,
          response: { 200: payoutWalletsSchema },
        },
      },
      async (request) =>
        services.settings.putPayoutWallets(principalOf(request), request.query.is_test, request.body, {
          ip: request.ip,
        }),
    );

    // The checkout's logo: the image itself as the body (PNG, JPEG or WebP; logo.ts checks it strictly).
    await app.register(async (images) => {
      images.addContentTypeParser(
        /^image\/[\w.+-]+$/,
        { parseAs: 'buffer', bodyLimit: MAX_LOGO_BYTES },
        (_request, body, done) => done(null, body),
      );
      images.put(
        '/settings/logo',
        {
          preHandler: requireAuth('jwt'),
          schema: {
            tags,
            summary:
              "Set the checkout's logo (dashboard token only): the image as the body, `Content-Type` image/png, " +
              'image/jpeg or image/webp, at most 256 KB and 16 to 2048 pixels a side; checked by its own bytes, ' +
              'never SVG; served at `logo_url`',
            security: [{ bearer: [] }],
            response: { 200: merchantSettingsSchema },
          },
        },
        async (request) => {
          const body = request.body;
          if (!Buffer.isBuffer(body)) {
            throw new AppError('parameter_missing', 'Send the image as the body, with its Content-Type.', {
              param: 'logo',
            });
          }
          return services.settings.setLogo(principalOf(request), body, request.headers['content-type'] ?? '');
        },
      );
    });

    app.delete(
      '/settings/logo',
      {
        preHandler: requireAuth('jwt'),
        schema: {
          tags,
          summary: "Remove the checkout's logo (dashboard token only)",
          security: [{ bearer: [] }],
          response: { 200: merchantSettingsSchema },
        },
      },
      async (request) => services.settings.deleteLogo(principalOf(request)),
    );

    app.get(
      '/settings/readiness',
      {
        ...either,
        schema: {
          tags,
          summary:
            'The setup checklist of the mode: per chain, whether payments can be taken now (node, payout wallet, fee ' +
            'wallet) and what is missing',
          security,
          querystring: modeQuerySchema,
          response: { 200: readinessSchema },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return services.readiness.readiness(principalOf(request), request.query.is_test);
      },
    );

    app.get(
      '/settings/payout-wallets/changes',
      {
        preHandler: requireAuth('jwt'),
        schema: {
          tags,
          summary:
            'Every change of payout wallets, both modes, newest first (who, when, old → new, from where)',
          security: [{ bearer: [] }],
          querystring: changesQuerySchema,
          response: { 200: payoutWalletChangeListSchema },
        },
      },
      async (request) => ({
        data: await services.settings.payoutWalletChanges(principalOf(request), request.query.limit),
      }),
    );
  };
}
