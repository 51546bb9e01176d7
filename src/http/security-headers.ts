import type { FastifyInstance } from 'fastify';

/**
 * The CSP of everything that is not a page (JSON answers, errors, health): nothing may load, nothing may frame it.
 * The pages set their own, stricter-than-default policies over this one: the hosted checkout and the dashboard in
 * their routes ('self' only, no inline script or style), /docs for Swagger UI (see openapi.ts).
 */
export const apiCsp = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * The headers Helmet's defaults set (with frame denial and no referrer), written out once: they never vary by
 * request, and Helmet's middleware rebuilt them on every answer (a few percent of a payment creation's CPU).
 * HSTS is ignored by browsers over plain HTTP, so harmless on a loopback install.
 */
const securityHeaders: Readonly<Record<string, string>> = {
  'content-security-policy': apiCsp,
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'DENY',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};

/**
 * The security headers on every answer that passes Fastify's hooks, including /docs, /openapi.json and errors; a page
 * that sets its own CSP replaces the API's. (Answers refused before any hook runs set theirs in error-handler.ts.)
 */
export async function registerSecurityHeaders(app: FastifyInstance): Promise<void> {
  app.addHook('onRequest', (_request, reply, done) => {
    reply.headers(securityHeaders);
    done();
  });
}
