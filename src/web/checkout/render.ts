import type { CheckoutView } from '../../modules/payments/schemas.ts';
import type { PaymentStatus } from '../../modules/payments/statuses.ts';

/**
 * The hosted checkout page as HTML, rendered on the server from the public checkout view only (never merchant data).
 * Every dynamic value passes through `escapeHtml`; URLs are checked before they become links. The page's script
 * (`client/checkout.js`) only replaces `#page` with a fresh server rendering when the public view changes, so this
 * file is the one place that decides what a payer sees.
 */

export interface PageAssets {
  css: string;
  js: string;
}

export interface RenderOptions {
  assets: PageAssets;
  now: Date;
  /** A QR code of the payment URI as inline SVG (see qr.ts), shown while the payer still has to send something. */
  qr: string;
  /** A message from the test banner's form (no-JavaScript simulation). */
  notice?: { kind: 'success' | 'error'; text: string };
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** The merchant's return address, only when it is an absolute http(s) URL. */
export function safeRedirectUrl(value: string | null): string | null {
  if (value === null) return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/** Wallet deep links only for the payment-request schemes the service makes (EIP-681, BIP-21, Solana Pay, Tron). */
const walletSchemes = /^(ethereum|bitcoin|litecoin|dogecoin|bitcoincash|solana|tron):[^\s]+$/i;

/** Statuses in which nothing can change any more; the page stops refreshing. */
const finalStatuses: readonly PaymentStatus[] = ['completed', 'overpaid', 'expired'];
/** Statuses in which the payer (still) has to send funds. */
const awaitingFunds: readonly PaymentStatus[] = ['pending', 'underpaid'];

const statusCopy: Record<PaymentStatus, { badge: string; title: string; announce: string }> = {
  pending: { badge: 'Awaiting payment', title: 'Send your payment', announce: 'Waiting for your payment.' },
  confirming: {
    badge: 'Confirming',
    title: 'Payment seen, confirming',
    announce: 'Your payment was seen on the network and is being confirmed.',
  },
  completed: { badge: 'Paid', title: 'Payment complete', announce: 'Payment complete. Thank you.' },
  underpaid: {
    badge: 'Partly paid',
    title: 'Partial payment received',
    announce: 'A partial payment was received. Please send the remaining amount.',
  },
  overpaid: {
    badge: 'Paid',
    title: 'Payment received',
    announce: 'Payment received. You sent more than was requested.',
  },
  expired: {
    badge: 'Expired',
    title: 'This payment has expired',
    announce: 'This payment has expired. Do not send funds to this address.',
  },
};

/** "29:41" or "1:02:03" (hours only when needed); "0:00" once the window has ended. */
export function formatRemaining(milliseconds: number): string {
  const total = Math.max(0, Math.floor(milliseconds / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const pad = (value: number) => String(value).padStart(2, '0');
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${minutes}:${pad(seconds)}`;
}

function formatTimestamp(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')} UTC`;
}

/**
 * The network named plainly: the chain's name is added when the network's name lacks it ("Sepolia" becomes "Ethereum
 * Sepolia"), and a test network says so.
 */
export function networkLabel(view: Pick<CheckoutView, 'network' | 'chain_name' | 'is_test'>): string {
  const firstWord = (value: string) => value.split(/\s+/)[0]?.toLowerCase() ?? '';
  const named =
    firstWord(view.network) === firstWord(view.chain_name)
      ? view.network
      : `${view.chain_name} ${view.network}`;
  return view.is_test && !/test|devnet/i.test(named) ? `${named} test network` : named;
}

const isZero = (decimal: string) => /^0(\.0*)?$/.test(decimal);

function money(amount: string, code: string): string {
  return `<span class="num">${escapeHtml(amount)}</span>&nbsp;<span class="code">${escapeHtml(code)}</span>`;
}

function copyButton(value: string, what: string): string {
  return `<button type="button" class="copy js-only" data-copy="${escapeHtml(value)}" aria-label="Copy ${escapeHtml(what)}"><svg aria-hidden="true" viewBox="0 0 16 16"><path d="M5 5V2.5A1.5 1.5 0 0 1 6.5 1h7A1.5 1.5 0 0 1 15 2.5v7a1.5 1.5 0 0 1-1.5 1.5H11v2.5A1.5 1.5 0 0 1 9.5 15h-7A1.5 1.5 0 0 1 1 13.5v-7A1.5 1.5 0 0 1 2.5 5zm1.5 0h3A1.5 1.5 0 0 1 11 6.5v3h2.5v-7h-7z"/></svg><span class="copy-label">Copy</span></button>`;
}

const icons: Record<'check' | 'clock' | 'spinner' | 'alert' | 'wallet', string> = {
  check:
    '<svg aria-hidden="true" viewBox="0 0 24 24"><path d="M9.5 16.2 5.3 12l-1.4 1.4 5.6 5.6L20.1 8.4 18.7 7z"/></svg>',
  clock:
    '<svg aria-hidden="true" viewBox="0 0 24 24"><path d="M12 2a10 10 0 1 0 0 20 10 10 0 0 0 0-20zm0 18a8 8 0 1 1 0-16 8 8 0 0 1 0 16zm.5-13H11v6l5.2 3.2.8-1.3-4.5-2.7z"/></svg>',
  spinner: '<span class="spinner" aria-hidden="true"></span>',
  alert:
    '<svg aria-hidden="true" viewBox="0 0 24 24"><path d="M1 21h22L12 2zm12-3h-2v-2h2zm0-4h-2v-4h2z"/></svg>',
  wallet:
    '<svg aria-hidden="true" viewBox="0 0 24 24"><path d="M21 7h-1V5a2 2 0 0 0-2-2H5a3 3 0 0 0-3 3v12a3 3 0 0 0 3 3h16a1 1 0 0 0 1-1V8a1 1 0 0 0-1-1zM5 5h13v2H5a1 1 0 0 1 0-2zm15 14H5a1 1 0 0 1-1-1V8.8c.3.1.6.2 1 .2h15v3h-4a2 2 0 0 0 0 4h4z"/></svg>',
};

function statusHeader(view: CheckoutView, now: Date): string {
  const copy = statusCopy[view.status];
  const icon =
    view.status === 'completed' || view.status === 'overpaid'
      ? icons.check
      : view.status === 'expired'
        ? icons.clock
        : view.status === 'confirming'
          ? icons.spinner
          : view.status === 'underpaid'
            ? icons.alert
            : icons.wallet;
  const expires = new Date(view.expires_at);
  const countdown = awaitingFunds.includes(view.status)
    ? `<p class="countdown">Time left <time data-countdown datetime="${escapeHtml(view.expires_at)}" title="Expires ${escapeHtml(formatTimestamp(view.expires_at))}">${formatRemaining(expires.getTime() - now.getTime())}</time></p>`
    : '';
  return `<div class="status status-${view.status}">
<span class="status-icon">${icon}</span>
<div class="status-text"><p class="badge">${copy.badge}</p>
<h1 id="status-title" tabindex="-1">${copy.title}</h1></div>
${countdown}
</div>`;
}

function rows(items: Array<[string, string, string?]>): string {
  return `<dl class="rows">${items
    .map(
      ([label, value, cls]) => `<div${cls ? ` class="${cls}"` : ''}><dt>${label}</dt><dd>${value}</dd></div>`,
    )
    .join('')}</dl>`;
}

function fiatLine(view: CheckoutView): string {
  return view.currency.toUpperCase() === view.asset.toUpperCase()
    ? ''
    : `<p class="fiat">Order total ${money(view.amount, view.currency)}</p>`;
}

function networkWarning(view: CheckoutView): string {
  const asset = escapeHtml(view.asset);
  const network = escapeHtml(networkLabel(view));
  return `<div class="network"><p class="network-name"><span class="dot" aria-hidden="true"></span>Network: <strong>${network}</strong></p>
<p class="warning" role="note">${icons.alert}<span>Send only <strong>${asset}</strong> on <strong>${network}</strong>. Other assets, or ${asset} sent on another network, cannot be recovered.</span></p></div>`;
}

/** Amount to send, network, QR and deposit address: what a payer needs while funds are due. */
function payBlock(view: CheckoutView, qr: string): string {
  const due = view.status === 'underpaid' ? view.remaining_amount_native : view.expected_amount_native;
  const uri = walletSchemes.test(view.payment_uri) ? view.payment_uri : null;
  const dueLabel = view.status === 'underpaid' ? 'Send the remaining' : 'Send exactly';
  return `<section class="pay" aria-labelledby="amount-label">
<p class="label" id="amount-label">${dueLabel}</p>
<div class="amount-line"><p class="amount" data-testid="amount">${money(due, view.asset)}</p>${copyButton(due, 'amount')}</div>
${view.status === 'underpaid' ? '' : fiatLine(view)}
${networkWarning(view)}
<div class="deposit">
<figure class="qr">${qr}<figcaption>Scan with your wallet app</figcaption></figure>
<div class="address-block">
<p class="label" id="address-label">Deposit address</p>
<p class="address" data-testid="address" aria-labelledby="address-label">${escapeHtml(view.address)}</p>
${copyButton(view.address, 'address')}
${uri === null ? '' : `<a class="button secondary wallet-link" href="${escapeHtml(uri)}">${icons.wallet}Open in wallet</a>`}
</div>
</div>
</section>`;
}

function confirmationsBlock(view: CheckoutView): string {
  const { seen, required } = view.confirmations;
  const shown = Math.min(seen, required);
  return `<section class="progress" aria-labelledby="conf-label">
<p class="label" id="conf-label">Confirmations</p>
<progress max="${required}" value="${shown}" aria-labelledby="conf-label conf-text">${shown} of ${required}</progress>
<p class="conf-text" id="conf-text" data-testid="confirmations"><strong>${shown} of ${required}</strong> confirmations on ${escapeHtml(networkLabel(view))}</p>
</section>`;
}

function body(view: CheckoutView, qr: string): string {
  const asset = view.asset;
  switch (view.status) {
    case 'pending':
      return `<p class="lead">Send the exact amount below to this payment's own deposit address. This page updates by itself once the payment arrives.</p>
${payBlock(view, qr)}`;
    case 'underpaid':
      return `<p class="lead">We received part of the amount. Send the remaining amount to the same address before the time runs out.</p>
${rows([
  ['Requested', money(view.expected_amount_native, asset)],
  ['Received', money(view.received_amount_native, asset), 'received'],
  ['Remaining', `<strong>${money(view.remaining_amount_native, asset)}</strong>`, 'remaining'],
])}
${payBlock(view, qr)}`;
    case 'confirming':
      return `<p class="lead">Your transaction is on ${escapeHtml(networkLabel(view))}. It is final after ${view.confirmations.required} confirmation${view.confirmations.required === 1 ? '' : 's'}; you can keep this page open or close it.</p>
${confirmationsBlock(view)}
${rows([
  ['Amount', money(view.expected_amount_native, asset)],
  ...(isZero(view.received_amount_native)
    ? []
    : ([['Confirmed so far', money(view.received_amount_native, asset)]] as Array<[string, string]>)),
  ['Network', escapeHtml(networkLabel(view))],
])}`;
    case 'completed':
      return `<p class="lead">Thank you. Your payment is confirmed on ${escapeHtml(networkLabel(view))}.</p>
${rows([
  ['Amount paid', money(view.received_amount_native, asset)],
  ...(view.currency.toUpperCase() === asset.toUpperCase()
    ? []
    : ([['Value', money(view.amount, view.currency)]] as Array<[string, string]>)),
  ['Network', escapeHtml(networkLabel(view))],
])}`;
    case 'overpaid':
      return `<p class="lead">Your payment is confirmed. You sent more than was requested; ask the seller about the difference.</p>
${rows([
  ['Requested', money(view.expected_amount_native, asset)],
  ['Received', `<strong>${money(view.received_amount_native, asset)}</strong>`],
  ['Network', escapeHtml(networkLabel(view))],
])}`;
    case 'expired':
      return `<p class="lead">The time to pay ran out. <strong>Do not send funds to this address.</strong> Return to the shop to start a new payment.</p>
${
  isZero(view.received_amount_native)
    ? ''
    : rows([
        ['Requested', money(view.expected_amount_native, asset)],
        ['Received in time', money(view.received_amount_native, asset)],
      ])
}`;
  }
}

function testBanner(view: CheckoutView, notice: RenderOptions['notice']): string {
  if (!view.is_test) return '';
  // Once a deposit is confirming, ending the window changes nothing on the page (the deposit is honoured).
  const canPay = awaitingFunds.includes(view.status);
  const canExpire = canPay;
  const buttons: Array<[string, string]> = [
    ...(canPay
      ? ([
          ['paid', view.status === 'underpaid' ? 'Pay the rest' : 'Pay in full'],
          ['underpaid', 'Underpay'],
          ['overpaid', 'Overpay'],
        ] as Array<[string, string]>)
      : []),
    ...(canExpire ? ([['expired', 'Let it expire']] as Array<[string, string]>) : []),
  ];
  const form =
    buttons.length === 0
      ? ''
      : `<form class="simulate" method="post" action="/pay/${escapeHtml(view.payment_id)}/simulate" aria-label="Simulate the payer">
<span class="simulate-label">Simulate:</span>${buttons
          .map(
            ([outcome, label]) =>
              `<button type="submit" name="outcome" value="${outcome}" class="button small">${label}</button>`,
          )
          .join('')}
</form>`;
  const message =
    notice === undefined
      ? ''
      : `<p class="notice notice-${notice.kind}" data-testid="test-notice">${escapeHtml(notice.text)}</p>`;
  return `<aside class="test-banner" aria-labelledby="test-title" data-testid="test-banner">
<p><strong id="test-title">Test mode</strong> — no real funds move. This is a simulated ${escapeHtml(networkLabel(view))} payment.</p>
${form}
<p class="notice js-message" data-testid="test-message" hidden></p>
${message}
</aside>`;
}

function head(title: string, assets: PageAssets, refreshSeconds: number | null): string {
  return `<!doctype html>
<html lang="en" class="no-js">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.css}">
${refreshSeconds === null ? '' : `<noscript><meta http-equiv="refresh" content="${refreshSeconds}"></noscript>`}
<script src="${assets.js}" defer></script>
</head>`;
}

const footer = `<footer class="foot"><p><svg aria-hidden="true" viewBox="0 0 24 24"><path d="M12 1 3 5v6c0 5.5 3.8 10.7 9 12 5.2-1.3 9-6.5 9-12V5zm-1.5 16L6 12.5l1.4-1.4 3.1 3.1 6.1-6.1L18 9.5z"/></svg>Secure checkout · powered by svc</p></footer>`;

/** The whole checkout page for one payment. */
export function renderCheckoutPage(view: CheckoutView, options: RenderOptions): string {
  const copy = statusCopy[view.status];
  const final = finalStatuses.includes(view.status);
  const redirect =
    view.status === 'completed' || view.status === 'overpaid' ? safeRedirectUrl(view.redirect_url) : null;
  const showQr = awaitingFunds.includes(view.status);
  const id = escapeHtml(view.payment_id);
  const fingerprint = [
    view.status,
    view.received_amount_native,
    view.confirmations.seen,
    view.confirmations.required,
    view.expires_at,
  ].join('|');
  return `${head(`${copy.title} · Checkout`, options.assets, final ? null : 5)}
<body>
<div id="page" data-payment-id="${id}" data-status="${view.status}" data-final="${final}" data-fingerprint="${escapeHtml(fingerprint)}" data-announce="${escapeHtml(copy.announce)}">
${testBanner(view, options.notice)}
<main class="card" aria-labelledby="status-title">
${statusHeader(view, options.now)}
${body(view, showQr ? options.qr : '')}
${
  redirect === null
    ? ''
    : `<a class="button primary block" data-testid="redirect" href="${escapeHtml(redirect)}" rel="noreferrer">Return to the shop<svg aria-hidden="true" viewBox="0 0 24 24"><path d="M12 4l-1.4 1.4 5.6 5.6H4v2h12.2l-5.6 5.6L12 20l8-8z"/></svg></a>`
}
<p class="payment-id">Payment <code>${id}</code></p>
</main>
${footer}
</div>
<p id="announce" class="sr-only" role="status" aria-live="polite" aria-atomic="true"></p>
</body>
</html>
`;
}

/** A friendly page for an unknown (404) or malformed (400) payment link. */
export function renderProblemPage(kind: 'not_found' | 'invalid', assets: PageAssets): string {
  const title = kind === 'not_found' ? 'Payment not found' : 'This payment link is not valid';
  const text =
    kind === 'not_found'
      ? 'We could not find a payment at this address. Check the link you were given, or go back to the shop and start again. Do not send funds until you see a payment page with an amount and an address.'
      : 'The link is incomplete or mistyped. Copy the whole link from the shop again, or start a new payment there.';
  return `${head(`${title} · Checkout`, assets, null)}
<body>
<div id="page">
<main class="card problem" aria-labelledby="status-title">
<div class="status status-expired"><span class="status-icon">${icons.alert}</span>
<div class="status-text"><p class="badge">${kind === 'not_found' ? 'Not found' : 'Invalid link'}</p><h1 id="status-title">${title}</h1></div></div>
<p class="lead">${text}</p>
</main>
${footer}
</div>
</body>
</html>
`;
}
