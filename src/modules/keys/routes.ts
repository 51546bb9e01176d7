import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { principalOf } from '../../http/auth.ts';
import type { RouteContext } from '../../http/context.ts';
import { createdKeypairSchema, keypairListSchema, keypairParamsSchema, keypairSchema } from './schemas.ts';

export function keysRoutes({ services, requireAuth }: RouteContext): FastifyPluginAsyncZod {
  return async (app) => {
    const jwtOnly = { preHandler: requireAuth('jwt') };
    const security = [{ bearer: [] }];

    app.post(
      '/keypairs',
      {
        ...jwtOnly,
        schema: {
          tags: ['Keypairs'],
          summary:
            'Generate a keypair (a test key and a live key); each full key is shown only in this response',
          security,
          response: { 201: createdKeypairSchema },
        },
      },
      async (request, reply) =>
        reply.status(201).send(await services.keys.generate(principalOf(request).merchantId)),
    );

    app.get(
      '/keypairs',
      {
        ...jwtOnly,
        schema: {
          tags: ['Keypairs'],
          summary: 'List keypairs (never the full keys)',
          security,
          response: { 200: keypairListSchema },
        },
      },
      async (request) => ({ data: await services.keys.list(principalOf(request).merchantId) }),
    );

    app.post(
      '/keypairs/:id/revoke',
      {
        ...jwtOnly,
        schema: {
          tags: ['Keypairs'],
          summary: 'Revoke a keypair: both its keys stop working at once',
          security,
          params: keypairParamsSchema,
          response: { 200: keypairSchema },
        },
      },
      async (request) => services.keys.revoke(principalOf(request).merchantId, request.params.id),
    );
  };
}
