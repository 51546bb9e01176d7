import { sql } from 'drizzle-orm';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Logger } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { decoratePrincipal, makeAuth } from './http/auth.ts';
import type { RouteContext } from './http/context.ts';
import { clientError, frameworkError, installErrorHandling, requestIdPattern } from './http/error-handler.ts';
import { recordHttpMetrics, registerMetricsRoute } from './http/metrics.ts';
import { registerOpenApi } from './http/openapi.ts';
import { type RateLimitCheck, rateLimitCheck, registerRateLimiting } from './http/rate-limit.ts';
import { registerSecurityHeaders } from './http/security-headers.ts';
import { randomToken } from './lib/ids.ts';
import type { Metrics } from './metrics.ts';
import { accountsRoutes } from './modules/accounts/routes.ts';
import { chainsRoutes } from './modules/chains/routes.ts';
import { exportsRoutes } from './modules/exports/routes.ts';
import { keysRoutes } from './modules/keys/routes.ts';
import { paymentLinksRoutes } from './modules/payment-links/routes.ts';
import { paymentsRoutes } from './modules/payments/routes.ts';
import { refundsRoutes } from './modules/refunds/routes.ts';
import { reportsRoutes } from './modules/reports/routes.ts';
import { settingsRoutes } from './modules/settings/routes.ts';
import { simulatorRoutes } from './modules/simulator/routes.ts';
import { webhookDeliveryRoutes } from './modules/webhooks/delivery/routes.ts';
import { webhookEndpointRoutes } from './modules/webhooks/endpoints/routes.ts';
import { eventStreamRoutes } from './modules/webhooks/events/routes.ts';
import type { Services } from './services.ts';
import { checkoutRoutes } from './web/checkout/routes.ts';
import { dashboardRoutes } from './web/dashboard-routes.ts';
import { homeRoute } from './web/home.ts';
import { refundPageRoutes } from './web/refund/routes.ts';

export interface AppDeps {
  config: Config;
  database: Database;
  services: Services;
  logger?: Logger;
  /** Extra readiness checks (workers, chain scanners); each returns null when healthy or a reason. */
  readinessChecks?: Array<() => Promise<string | null>>;
  /** Folder of the built dashboard (default: src/web/dashboard/dist). */
  dashboardDir?: string;
  /** The process's Prometheus metrics: HTTP answers are timed, and GET /metrics served when SVC_METRICS_TOKEN is set. */
  metrics?: Metrics | undefined;
}

const BODY_LIMIT = 64 * 1024;
/** /readyz takes an answer the embedded engine gave this recently as proof that it is reachable. */
const RECENT_ANSWER_MS = 1000;

/** One access-log line per request, when it completes, instead of Fastify's two: half the logging cost. */
class AccessLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: Math.round(reply.elapsedTime * 100) / 100,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}

/** Builds the HTTP app without listening, so tests can use `app.inject` and the program can `listen`. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database, services } = deps;
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger as FastifyBaseLogger } : { logger: false }),
    bodyLimit: BODY_LIMIT,
    trustProxy: config.trustProxy,
    return503OnClosing: true,
    requestIdHeader: 'x-request-id',
    genReqId: () => `req_${randomToken(20)}`,
    logController: new AccessLog(),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200 },
    frameworkErrors: frameworkError,
    clientErrorHandler: clientError,
  }).withTypeProvider<ZodTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);

  // A client-sent request id is echoed only when it looks like one; otherwise we make our own.
  app.addHook('onRequest', async (request, reply) => {
    if (!requestIdPattern.test(request.id)) request.id = `req_${randomToken(20)}`;
    reply.header('x-request-id', request.id);
  });

  // An empty JSON body counts as no body, so `POST …/revoke` with `Content-Type: application/json` works.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: BODY_LIMIT },
    (_request, body, done) => {
      const text = typeof body === 'string' ? body : body.toString('utf8');
      if (text.trim() === '') return done(null, undefined);
      try {
        done(null, JSON.parse(text));
      } catch {
        const error = Object.assign(new SyntaxError('Invalid JSON'), {
          statusCode: 400,
          code: 'FST_ERR_CTP_INVALID_JSON_BODY',
        });
        done(error, undefined);
      }
    },
  );

  await registerSecurityHeaders(app);
  installErrorHandling(app);
  decoratePrincipal(app);

  await registerRateLimiting(app);
  const perIp = rateLimitCheck(app, config.rateLimitPerIp, (request) => `ip:${request.ip}`);
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/healthz') || request.url.startsWith('/readyz')) return;
    await perIp(request, reply);
  });
  const perCaller = rateLimitCheck(app, config.rateLimitPerKey, (request) =>
    request.principal?.via === 'api_key'
      ? `key:${request.principal.keyId}`
      : `jwt:${request.principal?.merchantId ?? ''}`,
  );

  await registerOpenApi(app, `${config.publicUrl}/v1`);

  if (deps.metrics !== undefined) {
    recordHttpMetrics(app, deps.metrics);
    if (config.metrics.token !== undefined) registerMetricsRoute(app, deps.metrics, config.metrics.token);
  }

  app.get('/healthz', { schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
    const problems: string[] = [];
    // The embedded engine has one connection, so a `select 1` there waits behind whatever is queued (the workers'
    // first rounds, just after a start): an answer it gave within the last second shows it reachable as well.
    const answeredAt = database.embedded?.lastAnsweredAt?.();
    if (answeredAt === undefined || performance.now() - answeredAt > RECENT_ANSWER_MS) {
      try {
        await database.db.execute(sql`select 1`);
      } catch {
        problems.push('database unreachable');
      }
    }
    for (const check of deps.readinessChecks ?? []) {
      const problem = await check().catch((error: unknown) => String(error));
      if (problem !== null) problems.push(problem);
    }
    return reply
      .status(problems.length === 0 ? 200 : 503)
      .send({ status: problems.length === 0 ? 'ready' : 'not_ready', problems });
  });

  // The checkout's simulate buttons need no key: anyone with a payment's link can press them.
  const simulatePerIp = rateLimitCheck(
    app,
    config.checkoutSimulateRateLimit,
    (request) => `sim-ip:${request.ip}`,
  );
  const simulatePerPayment = rateLimitCheck(app, config.checkoutSimulateRateLimit, (request) => {
    const params = request.params as { payment_id?: unknown } | undefined;
    return `sim-payment:${String(params?.payment_id ?? '').toLowerCase()}`;
  });
  const checkoutSimulateLimit: RateLimitCheck = async (request, reply) => {
    await simulatePerIp(request, reply);
    await simulatePerPayment(request, reply);
  };

  const paymentLinkLimit = rateLimitCheck(
    app,
    config.paymentLinkRateLimit,
    (request) => `link-ip:${request.ip}`,
  );

  const context: RouteContext = {
    services,
    config,
    database,
    checkoutSimulateLimit,
    paymentLinkLimit,
    requireAuth: makeAuth(
      { authenticateKey: services.keys.authenticate, verifyToken: services.accounts.verifyToken },
      perCaller,
    ),
  };
  await app.register(
    async (v1) => {
      await v1.register(accountsRoutes(context));
      await v1.register(chainsRoutes(context));
      await v1.register(keysRoutes(context));
      await v1.register(webhookEndpointRoutes(context));
      await v1.register(webhookDeliveryRoutes(context));
      await v1.register(eventStreamRoutes(context));
      await v1.register(paymentsRoutes(context));
      await v1.register(refundsRoutes(context));
      await v1.register(exportsRoutes(context));
      await v1.register(reportsRoutes(context));
      await v1.register(simulatorRoutes(context));
      await v1.register(settingsRoutes(context));
      await v1.register(paymentLinksRoutes(context));
    },
    { prefix: '/v1' },
  );

  await app.register(
    checkoutRoutes({
      payments: services.payments,
      simulator: services.simulator,
      logos: services.settings,
      paymentLinks: services.paymentLinks,
      paymentLinkLimit,
      simulateLimit: checkoutSimulateLimit,
    }),
  );
  await app.register(refundPageRoutes({ refunds: services.refunds }));
  await app.register(dashboardRoutes(deps.dashboardDir === undefined ? {} : { distDir: deps.dashboardDir }));
  await app.register(homeRoute());

  return app;
}
