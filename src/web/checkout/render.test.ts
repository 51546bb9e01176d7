import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { CheckoutView } from '../../modules/payments/schemas.ts';
import { paymentStatuses } from '../../modules/payments/statuses.ts';
import { translator } from './i18n/index.ts';
import { qrSvg } from './qr.ts';
import {
  escapeHtml,
  fingerprintOf,
  formatRemaining,
  networkLabel,
  renderCheckoutPage,
  renderReceiptPage,
  safeRedirectUrl,
  themePath,
} from './render.ts';

const assets = { css: '/pay/assets/checkout.abc.css', js: '/pay/assets/checkout.abc.js' };
const now = new Date('2026-01-01T12:00:00.000Z');

function view(overrides: Partial<CheckoutView> = {}): CheckoutView {
  return {
    payment_id: '01940000-0000-7000-8000-000000000001',
    status: 'pending',
    amount: '25.00',
    currency: 'USD',
    chain: 'ethereum',
    chain_name: 'Ethereum',
    network: 'Sepolia',
    asset: 'ETH',
    asset_decimals: 18,
    address: '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
    expected_amount_native: '0.0083',
    received_amount_native: '0',
    remaining_amount_native: '0.0083',
    payment_uri: 'ethereum:0x9858EfFD232B4033E47d90003D41EC34EcaEda94@11155111?value=8300000000000000',
    chosen_by: 'merchant',
    selected_at: null,
    quote_expires_at: null,
    options: [],
    expires_at: '2026-01-01T12:29:41.000Z',
    confirmations: { seen: 0, required: 3 },
    is_test: true,
    redirect_url: null,
    cancel_url: null,
    merchant: null,
    tx_hash: null,
    locale: null,
    ...overrides,
  };
}

const render = (v: CheckoutView, qr = '<svg class="qr-code"></svg>') =>
  renderCheckoutPage(v, { assets, now, qr });

/** Text content of the page, roughly: tags removed, entities kept (but &nbsp; as a space). */
const text = (html: string) =>
  html
    .replace(/<[^>]*>/g, ' ')
    .replaceAll('&nbsp;', ' ')
    .replace(/\s+/g, ' ');

describe('checkout page rendering', () => {
  it('shows the amount, network warning, address, QR and countdown while a payment is pending', async () => {
    const v = view();
    const html = render(v, await qrSvg(v.payment_uri ?? '', 'QR code'));
    expect(html).toContain('Send your payment');
    expect(text(html)).toContain('0.0083 ETH');
    expect(text(html)).toContain('Order total $25.00');
    expect(html).toContain('data-copy="0.0083"');
    expect(html).toContain(`data-copy="${v.address}"`);
    expect(text(html)).toContain('Send only ETH on Ethereum Sepolia test network');
    expect(html).toMatch(/<svg class="qr-code" role="img" aria-label="QR code"[^>]*viewBox=/);
    expect(html).toContain(`href="${v.payment_uri}"`);
    expect(html).toContain('datetime="2026-01-01T12:29:41.000Z"');
    expect(html).toContain('>29:41</time>');
    // Without JavaScript it refreshes itself while the payment is open.
    expect(html).toContain('<noscript><meta http-equiv="refresh" content="5"></noscript>');
    expect(html).toContain('role="status" aria-live="polite"');
    // Test mode: the banner with every outcome.
    expect(text(html)).toContain('Test mode — no real funds move');
    for (const outcome of ['paid', 'underpaid', 'overpaid', 'expired']) {
      expect(html).toContain(`name="outcome" value="${outcome}"`);
    }
  });

  it('has a distinct page for every status', () => {
    const titles = new Set<string>();
    for (const status of paymentStatuses) {
      const html = render(
        view({
          status,
          received_amount_native: status === 'pending' ? '0' : '0.004',
          remaining_amount_native: '0.0043',
          confirmations: { seen: 1, required: 3 },
        }),
      );
      const title = /<h1[^>]*>([^<]+)<\/h1>/.exec(html)?.[1];
      expect(title).toBeDefined();
      titles.add(title ?? '');
      expect(html).toContain(`data-status="${status}"`);
      const final = ['completed', 'overpaid', 'expired'].includes(status);
      expect(html.includes('http-equiv="refresh"')).toBe(!final);
      // The QR and address are only there while funds are due.
      expect(html.includes('class="qr-code"')).toBe(status === 'pending' || status === 'underpaid');
    }
    expect(titles.size).toBe(paymentStatuses.length);
  });

  it('shows received and remaining when underpaid, and confirmations while confirming', () => {
    const under = text(
      render(
        view({ status: 'underpaid', received_amount_native: '0.004', remaining_amount_native: '0.0043' }),
      ),
    );
    expect(under).toContain('Received 0.004 ETH');
    expect(under).toContain('Remaining 0.0043 ETH');
    expect(under).toContain('Send the remaining 0.0043 ETH');
    const confirming = render(view({ status: 'confirming', confirmations: { seen: 2, required: 3 } }));
    expect(confirming).toContain('<progress max="3" value="2"');
    expect(text(confirming)).toContain('2 of 3 confirmations');
  });

  it('offers the redirect after completion only for http(s) addresses', () => {
    const ok = render(view({ status: 'completed', redirect_url: 'https://shop.example/thanks?a=1&b=2' }));
    expect(ok).toContain('href="https://shop.example/thanks?a=1&#38;b=2"');
    expect(ok).toContain('Return to the shop');
    for (const bad of ['javascript:alert(1)', 'data:text/html,hi', 'ftp://x.example/', 'not a url']) {
      const html = render(view({ status: 'completed', redirect_url: bad }));
      expect(html).not.toContain('data-testid="redirect"');
      expect(html).not.toContain(bad.slice(0, 10));
    }
    // Not before completion.
    expect(render(view({ redirect_url: 'https://shop.example/' }))).not.toContain('Return to the shop');
    expect(safeRedirectUrl('HTTPS://Shop.example')).toBe('https://shop.example/');
  });

  it('escapes every dynamic value and links no unknown payment URI scheme', () => {
    const evil = '<img src=x onerror=alert(1)>"\'&';
    const html = render(
      view({
        asset: evil,
        currency: evil,
        amount: evil,
        network: evil,
        chain_name: evil,
        address: evil,
        expected_amount_native: evil,
        expires_at: evil,
        payment_id: evil,
        payment_uri: `javascript:alert(1)//${evil}`,
        status: 'pending',
      }),
    );
    expect(html).not.toContain('<img');
    expect(html).not.toContain(`"'&`);
    expect(html).toContain(escapeHtml(evil));
    expect(html).not.toContain('javascript:');
    for (const status of paymentStatuses) {
      const page = render(
        view({
          status,
          asset: evil,
          network: evil,
          chain_name: evil,
          received_amount_native: evil,
          remaining_amount_native: evil,
          redirect_url: `https://x.example/"><img src=x>`,
        }),
      );
      expect(page).not.toContain('<img');
    }
  });

  it('names the network plainly', () => {
    expect(networkLabel({ network: 'Sepolia', chain_name: 'Ethereum', is_test: true })).toBe(
      'Ethereum Sepolia test network',
    );
    expect(networkLabel({ network: 'OP Sepolia', chain_name: 'OP Mainnet', is_test: true })).toBe(
      'OP Sepolia test network',
    );
    expect(networkLabel({ network: 'Bitcoin Testnet4', chain_name: 'Bitcoin', is_test: true })).toBe(
      'Bitcoin Testnet4',
    );
    expect(networkLabel({ network: 'Ethereum Mainnet', chain_name: 'Ethereum', is_test: false })).toBe(
      'Ethereum Mainnet',
    );
  });

  it('formats the time left', () => {
    expect(formatRemaining(0)).toBe('0:00');
    expect(formatRemaining(-5000)).toBe('0:00');
    expect(formatRemaining(61_900)).toBe('1:01');
    expect(formatRemaining(3_723_000)).toBe('1:02:03');
  });

  it('offers the options of a payment whose payer picks the coin, as one form that works without JavaScript', () => {
    const html = render(
      view({
        chain: null,
        chain_name: null,
        network: null,
        asset: null,
        asset_decimals: null,
        address: null,
        expected_amount_native: null,
        remaining_amount_native: null,
        payment_uri: null,
        chosen_by: 'payer',
        options: [
          {
            chain: 'ethereum',
            chain_name: 'Ethereum',
            network: 'Sepolia',
            asset: 'ETH',
            asset_name: 'Ether',
            amount_native: '0.008334',
          },
          {
            chain: 'base',
            chain_name: 'Base',
            network: 'Base Sepolia',
            asset: 'USDC',
            asset_name: 'USD Coin',
            amount_native: '25',
          },
          {
            chain: 'polygon',
            chain_name: 'Polygon',
            network: 'Amoy',
            asset: 'USDC',
            asset_name: 'USD Coin',
            amount_native: '25',
          },
        ],
      }),
    );
    expect(html).toContain('Choose how to pay');
    expect(html).toContain('data-state="choose"');
    expect(html).toContain(
      '<form class="choose" method="post" action="/pay/01940000-0000-7000-8000-000000000001/select">',
    );
    expect(html).toContain('name="option" value="ethereum:ETH"');
    expect(text(html)).toContain('Polygon Amoy test network 25 USDC');
    expect(text(html)).toContain('0.008334 ETH');
    // Nothing to pay before the pick: no address, no QR, no pay buttons in the test banner.
    expect(html).not.toContain('data-testid="address"');
    expect(html).not.toContain('Pay in full');
  });

  it('asks for a new quote once the rate locked at the pick lapsed, and hides what to pay meanwhile', () => {
    const html = render(
      view({
        chosen_by: 'payer',
        selected_at: '2026-01-01T11:40:00.000Z',
        quote_expires_at: '2026-01-01T11:55:00.000Z',
      }),
    );
    expect(html).toContain('The quoted rate has expired');
    expect(html).toContain('name="option" value="ethereum:ETH"');
    expect(html).toContain('Get a new quote');
    expect(html).not.toContain('data-testid="address"');
    const fresh = render(view({ chosen_by: 'payer', quote_expires_at: '2026-01-01T12:10:00.000Z' }));
    expect(text(fresh)).toContain('Rate locked for 10:00');
    expect(fresh).toContain('data-testid="address"');
  });

  it('tells an expired payment’s payer what to do when funds were sent, and that late funds were received', () => {
    const none = render(view({ status: 'expired' }));
    expect(none).toContain('data-testid="expired-help"');
    expect(text(none)).toContain('Already sent funds?');
    const late = render(view({ status: 'expired', received_amount_native: '0.0083' }));
    expect(text(late)).toContain('We received 0.0083 ETH after the time ran out');
  });

  it('renders every language, Arabic right to left, with the same structure', () => {
    const arabic = renderCheckoutPage(view(), {
      assets,
      now,
      qr: '',
      t: translator('ar'),
      localeQuery: 'ar',
    });
    expect(arabic).toContain('<html lang="ar" dir="rtl"');
    expect(arabic).toContain('أرسل دفعتك');
    expect(arabic).toContain('action="/pay/01940000-0000-7000-8000-000000000001/simulate?locale=ar"');
    // The address and amounts stay left to right inside the right-to-left page.
    expect(arabic).toContain('dir="ltr">0x9858EfFD232B4033E47d90003D41EC34EcaEda94</p>');
    const german = renderCheckoutPage(view({ expected_amount_native: '1234.5' }), {
      assets,
      now,
      qr: '',
      t: translator('de'),
    });
    expect(text(german)).toContain('1.234,5 ETH');
    expect(german).toContain('data-copy="1234.5"');
    expect(german).toContain('href="/pay/01940000-0000-7000-8000-000000000001?locale=zh" lang="zh"');
  });

  it('has the fingerprint the page script computes from the public view', () => {
    const script = readFileSync(new URL('./client/checkout.js', import.meta.url), 'utf8');
    const fields = /const fingerprintOf = \(view\) =>\s*\[([^\]]*)\]/.exec(script)?.[1] ?? '';
    const v = view({ quote_expires_at: '2026-01-01T12:10:00.000Z' });
    const fromScript = new Function('view', `return [${fields}].join('|');`)(v) as string;
    expect(fromScript).toBe(fingerprintOf(v));
  });

  it('renders a printable receipt with each transaction and its explorer link, or none when simulated', () => {
    const paid = view({
      status: 'completed',
      received_amount_native: '0.0083',
      merchant: {
        name: 'Shop',
        logo_url: null,
        accent_color: '#0e7490',
        support_email: null,
        support_url: null,
      },
    });
    const html = renderReceiptPage(
      paid,
      [
        {
          tx_hash: '0xaa',
          amount_native: '0.005',
          explorer_url: 'https://sepolia.etherscan.io/tx/0xaa',
          final_at: '2026-01-01T12:05:00.000Z',
        },
        {
          tx_hash: '0xbb',
          amount_native: '0.0033',
          explorer_url: null,
          final_at: '2026-01-01T12:06:00.000Z',
        },
      ],
      { assets },
    );
    expect(html).toContain('<h1 id="status-title">Receipt</h1>');
    expect(text(html)).toContain('Paid to Shop');
    expect(html).toContain('href="https://sepolia.etherscan.io/tx/0xaa"');
    expect(text(html)).toContain('Simulated on a test chain: no explorer');
    expect(text(html)).toContain('Jan 1, 2026, 12:06 PM UTC');
    expect(html).toContain('data-print');
    expect(html).toContain('<link rel="stylesheet" href="/pay/theme/0e7490.css">');
    expect(themePath('#0E7490')).toBeNull();
    expect(themePath('url(x)')).toBeNull();
  });
});
