import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../../lib/errors.ts';
import type { RefundLinkView } from '../../modules/refunds/schemas.ts';
import type { Services } from '../../services.ts';
import { escapeHtml } from '../checkout/render.ts';

/**
 * The payer's refund page at `/refund/{token}` (the link in the refund's `refund_url` and its email): the amount,
 * the network fee before anything is sent, a form for the payer's address (checked for the chain by the refunds
 * service; a refused address is shown with the reason), then the refund's progress. Server-rendered, no script.
 */

const css = `body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f5f6f8;color:#1d2230}
main{max-width:34rem;margin:3rem auto;background:#fff;border:1px solid #dde1e8;border-radius:12px;padding:1.5rem 1.75rem}
h1{font-size:1.4rem;margin:0 0 .75rem}dl{display:grid;grid-template-columns:auto 1fr;gap:.35rem 1rem;margin:1rem 0}
dt{color:#5b6472}dd{margin:0;word-break:break-all}label{display:block;font-weight:600;margin:1rem 0 .35rem}
input{width:100%;box-sizing:border-box;font:inherit;padding:.55rem .65rem;border:1px solid #b9c0cc;border-radius:8px}
button{margin-top:1rem;font:inherit;font-weight:600;color:#fff;background:#4338ca;border:0;border-radius:8px;padding:.6rem 1.2rem}
.error{color:#a61b1b;background:#fdeeee;border-radius:8px;padding:.6rem .8rem}.ok{color:#14613a;background:#e8f6ee;border-radius:8px;padding:.6rem .8rem}
.test{color:#7a4b00;background:#fff4e0;border-radius:8px;padding:.4rem .8rem;font-size:.9rem}.hint{color:#5b6472;font-size:.9rem}`;
const cssPath = `/refund/assets/refund.${createHash('sha256').update(css).digest('hex').slice(0, 12)}.css`;

const refundCsp = [
  "default-src 'none'",
  "style-src 'self'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const tokenPattern = /^rf_[0-9a-z]{20}\.[A-Za-z0-9_-]{22}$/;

const statusText: Record<string, string> = {
  queued: 'Your address was received: the refund is being prepared.',
  pending: 'The refund transaction is signed and about to be sent.',
  broadcast: 'The refund is on its way: waiting for the network to confirm it.',
  awaiting_payment: 'Your address was received: the merchant is sending the refund.',
  sent: 'The refund was sent.',
  failed: 'The refund could not be sent; the merchant has been told.',
};

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><link rel="stylesheet" href="${cssPath}"></head>
<body><main>${body}</main></body></html>`;
}

function render(
  view: RefundLinkView,
  token: string,
  notice?: { kind: 'ok' | 'error'; text: string },
): string {
  const facts: Array<[string, string]> = [
    ['Amount', `${view.amount_native} ${view.asset}`],
    ['Network', `${view.chain_name} (${view.network})`],
  ];
  if (view.fee_estimate_native !== null) {
    facts.push([
      view.fee_paid_from_refund
        ? 'Network fee (taken from the refund)'
        : 'Network fee (paid by the merchant)',
      `≈ ${view.fee_estimate_native} ${view.native_asset}`,
    ]);
  }
  if (view.to_address !== null) facts.push(['To', view.to_address]);
  if (view.sent_amount_native !== null)
    facts.push(['You receive', `${view.sent_amount_native} ${view.asset}`]);
  if (view.tx_hash !== null) facts.push(['Transaction', view.tx_hash]);
  const form =
    view.status === 'awaiting_address'
      ? `<form method="post" action="/refund/${escapeHtml(token)}">
<label for="address">Your ${escapeHtml(view.chain_name)} address</label>
<input id="address" name="address" autocomplete="off" spellcheck="false" required maxlength="128">
<p class="hint">Check it carefully: a blockchain transfer cannot be undone. It must be an address of your own wallet on ${escapeHtml(view.network)}.</p>
<button type="submit">Send my refund here</button></form>`
      : `<p class="ok">${escapeHtml(statusText[view.status] ?? view.status)}</p>`;
  return page(
    'Your refund',
    `${view.is_test ? '<p class="test">Test mode: no real funds move.</p>' : ''}<h1>Your refund</h1>
${notice === undefined ? '' : `<p class="${notice.kind}" role="${notice.kind === 'error' ? 'alert' : 'status'}">${escapeHtml(notice.text)}</p>`}
<dl>${facts.map(([term, value]) => `<dt>${escapeHtml(term)}</dt><dd>${escapeHtml(value)}</dd>`).join('')}</dl>${form}`,
  );
}

function headers(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', refundCsp)
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8');
}

export function refundPageRoutes(deps: { refunds: Pick<Services['refunds'], 'linkView' | 'submitAddress'> }) {
  return async (app: FastifyInstance) => {
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: 4096 },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
    );

    app.get(cssPath, { schema: { hide: true } }, async (_request, reply) =>
      reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .type('text/css; charset=utf-8')
        .send(css),
    );

    const notFound = (reply: FastifyReply) =>
      headers(reply)
        .status(404)
        .send(
          page('Refund link not found', '<h1>Refund link not found</h1><p>Check the link you were sent.</p>'),
        );

    app.get<{ Params: { token: string } }>(
      '/refund/:token',
      { schema: { hide: true } },
      async (request, reply) => {
        const { token } = request.params;
        if (!tokenPattern.test(token)) return notFound(reply);
        try {
          return headers(reply).send(render(await deps.refunds.linkView(token), token));
        } catch (error) {
          if (error instanceof AppError && error.code === 'not_found') return notFound(reply);
          throw error;
        }
      },
    );

    app.post<{ Params: { token: string }; Body: { address?: string } }>(
      '/refund/:token',
      { schema: { hide: true } },
      async (request, reply) => {
        const { token } = request.params;
        if (!tokenPattern.test(token)) return notFound(reply);
        try {
          const view = await deps.refunds.submitAddress(token, {
            address: String(request.body?.address ?? ''),
          });
          return headers(reply).send(
            render(view, token, { kind: 'ok', text: 'Thank you: your address was received.' }),
          );
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          if (error.code === 'not_found') return notFound(reply);
          const view = await deps.refunds.linkView(token);
          return headers(reply)
            .status(error.status)
            .send(render(view, token, { kind: 'error', text: error.message }));
        }
      },
    );
  };
}
