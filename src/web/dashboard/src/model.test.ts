import { describe, expect, it } from 'vitest';
import { ApiError, buildUrl, NetworkError } from './api.ts';
import { explain, genericPath } from './errors.ts';
import { addressUrl, txUrl } from './explorers.ts';
import { formatAmount, groupDigits, relativeTime, shorten, statusLabel } from './format.ts';
import {
  fallbackChains,
  readChains,
  readDelivery,
  readEndpoint,
  readFeeWallets,
  readKeypair,
  readPage,
  readPayment,
  readSweepCosts,
} from './model.ts';

describe('dashboard readers', () => {
  it("reads an endpoint's circuit breaker, and treats an older server's answer as healthy", () => {
    expect(
      readEndpoint({
        id: 'we_1',
        url: 'https://x.example/',
        consecutive_failures: 12,
        tripped_at: '2026-11-25T12:00:00.000Z',
      }),
    ).toMatchObject({ consecutiveFailures: 12, trippedAt: '2026-11-25T12:00:00.000Z' });
    expect(readEndpoint({ id: 'we_1', url: 'https://x.example/' })).toMatchObject({
      consecutiveFailures: 0,
      trippedAt: null,
    });
  });

  it('reads a payment as the API returns it, keeping amounts as exact strings', () => {
    const payment = readPayment({
      payment_id: '01a204b6-7681-7c61-a9db-cd5f6bc68328',
      status: 'underpaid',
      amount: '25',
      currency: 'USD',
      chain: 'ethereum',
      asset: 'ETH',
      address: '0xC8BdbF85dd9d189e644eF5d8a59862841E0AC5A4',
      expected_amount_native: '0.008333333333333334',
      received_amount_native: '0.004',
      remaining_amount_native: '0.004333333333333334',
      tx_hash: null,
      rate: { value: '3000', source: 'test' },
      confirmations: { seen: 3, required: 12 },
      is_test: true,
      order_id: 'order-1',
      customer_email: 'payer@example.com',
      metadata: {},
      redirect_url: null,
      checkout_url: 'http://127.0.0.1:8080/pay/01a204b6-7681-7c61-a9db-cd5f6bc68328',
      created_at: '2026-11-22T19:23:16.000Z',
      expires_at: '2026-11-22T19:53:16.000Z',
      deposits: [
        { tx_hash: '0xabc', amount_native: '0.004', block_number: 120, confirmations: 3, final: false },
      ],
      events: [
        { id: 'evt_1', type: 'payment.underpaid', payment_id: 'x', created_at: '2026-11-22T19:24:00.000Z' },
      ],
    });
    expect(payment).toMatchObject({
      id: '01a204b6-7681-7c61-a9db-cd5f6bc68328',
      expectedNative: '0.008333333333333334',
      remainingNative: '0.004333333333333334',
      rate: '3000',
      confirmations: 3,
      requiredConfirmations: 12,
      orderId: 'order-1',
      customerEmail: 'payer@example.com',
    });
    expect(payment.deposits[0]).toMatchObject({ txHash: '0xabc', blockNumber: '120', state: 'confirming' });
    expect(payment.events[0]).toMatchObject({ id: 'evt_1', type: 'payment.underpaid' });
  });

  it('survives missing and odd fields instead of crashing', () => {
    const payment = readPayment({ deposits: 'nope', events: null, confirmations: 'x' });
    expect(payment).toMatchObject({ id: '', status: 'unknown', amount: null, deposits: [], events: [] });
    expect(readKeypair(null)).toMatchObject({ id: '', revoked: false, test: { prefix: '', last4: '' } });
  });

  it('reads deliveries with every attempt', () => {
    const delivery = readDelivery({
      id: 'del_1',
      event_id: 'evt_1',
      event_type: 'payment.confirmed',
      endpoint_id: 'we_1',
      status: 'failed',
      next_attempt_at: null,
      attempts: [
        {
          attempt: 1,
          started_at: '2026-11-22T19:00:00.000Z',
          duration_ms: 31,
          status_code: 500,
          success: false,
          response_body: 'oops',
          error: null,
        },
        {
          attempt: 2,
          started_at: '2026-11-22T19:01:00.000Z',
          duration_ms: 5000,
          status_code: null,
          success: false,
          response_body: null,
          error: 'timeout after 5000 ms',
        },
      ],
    });
    expect(delivery).toMatchObject({
      id: 'del_1',
      eventType: 'payment.confirmed',
      endpointId: 'we_1',
      status: 'failed',
    });
    expect(delivery.attempts).toEqual([
      {
        number: 1,
        at: '2026-11-22T19:00:00.000Z',
        statusCode: 500,
        durationMs: 31,
        response: 'oops',
        error: null,
        succeeded: false,
      },
      {
        number: 2,
        at: '2026-11-22T19:01:00.000Z',
        statusCode: null,
        durationMs: 5000,
        response: null,
        error: 'timeout after 5000 ms',
        succeeded: false,
      },
    ]);
  });

  it('follows either cursor style to the next page', () => {
    const id = (item: { id: string }) => item.id;
    const read = (value: unknown) => ({ id: String((value as { id: string }).id) });
    expect(readPage({ data: [{ id: 'a' }], has_more: true, next_cursor: 'a' }, read, id).next).toEqual({
      starting_after: 'a',
    });
    expect(readPage({ data: [{ id: 'a' }, { id: 'b' }], has_more: true }, read, id).next).toEqual({
      starting_after: 'b',
    });
    expect(readPage({ data: [{ id: 'a' }], has_more: false, next_cursor: null }, read, id).next).toBeNull();
    expect(readPage({ data: [] }, read, id)).toEqual({ items: [], next: null });
  });

  it('reads the chain list, or falls back to the known chains', () => {
    expect(readChains({ data: [] })).toBe(fallbackChains);
    const chains = readChains({
      data: [
        {
          id: 'base',
          name: 'Base',
          native_asset: 'ETH',
          mainnet: {
            name: 'Base',
            explorer_tx_url: 'https://basescan.org/tx/{tx}',
            explorer_address_url: 'https://basescan.org/address/{address}',
          },
          testnet: {
            name: 'Base Sepolia testnet',
            explorer_tx_url: 'https://sepolia.basescan.org/tx/{tx}',
            explorer_address_url: 'https://sepolia.basescan.org/address/{address}',
          },
          assets: [
            { code: 'ETH', is_native: true },
            { code: 'USDC', is_native: false },
          ],
        },
      ],
    });
    expect(chains).toMatchObject([
      {
        id: 'base',
        name: 'Base',
        assets: ['ETH', 'USDC'],
        nativeAsset: 'ETH',
        test: { name: 'Base Sepolia testnet' },
      },
    ]);
    expect(txUrl('base', true, '0xfeed', chains)).toBe('https://sepolia.basescan.org/tx/0xfeed');
    expect(addressUrl('base', false, '0xBEEF', chains)).toBe('https://basescan.org/address/0xBEEF');
  });
});

describe("operators' views", () => {
  it("reads the fee wallets, Tron's resource wallet with its stake, keeping every amount as the API's exact text", () => {
    const wallets = readFeeWallets({
      data: [
        {
          chain: 'solana',
          is_test: false,
          role: 'pays the network fees of sweeps',
          address: 'So1',
          asset: 'SOL',
          balance_native: '0.004',
          low_below_native: '0.01',
          low: true,
          explorer_address_url: 'https://explorer.solana.com/address/So1',
        },
        {
          chain: 'tron',
          is_test: false,
          role: 'lends staked energy to USDT sweeps',
          address: 'TRes',
          asset: 'TRX',
          balance_native: '12.000001',
          low_below_native: '30',
          low: false,
          explorer_address_url: 'https://tronscan.org/#/address/TRes',
          stake: {
            energy_staked_native: '90071992547409.93',
            energy_lent_native: '7072',
            bandwidth_staked_native: '0',
            bandwidth_lent_native: '0',
            energy_available: '900719925474099300',
            energy_per_sweep: '64285',
            sweeps_covered: 0,
            short: true,
          },
        },
      ],
    });
    expect(wallets[0]).toMatchObject({ chain: 'solana', balance: '0.004', low: true, stake: null });
    expect(wallets[1]).toMatchObject({
      chain: 'tron',
      isTest: false,
      balance: '12.000001',
      stake: {
        energyStaked: '90071992547409.93',
        energyLent: '7072',
        energyAvailable: '900719925474099300',
        energyPerSweep: '64285',
        sweepsCovered: 0,
        short: true,
      },
    });
    expect(wallets[0]?.tokens).toEqual([]);
    const refund = readFeeWallets({
      data: [
        {
          chain: 'ethereum',
          role: 'sends the refunds of swept payments',
          balance_native: '1.5',
          token_balances: [
            { asset: 'USDC', balance_native: '250.000001' },
            { asset: 'USDT', balance_native: null },
          ],
        },
      ],
    })[0];
    expect(refund?.tokens).toEqual([
      { asset: 'USDC', balance: '250.000001' },
      { asset: 'USDT', balance: null },
    ]);
    // Unknown (the node did not answer) is not "no resource wallet": both read as null, the balance says which.
    expect(readFeeWallets({ data: [{ chain: 'tron', stake: null, balance_native: null }] })[0]).toMatchObject(
      {
        stake: null,
        balance: null,
      },
    );
  });

  it("reads a month's sweep costs, fees and energy exact, energy null on chains without it", () => {
    const { month, costs } = readSweepCosts({
      month: '2027-07',
      data: [
        { chain: 'solana', is_test: true, asset: 'SOL', sweeps: 40, fee_native: '0.0004', energy_used: null },
        {
          chain: 'tron',
          is_test: false,
          asset: 'TRX',
          sweeps: 3,
          fee_native: '90071992547.409931',
          energy_used: '9007199254740993',
          energy_delegated: '64285',
        },
      ],
    });
    expect(month).toBe('2027-07');
    // Integers past 2^53 keep every digit: they are never numbers here.
    expect(costs).toEqual([
      {
        chain: 'solana',
        isTest: true,
        asset: 'SOL',
        sweeps: 40,
        fee: '0.0004',
        energyUsed: null,
        energyDelegated: null,
      },
      {
        chain: 'tron',
        isTest: false,
        asset: 'TRX',
        sweeps: 3,
        fee: '90071992547.409931',
        energyUsed: '9007199254740993',
        energyDelegated: '64285',
      },
    ]);
    expect(readSweepCosts({})).toEqual({ month: null, costs: [] });
  });

  it('groups the digits of energy counts without turning them into numbers', () => {
    expect(groupDigits('194570')).toBe('194,570');
    expect(groupDigits('900719925474099300')).toBe('900,719,925,474,099,300');
    expect(groupDigits('64')).toBe('64');
    expect(groupDigits(null)).toBe('—');
    expect(groupDigits('1.5')).toBe('1.5');
  });
});

describe('dashboard errors in plain words', () => {
  const apiError = (status: number, code: string, message = 'm', param?: string) =>
    new ApiError(
      status,
      code,
      message,
      param,
      'req_123',
      '/payments/0193b1c2-0000-7000-8000-000000000000/simulate',
    );

  it('says a missing feature is not available yet, naming the route and not the resource', () => {
    const explained = explain(apiError(404, 'route_not_found'));
    expect(explained.unavailable).toBe(true);
    expect(explained.title).toBe('Not available on this server yet');
    expect(explained.detail).toContain('/payments/{id}/simulate');
    expect(genericPath('/webhooks/we_abc123/deliveries?limit=5')).toBe('/webhooks/{id}/deliveries');
  });

  it('keeps the API message for validation errors and names the field', () => {
    const explained = explain(
      apiError(400, 'parameter_invalid', 'Invalid amount: must be positive.', 'amount'),
    );
    expect(explained).toMatchObject({
      param: 'amount',
      detail: 'Invalid amount: must be positive.',
      reference: 'req_123',
    });
  });

  it('explains network failures, server errors and revoked keys', () => {
    expect(explain(new NetworkError('/me')).title).toBe('Could not reach the service');
    expect(explain(apiError(500, 'internal_error')).title).toBe('Something went wrong on the server');
    expect(explain(apiError(401, 'invalid_api_key')).detail).toContain('revoked');
    expect(explain(apiError(502, 'http_502', 'Bad gateway')).title).toBe('The service had a problem');
  });
});

describe('dashboard formatting', () => {
  it('builds API URLs without empty parameters', () => {
    expect(buildUrl('/payments', { is_test: true, status: undefined, order_id: '', limit: 20 })).toBe(
      '/v1/payments?is_test=true&limit=20',
    );
  });

  it('shows amounts exactly as sent and shortens long values', () => {
    expect(formatAmount('0.008333333333333334', 'ETH')).toBe('0.008333333333333334 ETH');
    expect(formatAmount(null, 'ETH')).toBe('—');
    expect(shorten('0x1234567890abcdef1234567890', 6, 4)).toBe('0x1234…7890');
    expect(shorten('short')).toBe('short');
  });

  it('labels statuses for payments and deliveries', () => {
    expect(statusLabel('pending')).toBe('Awaiting payment');
    expect(statusLabel('pending', 'delivery')).toBe('Pending');
    expect(statusLabel('succeeded', 'delivery')).toBe('Delivered');
    expect(statusLabel('some_new_status')).toBe('Some new status');
  });

  it('says how far away a time is', () => {
    const now = Date.parse('2026-11-22T12:00:00Z');
    expect(relativeTime('2026-11-22T12:30:00Z', now)).toBe('in 30 min');
    expect(relativeTime('2026-11-22T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-11-22T12:00:02Z', now)).toBe('just now');
  });

  it('links live payments to main network explorers and test payments to test network explorers', () => {
    expect(txUrl('ethereum', false, '0xabc')).toBe('https://etherscan.io/tx/0xabc');
    expect(txUrl('ethereum', true, '0xabc')).toBe('https://sepolia.etherscan.io/tx/0xabc');
    expect(txUrl('tron', false, 'abc')).toBe('https://tronscan.org/#/transaction/abc');
    expect(addressUrl('solana', true, 'So1')).toBe('https://explorer.solana.com/address/So1?cluster=devnet');
    expect(txUrl('unknown-chain', false, '0xabc')).toBeNull();
    expect(txUrl('bitcoin', false, null)).toBeNull();
  });
});
