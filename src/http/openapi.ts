import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3 } from 'openapi-types';
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
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  registerDocs(app);
}

/**
 * Swagger UI (v5) has no inline script, but sets inline style attributes as it renders, and shows SVG icons as data:
 * images; it fetches the document from /docs/json. Nothing comes from another origin.
 */
export const docsCsp = [
  "default-src 'self'",
  "script-src 'self'",
  "script-src-attr 'none'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** Response headers that belong to one hop (or that Fastify sets itself), not copied from the docs app. */
const notForwarded = new Set(['content-length', 'connection', 'transfer-encoding', 'keep-alive', 'date']);

/**
 * /docs: Swagger UI over the OpenAPI document, served by @fastify/swagger-ui in a small Fastify app of its own that
 * is built on the first request under /docs and answers through `inject`. Loading and registering that plugin (with
 * @fastify/static and YAML) takes some 200 ms, which every start of the program would otherwise pay before it is
 * ready, for a page that few requests ever open. Its 404s become this app's, so they keep the one error shape.
 */
function registerDocs(app: FastifyInstance): void {
  let docsApp: Promise<FastifyInstance> | undefined;
  const build = async (): Promise<FastifyInstance> => {
    const [{ default: Fastify }, { default: swaggerUi }] = await Promise.all([
      import('fastify'),
      import('@fastify/swagger-ui'),
    ]);
    const docs = Fastify({ logger: false });
    // Swagger UI reads the document from @fastify/swagger: here in static mode, given this app's whole document (its
    // types stop at OpenAPI 3.0, but a static document is served as it is).
    const document = app.swagger() as OpenAPIV3.Document;
    await docs.register(swagger, { mode: 'static', specification: { document } });
    await docs.register(swaggerUi, {
      routePrefix: '/docs',
      // No online validator badge: the page then loads nothing from another origin.
      uiConfig: { docExpansion: 'list', deepLinking: true, validatorUrl: null },
      staticCSP: docsCsp,
    });
    await docs.ready();
    return docs;
  };
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    docsApp ??= build().catch((error: unknown) => {
      docsApp = undefined; // the next request tries again
      throw error;
    });
    const answer = await (await docsApp).inject({
      method: request.method === 'HEAD' ? 'HEAD' : 'GET',
      url: request.url,
      headers: request.headers,
    });
    if (answer.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !notForwarded.has(name)) reply.header(name, value);
    }
    return reply.status(answer.statusCode).send(answer.rawPayload);
  };
  app.addHook('onClose', async () => {
    await (await docsApp?.catch(() => undefined))?.close();
  });
  // Fastify answers HEAD with these GET routes too.
  for (const url of ['/docs', '/docs/*']) app.get(url, { schema: { hide: true } }, forward);
}
