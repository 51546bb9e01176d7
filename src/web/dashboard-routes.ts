import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** Where `npm run build:dashboard` (also run by `npm install`) writes the single-page app. */
const defaultDashboardDir = fileURLToPath(new URL('./dashboard/dist/', import.meta.url));

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** The app loads nothing from elsewhere: scripts, styles and API calls all stay on this origin. */
const dashboardCsp = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const missingBuildStyle = `body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:4rem auto;padding:0 1rem;color:#1f2937}
code{background:#f3f4f6;padding:.1rem .3rem;border-radius:4px}`;

/** The page's one inline style, allowed by its hash and nothing else. */
const missingBuildCsp = dashboardCsp.replace(
  "style-src 'self'",
  `style-src 'sha256-${createHash('sha256').update(missingBuildStyle).digest('base64')}'`,
);

const missingBuildPage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Dashboard not built · svc</title>
<style>${missingBuildStyle}</style></head>
<body><main><h1>The dashboard has not been built yet</h1>
<p>The dashboard is a web app that is built once from its source. The build normally runs during
<code>npm install</code>; it is missing here, or it failed.</p>
<p>Run <code>npm run build:dashboard</code> in the service's folder, then reload this page.
The API under <code>/v1</code> works without it.</p></main></body></html>
`;

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', dashboardCsp)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer');
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

/**
 * Serves the dashboard's built files at `/dashboard`. Hashed assets are cached for a year; every other path that
 * is not a file gets `index.html`, so the app's own routes (`/dashboard/payments/…`) survive a reload.
 */
export function dashboardRoutes(options: { distDir?: string } = {}) {
  const distDir = resolve(options.distDir ?? defaultDashboardDir);
  const indexFile = join(distDir, 'index.html');

  async function sendIndex(reply: FastifyReply): Promise<FastifyReply> {
    let html: Buffer;
    try {
      html = await readFile(indexFile);
    } catch {
      return securityHeaders(reply)
        .header('content-security-policy', missingBuildCsp)
        .status(503)
        .header('cache-control', 'no-store')
        .type('text/html; charset=utf-8')
        .send(missingBuildPage);
    }
    return securityHeaders(reply)
      .header('cache-control', 'no-cache')
      .type('text/html; charset=utf-8')
      .send(html);
  }

  async function serve(rawPath: string, reply: FastifyReply): Promise<FastifyReply> {
    let relative: string;
    try {
      relative = decodeURIComponent(rawPath);
    } catch {
      relative = '';
    }
    const wantsFile = extname(relative) !== '';
    if (!wantsFile || relative.includes('\0')) return sendIndex(reply);
    const file = resolve(distDir, relative);
    if (!file.startsWith(distDir + sep) || !(await isFile(file))) {
      reply.header('cache-control', 'no-store').callNotFound();
      return reply;
    }
    const immutable = relative.startsWith('assets/');
    return securityHeaders(reply)
      .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
      .type(contentTypes[extname(file).toLowerCase()] ?? 'application/octet-stream')
      .send(await readFile(file));
  }

  return async (app: FastifyInstance): Promise<void> => {
    app.get('/dashboard', { schema: { hide: true } }, (_request, reply) => sendIndex(reply));
    app.get<{ Params: { '*': string } }>('/dashboard/*', { schema: { hide: true } }, (request, reply) =>
      serve(request.params['*'], reply),
    );
  };
}
