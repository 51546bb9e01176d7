import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * The CSP of everything that is not a page (JSON answers, errors, health): nothing may load, nothing may frame it.
 * The pages set their own, stricter-than-default policies over this one: the hosted checkout and the dashboard in
 * their routes ('self' only, no inline script or style), /docs for Swagger UI (see openapi.ts).
 */
export const apiCsp = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * Helmet's security headers on every answer that passes Fastify's hooks, including /docs, /openapi.json and errors:
 * HSTS (ignored by browsers over plain HTTP, so harmless on a loopback install), nosniff, frame denial, no referrer,
 * same-origin opener and resource policies, and the API CSP above unless a page sets its own.
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'none'"],
        frameAncestors: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
  });
}
