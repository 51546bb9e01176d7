import { describe, expect, it } from 'vitest';
import { PayloadError, paymentEventBody, samplePayment } from './payload.ts';

const payment = {
  payment_id: '0190f5a2-7c4e-7a31-8f00-5b2c9d1e3f47',
  status: 'completed',
  amount: '0.10',
  currency: 'EUR',
  chain: 'bitcoin',
  tx_hash: 'ab"cd',
  received_amount_native: '0.00000150',
  expected_amount_native: '0.0000015',
  is_test: false,
};

describe('payment event payload', () => {
  it('writes the fields in the seed order, amount as its literal, strings escaped', () => {
    const body = paymentEventBody('payment.overpaid', payment, new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6)));
    expect(body).toBe(
      '{"event":"payment.overpaid","payment_id":"0190f5a2-7c4e-7a31-8f00-5b2c9d1e3f47","status":"completed",' +
        '"amount":0.10,"amount_decimal":"0.10","currency":"EUR","chain":"bitcoin","tx_hash":"ab\\"cd",' +
        '"received_amount_native":"0.00000150",' +
        '"expected_amount_native":"0.0000015","is_test":false,"timestamp":"2026-01-02T03:04:05.006Z"}',
    );
    expect(JSON.parse(body).amount).toBe(0.1);
  });

  it('keeps every digit of the amount in amount_decimal, where the number loses them to a double', () => {
    const amount = '123456789012345678.123456789';
    const parsed = JSON.parse(paymentEventBody('payment.confirmed', { ...payment, amount }, new Date()));
    expect(parsed.amount_decimal).toBe(amount);
    expect(String(parsed.amount)).not.toBe(amount);
  });

  it('sends tx_hash as an empty string, never null, when the payment has no transaction', () => {
    const body = paymentEventBody('payment.expired', { ...payment, tx_hash: null }, new Date());
    expect(body).toContain('"tx_hash":"",');
    expect(JSON.parse(body).tx_hash).toBe('');
  });

  it('refuses what would not be valid JSON or a valid event', () => {
    const at = new Date();
    for (const amount of ['1e5', '-1', 'NaN', '', '1.', '.5', '19,99']) {
      expect(() => paymentEventBody('payment.confirmed', { ...payment, amount }, at)).toThrow(PayloadError);
    }
    expect(() =>
      paymentEventBody('payment.confirmed', { ...payment, received_amount_native: 'lots' }, at),
    ).toThrow(PayloadError);
    expect(() => paymentEventBody('payment.refunded' as 'payment.confirmed', payment, at)).toThrow(
      PayloadError,
    );
    expect(() => paymentEventBody('payment.confirmed', payment, new Date(Number.NaN))).toThrow(PayloadError);
  });

  it('makes samples with the nil payment id', () => {
    expect(samplePayment('payment.expired', true)).toMatchObject({
      payment_id: '00000000-0000-0000-0000-000000000000',
      tx_hash: null,
      is_test: true,
    });
  });
});
