import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods, RouteOptions } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3 } from 'openapi-types';
import { errorStatus } from '../lib/errors.ts';

/**
 * Every operation's id, by method and path: stable names for generated clients, kept in one place so a new route
 * without one is noticed (test/http-conventions checks that every operation has one).
 */
const operationIds: Record<string, string> = {
  'POST /auth/signup': 'signUp',
  'POST /auth/login': 'logIn',
  'POST /auth/reauthenticate': 'reauthenticate',
  'POST /auth/password-reset-request': 'requestPasswordReset',
  'POST /auth/password-reset': 'resetPassword',
  'GET /me': 'getMe',
  'GET /chains': 'listChains',
  'GET /operator/fee-wallets': 'listFeeWallets',
  'GET /operator/sweep-costs': 'getSweepCosts',
  'POST /keypairs': 'createKeypair',
  'GET /keypairs': 'listKeypairs',
  'POST /keypairs/{id}/revoke': 'revokeKeypair',
  'POST /webhooks': 'createWebhookEndpoint',
  'GET /webhooks': 'listWebhookEndpoints',
  'GET /webhooks/{id}': 'getWebhookEndpoint',
  'PATCH /webhooks/{id}': 'updateWebhookEndpoint',
  'DELETE /webhooks/{id}': 'deleteWebhookEndpoint',
  'POST /webhooks/{id}/rotate-secret': 'rotateWebhookSecret',
  'GET /events': 'listEvents',
  'GET /events/{id}': 'getEvent',
  'GET /events/stream': 'streamEvents',
  'GET /webhooks/{id}/deliveries': 'listWebhookDeliveries',
  'POST /webhooks/deliveries/{id}/redeliver': 'redeliverWebhookDelivery',
  'POST /webhooks/{id}/redeliver-failed': 'redeliverFailedWebhookDeliveries',
  'POST /webhooks/{id}/test': 'sendTestWebhook',
  'POST /payments': 'createPayment',
  'GET /payments': 'listPayments',
  'GET /payments/{id}': 'getPayment',
  'GET /payments/checkout/{payment_id}': 'getCheckoutView',
  'POST /payments/{id}/simulate': 'simulatePayment',
  'POST /payments/checkout/{payment_id}/simulate': 'simulateCheckoutPayment',
  'POST /payments/{id}/refunds': 'createRefund',
  'GET /payments/{id}/refunds': 'listPaymentRefunds',
  'GET /refunds': 'listRefunds',
  'GET /refunds/{id}': 'getRefund',
  'GET /refund-links/{token}': 'getRefundLink',
  'POST /refund-links/{token}': 'submitRefundAddress',
  'GET /exports/{kind}': 'exportRecords',
  'GET /reports': 'getReport',
  'POST /payments/checkout/{payment_id}/select': 'selectCheckoutOption',
  'GET /settings': 'getSettings',
  'PATCH /settings': 'updateSettings',
  'GET /settings/payout-wallets': 'getPayoutWallets',
  'PUT /settings/payout-wallets': 'setPayoutWallets',
  'GET /settings/payout-wallets/changes': 'listPayoutWalletChanges',
  'GET /settings/readiness': 'getReadiness',
  'PUT /settings/logo': 'setLogo',
  'POST /payment-links': 'createPaymentLink',
  'GET /payment-links': 'listPaymentLinks',
  'GET /payment-links/{id}': 'getPaymentLink',
  'PATCH /payment-links/{id}': 'updatePaymentLink',
  'POST /payment-links/{id}/payments': 'payPaymentLink',
  'DELETE /settings/logo': 'deleteLogo',
};

type Json = Record<string, unknown>;
interface OpenApiOperation extends Json {
  operationId?: string;
  parameters?: Array<{ in: string }>;
  requestBody?: unknown;
  security?: Array<Record<string, string[]>>;
  responses?: Record<string, unknown>;
}
interface OpenApiDocument extends Json {
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown>; responses?: Record<string, unknown> } & Json;
}

/** The one error shape, as the error handler writes it. */
const errorSchema = {
  type: 'object',
  description: 'Every error answer of the API.',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      additionalProperties: false,
      properties: {
        code: {
          type: 'string',
          enum: Object.keys(errorStatus),
          description: 'From the closed list of codes.',
        },
        message: { type: 'string', description: 'For people; may change.' },
        param: { type: 'string', description: 'The parameter at fault, when there is one.' },
        request_id: { type: 'string', description: 'Also in the `x-request-id` header.' },
      },
    },
  },
};

/** The 4xx answers every operation may give, by when they apply, each a shared response of the error schema. */
const commonErrors = {
  BadRequest: {
    status: '400',
    description: 'A parameter is missing, unknown or invalid, or the body is not JSON.',
  },
  Unauthorized: { status: '401', description: 'The API key or token is missing, invalid or revoked.' },
  NotFound: { status: '404', description: 'No such resource (or it belongs to another merchant or mode).' },
  PayloadTooLarge: { status: '413', description: 'The body is larger than 64 KB.' },
  UnsupportedMediaType: { status: '415', description: 'The body is not application/json.' },
  RateLimited: { status: '429', description: 'Too many requests; see `Retry-After`.' },
} as const;
type CommonError = keyof typeof commonErrors;

function referencedSchemas(value: unknown, found: Set<string>): void {
  if (Array.isArray(value)) {
    for (const item of value) referencedSchemas(item, found);
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string' && item.startsWith('#/components/schemas/')) {
        found.add(item.slice('#/components/schemas/'.length));
      } else referencedSchemas(item, found);
    }
  }
}

/**
 * Completes the generated document: each operation gets its id, `security: []` when it is public, and its 4xx
 * answers in the error schema (400 when it takes input, 401 when it needs a key, 404 when it names a resource, 413
 * and 415 when it takes a body, 429 always); component schemas no operation reaches (zod's input twins of output
 * schemas) are dropped.
 */
function finishDocument(document: OpenApiDocument): OpenApiDocument {
  document.components ??= {};
  const components = document.components;
  components.schemas ??= {};
  const schemas = components.schemas;
  schemas.Error = errorSchema;
  components.responses = Object.fromEntries(
    Object.entries(commonErrors).map(([name, { description }]) => [
      name,
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
    ]),
  );
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item)) {
      const id = operationIds[`${method.toUpperCase()} ${path}`];
      if (id !== undefined) operation.operationId = id;
      if (operation.security === undefined || operation.security.length === 0) operation.security = [];
      const errors: CommonError[] = [];
      if ((operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined)
        errors.push('BadRequest');
      if (operation.security.length > 0) errors.push('Unauthorized');
      if (path.includes('{')) errors.push('NotFound');
      if (operation.requestBody !== undefined) errors.push('PayloadTooLarge', 'UnsupportedMediaType');
      errors.push('RateLimited');
      operation.responses ??= {};
      const responses = operation.responses;
      for (const name of errors) {
        responses[commonErrors[name].status] ??= { $ref: `#/components/responses/${name}` };
      }
    }
  }
  // What the paths reach, then what those schemas reach in turn.
  const used = new Set<string>();
  referencedSchemas(document.paths, used);
  referencedSchemas(components.responses, used);
  for (let size = -1; size !== used.size; ) {
    size = used.size;
    for (const name of [...used]) referencedSchemas(schemas[name], used);
  }
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  return document;
}

/** The generator's options: the document's fixed parts, and zod's schemas turned into JSON Schema. */
function generatorOptions(publicUrl: string) {
  return {
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
          apiKey: { type: 'apiKey' as const, in: 'header', name: 'x-api-key' },
          bearer: { type: 'http' as const, scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (input: Parameters<typeof jsonSchemaTransformObject>[0]) =>
      finishDocument(jsonSchemaTransformObject(input) as OpenApiDocument),
  };
}

/** A route as the generator needs it again: where it answers and what its schema says. */
interface RouteSpec {
  method: HTTPMethods | HTTPMethods[];
  url: string;
  schema: RouteOptions['schema'];
}

/**
 * The document of `routes`, made by @fastify/swagger in a Fastify app of its own that has the same routes (their
 * schemas, no handlers). Fastify adds a HEAD route beside each GET by itself, and the document leaves HEAD out.
 */
async function generateDocument(routes: readonly RouteSpec[], publicUrl: string): Promise<OpenApiDocument> {
  const [{ default: Fastify }, { default: swagger }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
  ]);
  const generator = Fastify({ logger: false });
  // Nothing is validated or serialized here: the schemas only describe.
  generator.setValidatorCompiler(() => () => true);
  generator.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await generator.register(swagger, generatorOptions(publicUrl));
  const answer = async () => null;
  for (const route of routes) {
    const methods = (Array.isArray(route.method) ? route.method : [route.method]).filter(
      (method) => method !== 'HEAD',
    );
    if (methods.length === 0) continue;
    generator.route({
      method: methods,
      url: route.url,
      ...(route.schema === undefined ? {} : { schema: route.schema }),
      handler: answer,
    });
  }
  await generator.ready();
  const document = generator.swagger() as unknown as OpenApiDocument;
  await generator.close();
  return document;
}

/**
 * GET /v1/openapi.json and /docs. The document comes from the same zod schemas that validate requests, and is made
 * on the first request for it, not at start: @fastify/swagger with YAML and the schema resolver is some 400 KB of
 * code to load and set up before the program could be ready, for a document few requests ever ask for. Until then
 * this app only notes each route as it is added (so this runs before any route is).
 */
export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  const routes: RouteSpec[] = [];
  app.addHook('onRoute', (route) => {
    routes.push({ method: route.method, url: route.url, schema: route.schema });
  });
  let document: Promise<OpenApiDocument> | undefined;
  const documentOnce = (): Promise<OpenApiDocument> => {
    document ??= generateDocument(routes, publicUrl).catch((error: unknown) => {
      document = undefined; // the next request tries again
      throw error;
    });
    return document;
  };
  app.get('/v1/openapi.json', { schema: { hide: true } }, () => documentOnce());
  registerDocs(app, documentOnce);
}

/**
 * Swagger UI (v5) has no inline script, but sets inline style attributes as it renders, and shows SVG icons as data:
 * images; it fetches the document from /docs/json. Nothing comes from another origin.
 */
const docsCsp = [
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
function registerDocs(app: FastifyInstance, documentOf: () => Promise<OpenApiDocument>): void {
  let docsApp: Promise<FastifyInstance> | undefined;
  const build = async (): Promise<FastifyInstance> => {
    const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }, document] = await Promise.all([
      import('fastify'),
      import('@fastify/swagger'),
      import('@fastify/swagger-ui'),
      documentOf(),
    ]);
    const docs = Fastify({ logger: false });
    // Swagger UI reads the document from @fastify/swagger: here in static mode, given this app's whole document (its
    // types stop at OpenAPI 3.0, but a static document is served as it is).
    await docs.register(swagger, {
      mode: 'static',
      specification: { document: document as unknown as OpenAPIV3.Document },
    });
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
