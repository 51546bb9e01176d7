import type { CheckoutView } from '../../modules/payments/schemas.ts';
import type { PaymentStatus } from '../../modules/payments/statuses.ts';
import { type Locale, localeNames, locales, type Translator, translator } from './i18n/index.ts';

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
  /** The page's language (default English); links and forms keep an explicit `?locale=` choice. */
  t?: Translator;
  /** The `?locale=` the payer chose, carried by the page's own links and forms. */
  localeQuery?: Locale | undefined;
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

/** "29:41" or "1:02:03" (hours only when needed); "0:00" once the window has ended. */
export function formatRemaining(milliseconds: number): string {
  const total = Math.max(0, Math.floor(milliseconds / 1000));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = total % 60;
  const pad = (value: number) => String(value).padStart(2, '0');
  return hours > 0 ? `${hours}:${pad(minutes)}:${pad(seconds)}` : `${minutes}:${pad(seconds)}`;
}

/** A network named plainly: the chain's name is added when the network's name lacks it ("Sepolia" becomes "Ethereum Sepolia"). */
function plainNetwork(network: string, chainName: string): string {
  const firstWord = (value: string) => value.split(/\s+/)[0]?.toLowerCase() ?? '';
  return firstWord(network) === firstWord(chainName) ? network : `${chainName} ${network}`;
}

/**
 * The network named plainly, and a test network says so.
 */
export function networkLabel(
  view: { network: string | null; chain_name: string | null; is_test: boolean },
  t: Translator = translator('en'),
): string {
  const named = plainNetwork(view.network ?? '', view.chain_name ?? '');
  return view.is_test && !/test|devnet/i.test(named) ? t.m.testNetwork({ network: named }) : named;
}

const isZero = (decimal: string) => /^0(\.0*)?$/.test(decimal);

/** What the page says of a payment: the options to pick, a lapsed quote, or its status. */
type PageState = PaymentStatus | 'choose' | 'quote';

function pageState(view: CheckoutView, now: Date): PageState {
  if (view.status === 'pending' && view.chain === null) return 'choose';
  if (
    view.status === 'pending' &&
    view.quote_expires_at !== null &&
    Date.parse(view.quote_expires_at) <= now.getTime() &&
    Date.parse(view.expires_at) > now.getTime()
  ) {
    return 'quote';
  }
  return view.status;
}

interface Ctx {
  t: Translator;
  view: CheckoutView;
  now: Date;
  /** `?locale=xx` when the payer chose the language, for the page's own links and forms. */
  suffix: string;
}

/** An amount of an asset: localised digits, the code beside it, kept left-to-right in a right-to-left page. */
function native(ctx: Ctx, amount: string, code: string): string {
  return `<bdi class="money" dir="ltr"><span class="num">${escapeHtml(ctx.t.decimal(amount))}</span>&nbsp;<span class="code">${escapeHtml(code)}</span></bdi>`;
}

function fiat(ctx: Ctx, amount: string, currency: string): string {
  return `<bdi class="money"><span class="num">${escapeHtml(ctx.t.money(amount, currency))}</span></bdi>`;
}

function copyButton(value: string, label: string, copyLabel: string): string {
  return `<button type="button" class="copy js-only" data-copy="${escapeHtml(value)}" aria-label="${escapeHtml(label)}"><svg aria-hidden="true" viewBox="0 0 16 16"><path d="M5 5V2.5A1.5 1.5 0 0 1 6.5 1h7A1.5 1.5 0 0 1 15 2.5v7a1.5 1.5 0 0 1-1.5 1.5H11v2.5A1.5 1.5 0 0 1 9.5 15h-7A1.5 1.5 0 0 1 1 13.5v-7A1.5 1.5 0 0 1 2.5 5zm1.5 0h3A1.5 1.5 0 0 1 11 6.5v3h2.5v-7h-7z"/></svg><span class="copy-label">${escapeHtml(copyLabel)}</span></button>`;
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

const stateIcon: Record<PageState, string> = {
  choose: icons.wallet,
  pending: icons.wallet,
  quote: icons.clock,
  confirming: icons.spinner,
  completed: icons.check,
  overpaid: icons.check,
  underpaid: icons.alert,
  expired: icons.clock,
};

function countdown(ctx: Ctx, label: string, iso: string, extraClass = ''): string {
  const left = Date.parse(iso) - ctx.now.getTime();
  return `<p class="countdown${extraClass}">${escapeHtml(label)} <time data-countdown datetime="${escapeHtml(iso)}" title="${escapeHtml(ctx.t.m.expiresAt({ time: ctx.t.dateTime(iso) }))}" dir="ltr">${formatRemaining(left)}</time></p>`;
}

function statusHeader(ctx: Ctx, state: PageState): string {
  const { t, view } = ctx;
  const badgeKey = state === 'quote' ? 'pending' : state;
  const statusClass = state === 'quote' ? 'expired' : state === 'choose' ? 'pending' : state;
  const timer =
    state === 'choose' || awaitingFunds.includes(view.status as PaymentStatus)
      ? state === 'quote'
        ? ''
        : countdown(ctx, t.m.timeLeft, view.expires_at)
      : '';
  return `<div class="status status-${statusClass}">
<span class="status-icon">${stateIcon[state]}</span>
<div class="status-text"><p class="badge">${escapeHtml(t.m.badge[badgeKey])}</p>
<h1 id="status-title" tabindex="-1">${escapeHtml(t.m.title[state])}</h1></div>
${timer}
</div>`;
}

function rows(items: Array<[string, string, string?]>): string {
  return `<dl class="rows">${items
    .map(
      ([label, value, cls]) =>
        `<div${cls ? ` class="${cls}"` : ''}><dt>${escapeHtml(label)}</dt><dd>${value}</dd></div>`,
    )
    .join('')}</dl>`;
}

/** Asset, network and amount of a payment whose chain is set (the renderer only calls this then). */
function picked(view: CheckoutView) {
  return {
    asset: view.asset ?? '',
    address: view.address ?? '',
    expected: view.expected_amount_native ?? '0',
    remaining: view.remaining_amount_native ?? '0',
    uri: view.payment_uri ?? '',
  };
}

function fiatLine(ctx: Ctx): string {
  const { view } = ctx;
  return view.currency.toUpperCase() === (view.asset ?? '').toUpperCase()
    ? ''
    : `<p class="fiat">${escapeHtml(ctx.t.m.orderTotal)} ${fiat(ctx, view.amount, view.currency)}</p>`;
}

function networkWarning(ctx: Ctx): string {
  const asset = `<strong>${escapeHtml(ctx.view.asset ?? '')}</strong>`;
  const network = `<strong>${escapeHtml(networkLabel(ctx.view, ctx.t))}</strong>`;
  return `<div class="network"><p class="network-name"><span class="dot" aria-hidden="true"></span>${escapeHtml(ctx.t.m.networkIs)} ${network}</p>
<p class="warning" role="note">${icons.alert}<span>${ctx.t.m.sendOnly({ assetHtml: asset, networkHtml: network })}</span></p></div>`;
}

/** Amount to send, QR and deposit address first (what a phone must show without scrolling), then the network. */
function payBlock(ctx: Ctx, qr: string): string {
  const { t, view } = ctx;
  const p = picked(view);
  const due = view.status === 'underpaid' ? p.remaining : p.expected;
  const uri = walletSchemes.test(p.uri) ? p.uri : null;
  const quote =
    view.quote_expires_at !== null && view.status === 'pending'
      ? countdown(ctx, t.m.rateLockedFor, view.quote_expires_at, ' quote')
      : '';
  return `<section class="pay" aria-labelledby="amount-label">
<p class="label" id="amount-label">${escapeHtml(view.status === 'underpaid' ? t.m.sendRemaining : t.m.sendExactly)}</p>
<div class="amount-line"><p class="amount" data-testid="amount">${native(ctx, due, p.asset)}</p>${copyButton(due, t.m.copyAmount, t.m.copy)}</div>
${view.status === 'underpaid' ? '' : fiatLine(ctx)}
${quote}
<div class="deposit">
<figure class="qr">${qr}<figcaption>${escapeHtml(t.m.scanWithWallet)}</figcaption></figure>
<div class="address-block">
<p class="label" id="address-label">${escapeHtml(t.m.depositAddress)}</p>
<p class="address" data-testid="address" aria-labelledby="address-label" dir="ltr">${escapeHtml(p.address)}</p>
${copyButton(p.address, t.m.copyAddress, t.m.copy)}
${uri === null ? '' : `<a class="button secondary wallet-link" href="${escapeHtml(uri)}">${icons.wallet}${escapeHtml(t.m.openInWallet)}</a>`}
</div>
</div>
${networkWarning(ctx)}
</section>`;
}

function confirmationsBlock(ctx: Ctx): string {
  const { seen, required } = ctx.view.confirmations;
  const shown = Math.min(seen, required);
  const count = ctx.t.m.countOf({
    seen: ctx.t.decimal(String(shown)),
    required: ctx.t.decimal(String(required)),
  });
  return `<section class="progress" aria-labelledby="conf-label">
<p class="label" id="conf-label">${escapeHtml(ctx.t.m.confirmations)}</p>
<progress max="${required}" value="${shown}" aria-labelledby="conf-label conf-text">${escapeHtml(count)}</progress>
<p class="conf-text" id="conf-text" data-testid="confirmations">${ctx.t.m.confirmationsOn({
    countHtml: `<strong>${escapeHtml(count)}</strong>`,
    networkHtml: escapeHtml(networkLabel(ctx.view, ctx.t)),
  })}</p>
</section>`;
}

/** The pairs the payer may pick from, grouped by asset, each a submit button of one form (works without JavaScript). */
function chooseBlock(ctx: Ctx): string {
  const { t, view } = ctx;
  const groups = new Map<string, CheckoutView['options']>();
  for (const option of view.options) {
    const list = groups.get(option.asset) ?? [];
    list.push(option);
    groups.set(option.asset, list);
  }
  const sections = [...groups.entries()]
    .map(([asset, options]) => {
      const id = `opt-${escapeHtml(asset.toLowerCase())}`;
      const buttons = options
        .map((option) => {
          const network = networkLabel({ ...option, is_test: view.is_test }, t);
          return `<li><button type="submit" name="option" value="${escapeHtml(`${option.chain}:${option.asset}`)}" class="option"><span class="option-network">${escapeHtml(network)}</span><span class="option-amount">${native(ctx, option.amount_native, option.asset)}</span></button></li>`;
        })
        .join('');
      return `<section class="option-group" aria-labelledby="${id}"><h2 id="${id}">${escapeHtml(options[0]?.asset_name ?? asset)} <span class="code">${escapeHtml(asset)}</span></h2><ul>${buttons}</ul></section>`;
    })
    .join('\n');
  return `<p class="fiat total">${escapeHtml(t.m.orderTotal)} ${fiat(ctx, view.amount, view.currency)}</p>
<form class="choose" method="post" action="/pay/${escapeHtml(view.payment_id)}/select${ctx.suffix}">
${sections}
</form>
<p class="hint">${escapeHtml(t.m.pickFinal)}</p>`;
}

function quoteBlock(ctx: Ctx): string {
  const { t, view } = ctx;
  const p = picked(view);
  return `<p class="lead">${escapeHtml(t.m.lead.quote)}</p>
<form class="requote" method="post" action="/pay/${escapeHtml(view.payment_id)}/select${ctx.suffix}">
<button type="submit" name="option" value="${escapeHtml(`${view.chain}:${p.asset}`)}" class="button primary block">${escapeHtml(t.m.newQuote)}</button>
</form>
${rows([
  [t.m.orderTotal, fiat(ctx, view.amount, view.currency)],
  [t.m.network, escapeHtml(networkLabel(view, t))],
])}`;
}

function body(ctx: Ctx, state: PageState, qr: string): string {
  const { t, view } = ctx;
  const p = picked(view);
  const network = escapeHtml(networkLabel(view, t));
  switch (state) {
    case 'choose':
      return `<p class="lead">${escapeHtml(t.m.lead.choose)}</p>
${chooseBlock(ctx)}`;
    case 'quote':
      return quoteBlock(ctx);
    case 'pending':
      return `<p class="lead">${escapeHtml(t.m.lead.pending)}</p>
${payBlock(ctx, qr)}`;
    case 'underpaid':
      return `<p class="lead">${escapeHtml(t.m.lead.underpaid)}</p>
${rows([
  [t.m.requested, native(ctx, p.expected, p.asset)],
  [t.m.received, native(ctx, view.received_amount_native, p.asset), 'received'],
  [t.m.remaining, `<strong>${native(ctx, p.remaining, p.asset)}</strong>`, 'remaining'],
])}
${payBlock(ctx, qr)}`;
    case 'confirming':
      return `<p class="lead">${t.m.lead.confirming({ networkHtml: network, required: view.confirmations.required })}</p>
${confirmationsBlock(ctx)}
${rows([
  [t.m.amount, native(ctx, p.expected, p.asset)],
  ...(isZero(view.received_amount_native)
    ? []
    : ([[t.m.confirmedSoFar, native(ctx, view.received_amount_native, p.asset)]] as Array<[string, string]>)),
  [t.m.network, network],
])}`;
    case 'completed':
      return `<p class="lead">${t.m.lead.completed({ networkHtml: network })}</p>
${rows([
  [t.m.amountPaid, native(ctx, view.received_amount_native, p.asset)],
  ...(view.currency.toUpperCase() === p.asset.toUpperCase()
    ? []
    : ([[t.m.value, fiat(ctx, view.amount, view.currency)]] as Array<[string, string]>)),
  [t.m.network, network],
])}`;
    case 'overpaid':
      return `<p class="lead">${escapeHtml(t.m.lead.overpaid)}</p>
${rows([
  [t.m.requested, native(ctx, p.expected, p.asset)],
  [t.m.received, `<strong>${native(ctx, view.received_amount_native, p.asset)}</strong>`],
  [t.m.network, network],
])}`;
    case 'expired': {
      const received = !isZero(view.received_amount_native) && view.chain !== null;
      return `<p class="lead">${t.m.lead.expired}</p>
${
  received
    ? `<p class="late" data-testid="late-funds">${t.m.lead.expiredLate({ amountHtml: native(ctx, view.received_amount_native, p.asset) })}</p>
${rows([
  [t.m.requested, native(ctx, p.expected, p.asset)],
  [t.m.receivedInTime, native(ctx, view.received_amount_native, p.asset)],
])}`
    : `<p class="help" data-testid="expired-help">${escapeHtml(t.m.lead.expiredSent)}</p>`
}`;
    }
  }
}

function testBanner(ctx: Ctx, state: PageState, notice: RenderOptions['notice']): string {
  const { t, view } = ctx;
  if (!view.is_test) return '';
  // Once a deposit is confirming, ending the window changes nothing on the page (the deposit is honoured). A payment
  // whose payer has not picked has no address to pay yet: only its window can end.
  const canPay = awaitingFunds.includes(view.status) && state !== 'choose' && state !== 'quote';
  const canExpire = awaitingFunds.includes(view.status) && state !== 'choose';
  const buttons: Array<[string, string]> = [
    ...(canPay
      ? ([
          ['paid', view.status === 'underpaid' ? t.m.payTheRest : t.m.payInFull],
          ['underpaid', t.m.underpay],
          ['overpaid', t.m.overpay],
        ] as Array<[string, string]>)
      : []),
    ...(canExpire ? ([['expired', t.m.letItExpire]] as Array<[string, string]>) : []),
  ];
  const form =
    buttons.length === 0
      ? ''
      : `<form class="simulate" method="post" action="/pay/${escapeHtml(view.payment_id)}/simulate${ctx.suffix}" aria-label="${escapeHtml(t.m.simulateLabel)}">
<span class="simulate-label">${escapeHtml(t.m.simulate)}</span>${buttons
          .map(
            ([outcome, label]) =>
              `<button type="submit" name="outcome" value="${outcome}" class="button small">${escapeHtml(label)}</button>`,
          )
          .join('')}
</form>`;
  const message =
    notice === undefined
      ? ''
      : `<p class="notice notice-${notice.kind}" data-testid="test-notice">${escapeHtml(notice.text)}</p>`;
  const text =
    state === 'choose'
      ? t.m.testBannerChoose
      : t.m.testBanner({ networkHtml: escapeHtml(networkLabel(view, t)) });
  return `<aside class="test-banner" aria-labelledby="test-title" data-testid="test-banner">
<p><strong id="test-title">${escapeHtml(t.m.testMode)}</strong> ${text}</p>
${form}
<p class="notice js-message" data-testid="test-message" hidden></p>
${message}
</aside>`;
}

/** Strings the script needs, in the page's language (it has no catalog of its own). */
function scriptMessages(t: Translator): string {
  return escapeHtml(
    JSON.stringify({
      copy: t.m.copy,
      copied: t.m.copied,
      copiedAddress: t.m.copiedAnnounce({ what: t.m.depositAddress }),
      copiedAmount: t.m.copiedAnnounce({ what: t.m.amount }),
      sent: t.m.simulatedSent({ amount: '{amount}', asset: '{asset}' }),
      expired: t.m.simulatedExpired,
      failed: t.m.simulationFailed,
      checkout: t.m.checkout,
    }),
  );
}

/** The stylesheet of a merchant's accent colour (served from this origin: the CSP allows no inline style). */
export function themePath(accent: string | null | undefined): string | null {
  return accent !== null && accent !== undefined && /^#[0-9a-f]{6}$/.test(accent)
    ? `/pay/theme/${accent.slice(1)}.css`
    : null;
}

function head(
  t: Translator,
  title: string,
  assets: PageAssets,
  refreshSeconds: number | null,
  theme: string | null = null,
): string {
  return `<!doctype html>
<html lang="${t.locale}" dir="${t.dir}" class="no-js">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.css}">
${theme === null ? '' : `<link rel="stylesheet" href="${escapeHtml(theme)}">`}
${refreshSeconds === null ? '' : `<noscript><meta http-equiv="refresh" content="${refreshSeconds}"></noscript>`}
<script src="${assets.js}" defer></script>
</head>`;
}

/** The merchant's support contact, when it gave one. */
function supportLine(t: Translator, merchant: CheckoutView['merchant']): string {
  if (merchant === null) return '';
  const email =
    merchant.support_email === null
      ? ''
      : `<a href="mailto:${escapeHtml(merchant.support_email)}">${escapeHtml(t.m.contactEmail({ email: merchant.support_email }))}</a>`;
  const url = safeRedirectUrl(merchant.support_url);
  const page =
    url === null ? '' : `<a href="${escapeHtml(url)}" rel="noreferrer">${escapeHtml(t.m.helpPage)}</a>`;
  if (email === '' && page === '') return '';
  return `<p class="support" data-testid="support">${escapeHtml(t.m.help)} ${[email, page].filter((part) => part !== '').join(' · ')}</p>`;
}

/** The merchant's name and logo at the top of the card, when it set them. */
function brandHeader(merchant: CheckoutView['merchant']): string {
  if (merchant === null || (merchant.name === null && merchant.logo_url === null)) return '';
  const logo =
    merchant.logo_url !== null && /^\/pay\/logos\/[0-9a-f]{64}$/.test(merchant.logo_url)
      ? `<img class="brand-logo" src="${merchant.logo_url}" alt="${merchant.name === null ? 'Logo' : ''}" height="40">`
      : '';
  const name = merchant.name === null ? '' : `<p class="brand-name">${escapeHtml(merchant.name)}</p>`;
  return `<header class="brand" data-testid="brand">${logo}${name}</header>`;
}

/** The footer: the language switch (links to the same page in each language) and who runs the checkout. */
function footer(t: Translator, path: string, merchant: CheckoutView['merchant'] = null): string {
  const links = locales
    .map(
      (locale) =>
        `<li><a href="${escapeHtml(path)}?locale=${locale}" lang="${locale}" hreflang="${locale}"${locale === t.locale ? ' aria-current="true"' : ''}>${escapeHtml(localeNames[locale])}</a></li>`,
    )
    .join('');
  const support = supportLine(t, merchant);
  return `<footer class="foot">${support}<nav class="languages" aria-label="${escapeHtml(t.m.language)}"><ul>${links}</ul></nav>
<p><svg aria-hidden="true" viewBox="0 0 24 24"><path d="M12 1 3 5v6c0 5.5 3.8 10.7 9 12 5.2-1.3 9-6.5 9-12V5zm-1.5 16L6 12.5l1.4-1.4 3.1 3.1 6.1-6.1L18 9.5z"/></svg>${escapeHtml(t.m.poweredBy)}</p></footer>`;
}

/** What the script compares with the public view to know the page is out of date. */
export function fingerprintOf(view: CheckoutView): string {
  return [
    view.status,
    view.chain ?? '',
    view.received_amount_native,
    view.confirmations.seen,
    view.confirmations.required,
    view.expires_at,
    view.quote_expires_at ?? '',
  ].join('|');
}

/** The whole checkout page for one payment. */
export function renderCheckoutPage(view: CheckoutView, options: RenderOptions): string {
  const t = options.t ?? translator('en');
  const ctx: Ctx = {
    t,
    view,
    now: options.now,
    suffix: options.localeQuery === undefined ? '' : `?locale=${options.localeQuery}`,
  };
  const state = pageState(view, options.now);
  const final = finalStatuses.includes(view.status);
  const redirect =
    view.status === 'completed' || view.status === 'overpaid' ? safeRedirectUrl(view.redirect_url) : null;
  const showQr = state === 'pending' || state === 'underpaid';
  const id = escapeHtml(view.payment_id);
  const title = t.m.title[state];
  const announce = state === 'quote' ? t.m.lead.quote : t.m.announce[state];
  const cancel = safeRedirectUrl(view.cancel_url);
  const showCancel =
    cancel !== null &&
    (state === 'choose' || state === 'quote' || state === 'pending' || state === 'expired');
  const paid = view.status === 'completed' || view.status === 'overpaid';
  return `${head(t, `${title} · ${t.m.checkout}`, options.assets, final ? null : 5, themePath(view.merchant?.accent_color))}
<body>
<div id="page" data-payment-id="${id}" data-status="${view.status}" data-state="${state}" data-final="${final}" data-fingerprint="${escapeHtml(fingerprintOf(view))}" data-announce="${escapeHtml(announce)}" data-messages="${scriptMessages(t)}">
${testBanner(ctx, state, options.notice)}
<main class="card" aria-labelledby="status-title">
${brandHeader(view.merchant)}
${statusHeader(ctx, state)}
${body(ctx, state, showQr ? options.qr : '')}
${
  redirect === null
    ? ''
    : `<a class="button primary block" data-testid="redirect" href="${escapeHtml(redirect)}" rel="noreferrer">${escapeHtml(t.m.returnToShop)}<svg class="flip" aria-hidden="true" viewBox="0 0 24 24"><path d="M12 4l-1.4 1.4 5.6 5.6H4v2h12.2l-5.6 5.6L12 20l8-8z"/></svg></a>`
}
${paid ? `<a class="button secondary block" data-testid="receipt-link" href="/pay/${id}/receipt${ctx.suffix}">${escapeHtml(t.m.viewReceipt)}</a>` : ''}
${showCancel ? `<a class="button secondary block" data-testid="cancel" href="${escapeHtml(cancel ?? '')}" rel="noreferrer">${escapeHtml(state === 'expired' ? t.m.returnToShop : t.m.cancelAndReturn)}</a>` : ''}
<p class="payment-id">${escapeHtml(t.m.payment)} <code dir="ltr">${id}</code></p>
</main>
${footer(t, `/pay/${view.payment_id}`, view.merchant)}
</div>
<p id="announce" class="sr-only" role="status" aria-live="polite" aria-atomic="true"></p>
</body>
</html>
`;
}

/** A friendly page for an unknown (404) or malformed (400) payment link. */
export function renderProblemPage(
  kind: 'not_found' | 'invalid',
  assets: PageAssets,
  t: Translator = translator('en'),
): string {
  const m = t.m.problem;
  const title = kind === 'not_found' ? m.notFoundTitle : m.invalidTitle;
  const text = kind === 'not_found' ? m.notFoundText : m.invalidText;
  return `${head(t, `${title} · ${t.m.checkout}`, assets, null)}
<body>
<div id="page">
<main class="card problem" aria-labelledby="status-title">
<div class="status status-expired"><span class="status-icon">${icons.alert}</span>
<div class="status-text"><p class="badge">${escapeHtml(kind === 'not_found' ? m.notFoundBadge : m.invalidBadge)}</p><h1 id="status-title">${escapeHtml(title)}</h1></div></div>
<p class="lead">${escapeHtml(text)}</p>
</main>
</div>
</body>
</html>
`;
}

export interface ReceiptDeposit {
  tx_hash: string;
  amount_native: string;
  explorer_url: string | null;
  final_at: string | null;
}

/** A printable receipt of a paid payment: who was paid, what, when, and each transaction with its explorer link. */
export function renderReceiptPage(
  view: CheckoutView,
  deposits: ReceiptDeposit[],
  options: { assets: PageAssets; t?: Translator; localeQuery?: Locale | undefined },
): string {
  const t = options.t ?? translator('en');
  const ctx: Ctx = {
    t,
    view,
    now: new Date(),
    suffix: options.localeQuery === undefined ? '' : `?locale=${options.localeQuery}`,
  };
  const asset = view.asset ?? '';
  const id = escapeHtml(view.payment_id);
  const paidAt =
    deposits
      .map((deposit) => deposit.final_at)
      .filter((at) => at !== null)
      .sort()
      .at(-1) ?? null;
  const transactions = deposits
    .map(
      (deposit) =>
        `<li><code dir="ltr">${escapeHtml(deposit.tx_hash)}</code> ${native(ctx, deposit.amount_native, asset)}<br>${
          deposit.explorer_url !== null && safeRedirectUrl(deposit.explorer_url) !== null
            ? `<a href="${escapeHtml(deposit.explorer_url)}" rel="noreferrer" data-testid="explorer-link">${escapeHtml(t.m.onExplorer)}</a>`
            : `<span class="muted">${escapeHtml(t.m.simulatedTransaction)}</span>`
        }</li>`,
    )
    .join('');
  return `${head(t, `${t.m.receipt} · ${t.m.checkout}`, options.assets, null, themePath(view.merchant?.accent_color))}
<body>
<div id="page" class="receipt-page">
<main class="card receipt" aria-labelledby="status-title">
${brandHeader(view.merchant)}
<h1 id="status-title">${escapeHtml(t.m.receipt)}</h1>
${rows([
  ...(view.merchant?.name == null
    ? []
    : ([[t.m.paidTo, escapeHtml(view.merchant.name)]] as Array<[string, string]>)),
  [t.m.amountPaid, native(ctx, view.received_amount_native, asset)],
  ...(view.currency.toUpperCase() === asset.toUpperCase()
    ? []
    : ([[t.m.value, fiat(ctx, view.amount, view.currency)]] as Array<[string, string]>)),
  [t.m.network, escapeHtml(networkLabel(view, t))],
  ...(paidAt === null ? [] : ([[t.m.paidAt, escapeHtml(t.dateTime(paidAt))]] as Array<[string, string]>)),
  [t.m.payment, `<code dir="ltr">${id}</code>`],
])}
<section aria-labelledby="tx-title"><h2 id="tx-title" class="label">${escapeHtml(t.m.transaction)}</h2><ul class="transactions" data-testid="transactions">${transactions}</ul></section>
<div class="no-print actions">
<button type="button" class="button primary js-only" data-print>${escapeHtml(t.m.print)}</button>
<a class="button secondary" href="/pay/${id}${ctx.suffix}">${escapeHtml(t.m.backToPayment)}</a>
</div>
</main>
${footer(t, `/pay/${view.payment_id}/receipt`, view.merchant)}
</div>
</body>
</html>
`;
}

/** What a payment link's public page shows: its terms (nothing else of the merchant's but its branding). */
export interface LinkPageView {
  id: string;
  title: string;
  description: string | null;
  amount: string | null;
  currency: string;
  active: boolean;
  isTest: boolean;
  merchant: CheckoutView['merchant'];
}

/** A payment link's page: title, description, the amount (or a field for it), and the button that makes the payment. */
export function renderLinkPage(
  link: LinkPageView,
  options: {
    assets: PageAssets;
    t?: Translator;
    localeQuery?: Locale | undefined;
    error?: { text: string; param: string | undefined };
    entered?: string;
    enteredEmail?: string;
  },
): string {
  const t = options.t ?? translator('en');
  const suffix = options.localeQuery === undefined ? '' : `?locale=${options.localeQuery}`;
  const ctx: Ctx = { t, view: {} as CheckoutView, now: new Date(), suffix };
  const id = escapeHtml(link.id);
  const amountError = options.error?.param === 'amount' ? options.error.text : null;
  const emailError = options.error?.param === 'customer_email' ? options.error.text : null;
  const otherError =
    options.error !== undefined && amountError === null && emailError === null ? options.error.text : null;
  // The payer's email, for their receipt and any refund link (optional).
  const email = `<p class="field"><label for="link-email">${escapeHtml(t.m.linkEmail)}</label>
<input id="link-email" name="customer_email" type="email" autocomplete="email" maxlength="254" value="${escapeHtml(options.enteredEmail ?? '')}"${emailError === null ? '' : ' aria-invalid="true" aria-describedby="link-email-error"'}>
${emailError === null ? '' : `<span class="field-error" id="link-email-error">${escapeHtml(emailError)}</span>`}</p>`;
  const amount =
    link.amount === null
      ? `<p class="field"><label for="link-amount">${escapeHtml(t.m.linkAmount({ currency: link.currency }))}</label>
<input id="link-amount" name="amount" inputmode="decimal" autocomplete="off" required value="${escapeHtml(options.entered ?? '')}"${amountError === null ? '' : ' aria-invalid="true" aria-describedby="link-amount-error"'}>
${amountError === null ? '' : `<span class="field-error" id="link-amount-error">${escapeHtml(amountError)}</span>`}</p>`
      : `<p class="amount link-amount" data-testid="link-amount">${fiat(ctx, link.amount, link.currency)}</p>`;
  const body = link.active
    ? `${link.description === null ? '' : `<p class="lead">${escapeHtml(link.description)}</p>`}
<form class="link-form" method="post" action="/l/${id}${suffix}">
${amount}
${email}
${otherError === null ? '' : `<p class="notice notice-error" role="alert">${escapeHtml(otherError)}</p>`}
<button type="submit" class="button primary block">${escapeHtml(t.m.continueToPayment)}</button>
</form>`
    : `<p class="lead" data-testid="link-closed">${escapeHtml(t.m.linkInactiveText)}</p>`;
  return `${head(t, `${link.active ? link.title : t.m.linkInactiveTitle} · ${t.m.checkout}`, options.assets, null, themePath(link.merchant?.accent_color))}
<body>
<div id="page" class="link-page">
${link.isTest ? `<aside class="test-banner" aria-label="${escapeHtml(t.m.testMode)}"><p><strong>${escapeHtml(t.m.testMode)}</strong> ${escapeHtml(t.m.testBannerChoose)}</p></aside>` : ''}
<main class="card" aria-labelledby="status-title">
${brandHeader(link.merchant)}
<h1 id="status-title">${escapeHtml(link.active ? link.title : t.m.linkInactiveTitle)}</h1>
${body}
</main>
${footer(t, `/l/${link.id}`, link.merchant)}
</div>
</body>
</html>
`;
}
