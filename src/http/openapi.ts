import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { errorStatus } from '../lib/errors.ts';

/** Registers the OpenAPI 3.1 generator (fed by the same zod schemas that validate requests) and /docs. */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'svc API',
        version: '1',
        description: [
          'Self-hostable crypto payments. Authenticate secret resources with `x-api-key: svc_test_…` or',
          '`svc_live_…`; the key prefix sets the mode. Dashboard operations take `Authorization: Bearer <token>`.',
          '',
          'Every error has the shape `{"error": {"code", "message", "param"?, "request_id"}}`. Codes and statuses:',
          '',
          ...Object.entries(errorStatus).map(([code, status]) => `- \`${code}\`: ${status}`),
        ].join('\n'),
      },
      servers: [{ url: publicUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true },
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
