import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { deliveryHeaders, serviceSignature, standardSignature, standardWebhooksKey } from './signing.ts';

describe('webhook signatures', () => {
  it('matches the published Standard Webhooks test vector', () => {
    expect(
      standardSignature(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('keys the Standard Webhooks HMAC with the decoded secret and the seed HMAC with the secret string', () => {
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    expect(standardWebhooksKey(secret)).toEqual(Buffer.alloc(32, 7));
    expect(serviceSignature(secret, '{"a":1}')).toBe(
      `sha256=${createHmac('sha256', Buffer.from(secret, 'utf8')).update('{"a":1}').digest('hex')}`,
    );
    expect(() => standardWebhooksKey('plain')).toThrow(/whsec_/);
  });

  it('builds every header from one instant, with one signature per live secret', () => {
    const current = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
    const previous = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;
    const at = new Date('2026-05-06T07:08:09.123Z');
    const body = '{"event":"payment.confirmed"}';
    const headers = deliveryHeaders({ eventId: 'evt_1', body, secrets: [current, previous], at });
    expect(headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'svc-webhooks/1',
      'x-service-event-id': 'evt_1',
      'x-service-timestamp': '2026-05-06T07:08:09.123Z',
      'x-service-signature': serviceSignature(current, body),
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1778051289',
      'webhook-signature': `${standardSignature(current, 'evt_1', 1778051289, body)} ${standardSignature(previous, 'evt_1', 1778051289, body)}`,
    });
    expect(() => deliveryHeaders({ eventId: 'evt_1', body, secrets: [], at })).toThrow();
  });
});
