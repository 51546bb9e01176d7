import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

/**
 * `GET /`: where a person who opens the service's address lands, with the way to the dashboard, the API reference and
 * the first-payment walk-through; a JSON client asking for JSON gets the same links as JSON.
 */

const style = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#111827;background:#f9fafb}
h1{font-size:1.6rem;margin:0 0 .5rem}a{color:#3730a3}li{margin:.5rem 0}code{background:#eef2ff;padding:.1rem .3rem;border-radius:4px}
.go{display:inline-block;background:#3730a3;color:#fff;padding:.6rem 1rem;border-radius:8px;text-decoration:none;font-weight:600}`;

/** Only the page's own style, allowed by its hash; no script at all. */
const homeCsp = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const links = {
  dashboard: '/dashboard',
  docs: '/docs',
  openapi: '/v1/openapi.json',
  chains: '/v1/chains',
  ready: '/readyz',
};

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc · self-hosted crypto payments</title><style>${style}</style></head>
<body><main>
<h1>svc is running</h1>
<p>Self-hosted crypto payments: a checkout page for your customers, signed webhooks for your server, funds
forwarded to your own wallets.</p>
<p><a class="go" href="${links.dashboard}">Open the dashboard</a></p>
<ul>
<li><a href="${links.dashboard}/signup">Create an account</a>, then create a payment or a test payment from the
dashboard alone: no code and no key needed.</li>
<li><a href="${links.docs}">API reference</a> (and the <a href="${links.openapi}">OpenAPI document</a>): your server
creates payments with <code>POST /v1/payments</code> and its API key.</li>
<li>The README's "A first payment" walks from sign-up to a signed webhook with <code>curl</code>, step by step.</li>
<li><a href="${links.chains}">Chains and assets</a> this service accepts; <a href="${links.ready}">readiness</a> of
its database and nodes.</li>
</ul>
</main></body></html>
`;

export function homeRoute() {
  return async (app: FastifyInstance): Promise<void> => {
    app.get('/', { schema: { hide: true } }, (request, reply) => {
      const accept = request.headers.accept ?? '';
      if (accept.includes('application/json') && !accept.includes('text/html')) {
        return reply.header('cache-control', 'no-store').send({ service: 'svc', links });
      }
      return reply
        .header('content-security-policy', homeCsp)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(page);
    });
  };
}
