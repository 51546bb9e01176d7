import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import {
  merchantSettingsSchema,
  modeQuerySchema,
  patchMerchantSettingsSchema,
  payoutWalletsSchema,
  putPayoutWalletsSchema,
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
        ...either,
        schema: {
          tags,
          summary:
            'Set the payout wallets of the mode (the whole set); each address is checked for its chain',
          security,
          querystring: modeQuerySchema,
          body: putPayoutWalletsSchema,
          response: { 200: payoutWalletsSchema },
        },
      },
      async (request) =>
        services.settings.putPayoutWallets(principalOf(request), request.query.is_test, request.body),
    );
  };
}
