import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import { exportParamsSchema, exportQuerySchema } from './schemas.ts';

export function exportsRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    app.get(
      '/exports/:kind',
      {
        preHandler: requireAuth('either'),
        schema: {
          tags: ['Exports'],
          summary:
            'Payments, deposits, sweeps, refunds or events of one mode as CSV or JSON Lines, streamed (any size): ' +
            'amounts exact, values at creation (locked rate) and at confirmation (the rate stored then), sweep and ' +
            'refund fees',
          security: [{ apiKey: [] }, { bearer: [] }],
          params: exportParamsSchema,
          querystring: exportQuerySchema,
          response: {
            200: z
              .string()
              .describe('CSV with a header row (`format=csv`) or one JSON object a line (`format=jsonl`).'),
          },
        },
      },
      async (request, reply) => {
        const opened = services.exports.open(principalOf(request), request.params.kind, request.query);
        return (
          reply
            .header('content-type', opened.contentType)
            .header('content-disposition', `attachment; filename="${opened.filename}"`)
            .header('cache-control', 'no-store')
            // A stream is sent as it is (Fastify never serialises one); the schema above only documents the text.
            .send(opened.stream as never)
        );
      },
    );
  };
}
