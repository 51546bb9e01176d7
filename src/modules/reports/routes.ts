import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import { reportQuerySchema, reportSchema } from './schemas.ts';

export function reportsRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/reports',
      {
        preHandler: requireAuth('either'),
        schema: {
          tags: ['Reports'],
          summary:
            'The reports page’s figures: volume per day by chain and asset, conversion, median time to ' +
            'confirmation, sweep fees per month (default: the last 30 days)',
          security: [{ apiKey: [] }, { bearer: [] }],
          querystring: reportQuerySchema,
          response: { 200: reportSchema },
        },
      },
      async (request) => services.reports.report(principalOf(request), request.query),
    );
  };
}
