import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { freePort } from '../support/net.ts';
import { programDataDir } from '../support/program.ts';
import { createIsolatedDatabase } from '../support/webhooks.ts';

/** Debian's Chromium; `.ci/run` installs it with `apt-get install -y chromium`. */
const chromiumPath = '/usr/bin/chromium';
/**
 * A machine without Chromium skips the browser tests (the README's `npm test` needs nothing but Node); CI never does:
 * there a missing browser fails them at launch instead of passing them in silence.
 */
export const runBrowserTests = existsSync(chromiumPath) || process.env.CI === 'true';
export const skipReason = `browser tests skipped: ${chromiumPath} is missing (install it with: apt-get install -y chromium)`;

const repoRoot = resolve(import.meta.dirname, '..', '..');
export const screenshotDir = join(repoRoot, 'test-results', 'browser');
const dashboardDir = join(repoRoot, 'src', 'web', 'dashboard');

function newestMtime(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'dist' || entry === 'node_modules') continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** Builds the dashboard when its build is missing or older than its source (`npm install` normally built it). */
export function ensureDashboardBuilt(): void {
  const index = join(dashboardDir, 'dist', 'index.html');
  if (existsSync(index) && statSync(index).mtimeMs >= newestMtime(dashboardDir)) return;
  execFileSync(process.execPath, [join(dashboardDir, 'build.mjs')], { cwd: repoRoot, stdio: 'pipe' });
}

export interface RunningProgram {
  baseUrl: string;
  output(): string;
  stop(): Promise<void>;
}

/**
 * Starts the real program as `npm start` runs it (`node bin/svc.mjs serve`) on a free loopback port with its own data
 * directory. With DATABASE_URL set it uses a fresh database on that PostgreSQL server (with fresh secrets), dropped
 * when it stops, instead of PGlite.
 */
export async function startProgram(extraEnv: Record<string, string> = {}): Promise<RunningProgram> {
  const port = await freePort();
  // On PostgreSQL a database of its own: its delivery worker would otherwise claim other test files' deliveries (and
  // theirs this program's), which neither can decrypt with its own master key (see createIsolatedDatabase).
  const isolated = process.env.DATABASE_URL ? await createIsolatedDatabase() : undefined;
  const dataDir = programDataDir('svc-browser-', { embedded: isolated?.url === undefined });
  const baseUrl = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? dataDir,
    NODE_ENV: 'test',
    HOST: '127.0.0.1',
    PORT: String(port),
    SVC_PUBLIC_URL: baseUrl,
    SVC_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SVC_RATE_LIMIT_PER_IP: '0',
    SVC_RATE_LIMIT_PER_KEY: '0',
    SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
    // On a shared database the test's account may not be the first: make it an operator, for loopback receivers.
    SVC_OPERATOR_EMAILS: '@example.com',
    // Simulated test chains make a block every 200 ms here, so confirmations take seconds, not half a minute.
    SVC_SIM_BLOCK_MS: '200',
    ...extraEnv,
  };
  if (isolated?.url !== undefined) {
    env.DATABASE_URL = isolated.url;
    env.SVC_MASTER_KEY = randomBytes(32).toString('base64');
    env.SVC_JWT_SECRET = randomBytes(32).toString('hex');
    // The BIP-39 test vector, as the other tests on this database use.
    env.SVC_TEST_MNEMONIC =
      'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    // Sign-up is closed by default on a server database; the tests sign up through the dashboard.
    env.SVC_SIGNUP = 'open';
  }
  const child: ChildProcess = spawn(process.execPath, ['bin/svc.mjs', 'serve'], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  let running = true;
  void exited.then(() => {
    running = false;
  });

  const stop = async () => {
    if (running) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
    await isolated?.drop();
  };

  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (!running) {
      await stop();
      throw new Error(`the program exited before it was ready:\n${output}`);
    }
    try {
      const response = await fetch(`${baseUrl}/readyz`);
      if (response.ok) return { baseUrl, output: () => output, stop };
    } catch {
      // Not listening yet.
    }
    await new Promise((done) => setTimeout(done, 150));
  }
  await stop();
  throw new Error(`the program was not ready within 60 s:\n${output}`);
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local webhook receiver on loopback that answers 200 and records every request. */
export async function startReceiver(): Promise<{
  url: string;
  received: ReceivedRequest[];
  close(): Promise<void>;
}> {
  const received: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      response.writeHead(200, { 'content-type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/webhooks/svc`,
    received,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}

export interface Browser {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors in the page and requests that left the service's origin. */
  problems: string[];
  close(): Promise<void>;
}

/**
 * Debian's Chromium, headless, with a fresh profile, allowed to talk to `origin` only. `javaScriptEnabled: false`
 * shows pages as a browser without JavaScript does.
 */
export async function launchBrowser(
  origin: string,
  options: { javaScriptEnabled?: boolean } = {},
): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'svc-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 860 },
    deviceScaleFactor: 1,
    permissions: ['clipboard-read', 'clipboard-write'],
    timezoneId: 'UTC',
    locale: 'en-GB',
    javaScriptEnabled: options.javaScriptEnabled ?? true,
  });
  context.setDefaultTimeout(15_000);
  const problems: string[] = [];
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !url.startsWith('data:') && url !== 'about:blank') {
      problems.push(`external request: ${url}`);
    }
  });
  return {
    context,
    page,
    problems,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Saves a full-page screenshot as test-results/browser/<name>.png (name may hold a folder) for a person to see. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(dirname(join(screenshotDir, name)), { recursive: true });
  // From the top, so the sticky header sits where a person sees it.
  await page.evaluate('window.scrollTo(0, 0)');
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
}

/** Calls the program's /v1 API as a client would; an empty body reads as `{}`. */
export async function apiCall(
  baseUrl: string,
  path: string,
  init: { headers?: Record<string, string>; method?: string; body?: unknown } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${baseUrl}/v1${path}`, {
    method: init.method ?? 'GET',
    headers: { ...(init.body === undefined ? {} : { 'content-type': 'application/json' }), ...init.headers },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Polls `probe` until it answers something other than undefined, or fails naming `what` after `ms`. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 30_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}
