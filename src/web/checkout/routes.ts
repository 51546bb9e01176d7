import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { RateLimitCheck } from '../../http/rate-limit.ts';
import { AppError } from '../../lib/errors.ts';
import { uuidPattern } from '../../lib/ids.ts';
import { simulateOutcomes } from '../../modules/payments/schemas.ts';
import { brandingView } from '../../modules/payments/views.ts';
import type { Services } from '../../services.ts';
import { type Locale, localeOf, negotiateLocale, translator } from './i18n/index.ts';
import { qrSvg } from './qr.ts';
import {
  type PageAssets,
  renderCheckoutPage,
  renderLinkPage,
  renderProblemPage,
  renderReceiptPage,
} from './render.ts';

/**
 * The hosted checkout at `/pay/{payment_id}`: server-rendered HTML from the public checkout view, its own CSS and
 * script under `/pay/assets/` (content-hashed, cached for a year), and a form fallback for the test banner so the
 * simulation works without JavaScript too. Nothing is loaded from another origin.
 */

export const checkoutCsp = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  path: string;
  body: Buffer;
  type: string;
}

function loadAsset(file: string, extension: string, type: string): Asset {
  const body = readFileSync(new URL(`./client/${file}`, import.meta.url));
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { path: `/pay/assets/checkout.${hash}.${extension}`, body, type };
}

/** Relative luminance of an sRGB colour (WCAG 2). */
function luminance(hex: string): number {
  const channel = (at: number) => {
    const value = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return value <= 0.03928 ? value / 12.92 : ((value + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4);
}

/** The theme stylesheet of accent `hex`: the accent and the text colour that contrasts more with it. */
export function themeCss(hex: string): string {
  const light = luminance(hex);
  const onWhite = 1.05 / (light + 0.05);
  const onBlack = (light + 0.05) / 0.05;
  const ink = onBlack > onWhite ? '#111827' : '#ffffff';
  return `:root{--accent:#${hex};--accent-ink:${ink}}\n`;
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', checkoutCsp)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store');
}

type PaymentsForCheckout = Pick<Services['payments'], 'checkoutView' | 'select' | 'receipt'>;
type LogosForCheckout = Pick<Services['settings'], 'logoBySha' | 'brandingFor'>;
type LinksForCheckout = Pick<Services['paymentLinks'], 'publicLink' | 'pay'>;
type SimulatorForCheckout = Pick<Services['simulator'], 'simulateCheckout'>;

interface PageRequest {
  query: unknown;
  headers: { 'accept-language'?: string | undefined };
}

/** The `?locale=` a request asked for, when it names a supported language. */
function requestedLocale(request: PageRequest): Locale | undefined {
  const query = request.query as { locale?: unknown } | undefined;
  return typeof query?.locale === 'string' ? localeOf(query.locale) : undefined;
}

export function checkoutRoutes(deps: {
  payments: PaymentsForCheckout;
  simulator: SimulatorForCheckout;
  /** Merchants' logos, by their SHA-256 (settings). */
  logos: LogosForCheckout;
  /** Payment links' public pages, and the payments their visits make (limited by `paymentLinkLimit`). */
  paymentLinks: LinksForCheckout;
  paymentLinkLimit?: RateLimitCheck;
  /** The limits of the public simulate (per IP and per payment), shared with its JSON route. */
  simulateLimit?: RateLimitCheck;
  now?: () => Date;
}) {
  const css = loadAsset('checkout.css', 'css', 'text/css; charset=utf-8');
  const js = loadAsset('checkout.js', 'js', 'text/javascript; charset=utf-8');
  const assets: PageAssets = { css: css.path, js: js.path };
  const now = deps.now ?? (() => new Date());

  async function sendPage(
    request: PageRequest,
    reply: FastifyReply,
    id: string,
    notice?: { kind: 'success' | 'error'; text: string },
    statusCode = 200,
  ): Promise<FastifyReply> {
    securityHeaders(reply).type('text/html; charset=utf-8');
    const query = requestedLocale(request);
    const acceptLanguage = request.headers['accept-language'];
    if (!uuidPattern.test(id)) {
      const t = translator(negotiateLocale({ query, acceptLanguage }));
      return reply.status(400).send(renderProblemPage('invalid', assets, t));
    }
    let view: Awaited<ReturnType<PaymentsForCheckout['checkoutView']>>;
    try {
      view = await deps.payments.checkoutView(id.toLowerCase());
    } catch (error) {
      if (error instanceof AppError && error.code === 'not_found') {
        const t = translator(negotiateLocale({ query, acceptLanguage }));
        return reply.status(404).send(renderProblemPage('not_found', assets, t));
      }
      throw error;
    }
    const t = translator(negotiateLocale({ query, payment: view.locale, acceptLanguage }));
    const qr =
      view.payment_uri === null
        ? ''
        : await qrSvg(
            view.payment_uri,
            t.m.qrLabel({
              amount: t.decimal(
                (view.status === 'underpaid' ? view.remaining_amount_native : view.expected_amount_native) ??
                  '0',
              ),
              asset: view.asset ?? '',
            }),
          );
    return reply.status(statusCode).send(
      renderCheckoutPage(view, {
        assets,
        now: now(),
        qr,
        t,
        localeQuery: query,
        ...(notice === undefined ? {} : { notice }),
      }),
    );
  }

  /** Post/redirect/get: back to the page itself (in the language the payer chose, if any). */
  const backToPage = (reply: FastifyReply, request: PageRequest, id: string) => {
    const locale = requestedLocale(request);
    return reply
      .status(303)
      .header('cache-control', 'no-store')
      .redirect(`/pay/${id.toLowerCase()}${locale === undefined ? '' : `?locale=${locale}`}`);
  };

  /**
   * A form's action on a payment, then post/redirect/get back to its page; a refusal shows the page with the reason
   * (and its status), an unknown payment the page's own 404.
   */
  async function actThenBack(
    request: PageRequest,
    reply: FastifyReply,
    id: string,
    action: () => Promise<unknown>,
  ): Promise<FastifyReply> {
    try {
      await action();
    } catch (error) {
      if (error instanceof AppError && error.code !== 'not_found') {
        return sendPage(request, reply, id, { kind: 'error', text: error.message }, error.status);
      }
      if (error instanceof AppError) return sendPage(request, reply, id);
      throw error;
    }
    return backToPage(reply, request, id);
  }

  /** A form field of a posted body (urlencoded, parsed into an object). */
  const field = (body: unknown, name: string): string =>
    typeof body === 'object' && body !== null && name in body
      ? String((body as Record<string, unknown>)[name])
      : '';

  return async (app: FastifyInstance): Promise<void> => {
    // The test banner's form posts `outcome=…` when the page runs without JavaScript (this plugin's scope only).
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 1024 },
      (_request, body, done) => {
        done(
          null,
          Object.fromEntries(new URLSearchParams(typeof body === 'string' ? body : body.toString())),
        );
      },
    );

    for (const asset of [css, js]) {
      app.get(asset.path, { schema: { hide: true } }, (_request, reply) =>
        reply
          .header('x-content-type-options', 'nosniff')
          .header('cache-control', 'public, max-age=31536000, immutable')
          .type(asset.type)
          .send(asset.body),
      );
    }

    // A merchant's accent colour as a stylesheet of its own (the CSP allows no inline style): the colour, and a text
    // colour on it (black or white, whichever contrasts more) so buttons stay readable.
    app.get<{ Params: { file: string } }>(
      '/pay/theme/:file',
      { schema: { hide: true } },
      (request, reply) => {
        const hex = /^([0-9a-f]{6})\.css$/.exec(request.params.file)?.[1];
        if (hex === undefined) return reply.callNotFound();
        return reply
          .header('x-content-type-options', 'nosniff')
          .header('cache-control', 'public, max-age=31536000, immutable')
          .type('text/css; charset=utf-8')
          .send(themeCss(hex));
      },
    );

    // A merchant's logo, by its SHA-256: with the type checked at upload, nosniff, and a CSP that runs nothing.
    app.get<{ Params: { sha256: string } }>(
      '/pay/logos/:sha256',
      { schema: { hide: true } },
      async (request, reply) => {
        const logo = await deps.logos.logoBySha(request.params.sha256);
        if (logo === undefined) return reply.callNotFound();
        return reply
          .header('x-content-type-options', 'nosniff')
          .header('content-security-policy', "default-src 'none'; sandbox")
          .header('cache-control', 'public, max-age=31536000, immutable')
          .type(logo.contentType)
          .send(logo.bytes);
      },
    );

    // The printable receipt of a paid payment; before that, the payment's page.
    app.get<{ Params: { payment_id: string } }>(
      '/pay/:payment_id/receipt',
      { schema: { hide: true } },
      async (request, reply) => {
        const id = request.params.payment_id.toLowerCase();
        if (!uuidPattern.test(id)) return sendPage(request, reply, id);
        let receipt: Awaited<ReturnType<PaymentsForCheckout['receipt']>>;
        try {
          receipt = await deps.payments.receipt(id);
        } catch (error) {
          if (error instanceof AppError && error.code === 'not_found') return sendPage(request, reply, id);
          throw error;
        }
        if (receipt === undefined) return backToPage(reply, request, id);
        const query = requestedLocale(request);
        const t = translator(
          negotiateLocale({
            query,
            payment: receipt.view.locale,
            acceptLanguage: request.headers['accept-language'],
          }),
        );
        return securityHeaders(reply)
          .type('text/html; charset=utf-8')
          .send(renderReceiptPage(receipt.view, receipt.deposits, { assets, t, localeQuery: query }));
      },
    );

    // A payment link's public page, and its form: a payment with the link's terms, then its checkout.
    const linkPage = async (
      request: PageRequest,
      reply: FastifyReply,
      id: string,
      problem?: { error: AppError; entered: string; enteredEmail: string },
    ): Promise<FastifyReply> => {
      securityHeaders(reply).type('text/html; charset=utf-8');
      const query = requestedLocale(request);
      const link = await deps.paymentLinks.publicLink(id);
      const t = translator(
        negotiateLocale({ query, payment: link?.locale, acceptLanguage: request.headers['accept-language'] }),
      );
      if (link === undefined) return reply.status(404).send(renderProblemPage('not_found', assets, t));
      const branding = await deps.logos.brandingFor(link.merchantId);
      const page = renderLinkPage(
        {
          id: link.id,
          title: link.title,
          description: link.description,
          amount: link.amount,
          currency: link.currency,
          active: link.active,
          isTest: link.isTest,
          merchant: brandingView(branding),
        },
        {
          assets,
          t,
          localeQuery: query,
          ...(problem === undefined
            ? {}
            : {
                error: { text: problem.error.message, param: problem.error.param },
                entered: problem.entered,
                enteredEmail: problem.enteredEmail,
              }),
        },
      );
      return reply.status(problem?.error.status ?? (link.active ? 200 : 410)).send(page);
    };

    app.get<{ Params: { link_id: string } }>('/l/:link_id', { schema: { hide: true } }, (request, reply) =>
      linkPage(request, reply, request.params.link_id),
    );

    app.post<{ Params: { link_id: string }; Body: unknown }>(
      '/l/:link_id',
      { schema: { hide: true } },
      async (request, reply) => {
        const id = request.params.link_id;
        const entered = field(request.body, 'amount');
        const enteredEmail = field(request.body, 'customer_email').trim();
        let created: Awaited<ReturnType<LinksForCheckout['pay']>>;
        try {
          await deps.paymentLinkLimit?.(request, reply);
          created = await deps.paymentLinks.pay(
            id,
            entered === '' ? undefined : entered,
            enteredEmail === '' ? undefined : enteredEmail,
          );
        } catch (error) {
          if (error instanceof AppError && error.code !== 'not_found') {
            return linkPage(request, reply, id, { error, entered, enteredEmail });
          }
          if (error instanceof AppError) return linkPage(request, reply, id);
          throw error;
        }
        const locale = requestedLocale(request);
        return reply
          .status(303)
          .header('cache-control', 'no-store')
          .redirect(`/pay/${created.payment_id}${locale === undefined ? '' : `?locale=${locale}`}`);
      },
    );

    // The assets' folder itself is no payment link: the API's 404 rather than the checkout's invalid-link page.
    app.get('/pay/assets', { schema: { hide: true } }, (_request, reply) => reply.callNotFound());

    app.get<{ Params: { payment_id: string } }>(
      '/pay/:payment_id',
      { schema: { hide: true } },
      (request, reply) => sendPage(request, reply, request.params.payment_id),
    );

    // The payer's pick of a chain and asset (or a new quote), posted by the page's option buttons.
    app.post<{ Params: { payment_id: string }; Body: unknown }>(
      '/pay/:payment_id/select',
      { schema: { hide: true } },
      async (request, reply) => {
        const id = request.params.payment_id;
        if (!uuidPattern.test(id)) return sendPage(request, reply, id);
        const [chain = '', asset = ''] = field(request.body, 'option').split(':');
        return actThenBack(request, reply, id, () =>
          deps.payments.select(id.toLowerCase(), { chain, asset }),
        );
      },
    );

    app.post<{ Params: { payment_id: string }; Body: unknown }>(
      '/pay/:payment_id/simulate',
      { schema: { hide: true } },
      async (request, reply) => {
        const id = request.params.payment_id;
        if (!uuidPattern.test(id)) return sendPage(request, reply, id);
        const outcome = field(request.body, 'outcome');
        const known = simulateOutcomes.find((value) => value === outcome);
        if (known === undefined) {
          const t = translator(negotiateLocale({ query: requestedLocale(request) }));
          return sendPage(request, reply, id, { kind: 'error', text: t.m.chooseSimulation }, 400);
        }
        // The payer lands on the page itself, which refreshes as the simulated chain moves.
        return actThenBack(request, reply, id, async () => {
          await deps.simulateLimit?.(request, reply);
          await deps.simulator.simulateCheckout(id.toLowerCase(), { outcome: known });
        });
      },
    );
  };
}
