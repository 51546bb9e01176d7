/**
 * The receivers in examples/ (Express, a Next.js route handler) take real deliveries of the real program: each accepts
 * them and hands the event on, and refuses one tampered with or signed with another secret.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookApp } from '../examples/express-webhooks.ts';
import { handlers, POST } from '../examples/nextjs/app/api/webhooks/route.ts';
import { Svc, type WebhookEvent, webhooks } from '../packages/sdk/src/index.ts';
import { freePort } from './support/net.ts';
import { type ServedProgram, signUpMerchant, startServe, stopProgram } from './support/program.ts';
import { type ReceivedRequest, type Receiver, startReceiver, waitFor } from './support/webhooks.ts';

let program: ServedProgram;
let svc: Svc;
let capture: Receiver;

beforeAll(async () => {
  const port = await freePort();
  program = await startServe({ port, dataDirPrefix: 'svc-examples-', env: {} });
  const base = `http://127.0.0.1:${port}`;
  svc = new Svc({ apiKey: (await signUpMerchant(base, 'examples')).testKey, baseUrl: base });
  capture = await startReceiver();
}, 90_000);

afterAll(async () => {
  await capture?.close();
  await stopProgram(program?.process);
});

/** A real delivery of the real program (a signed sample event) as it reached a receiver, and the endpoint's secret. */
async function delivered(url: string, received: () => ReceivedRequest | undefined) {
  const endpoint = await svc.webhookEndpoints.create({ url });
  const test = await svc.webhookEndpoints.sendTest(endpoint.id, { event: 'payment.underpaid' });
  const request = await waitFor('the delivery', received, 20_000);
  await svc.webhookEndpoints.delete(endpoint.id);
  return { secret: endpoint.signing_secret, eventId: test.event.id, request };
}

describe('examples/express-webhooks.mjs', () => {
  it('accepts a real delivery and refuses it tampered or under another secret', async () => {
    const events: Array<{ event: WebhookEvent; id: string | undefined }> = [];
    let secret = 'whsec_AAAA';
    const app = createWebhookApp({
      get secret() {
        return secret;
      },
      onEvent: (event: WebhookEvent, id: string | undefined) => {
        events.push({ event, id });
      },
    });
    // The secret is known only once the endpoint exists: the app reads it at each request.
    const server: Server = await new Promise((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
      const endpoint = await svc.webhookEndpoints.create({ url });
      secret = endpoint.signing_secret;
      const test = await svc.webhookEndpoints.sendTest(endpoint.id, { event: 'payment.confirmed' });
      await waitFor('the event handed on', () => events.length === 1, 20_000);
      expect(events[0]).toMatchObject({
        id: test.event.id,
        event: { event: 'payment.confirmed', is_test: true },
      });
      const [delivery] = await svc.webhookEndpoints.listDeliveries(endpoint.id).toArray();
      expect(delivery).toMatchObject({ status: 'succeeded', last_status_code: 200 });

      // The same delivery, replayed by hand: its body altered, then its signature under another secret.
      const headers = await webhooks.sign({
        id: test.event.id,
        body: JSON.stringify(test.event.payload),
        secrets: secret,
      });
      const tampered = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify({ ...test.event.payload, amount: 1999 }),
      });
      expect(tampered.status).toBe(400);
      expect(await tampered.json()).toEqual({ error: 'invalid_signature' });
      const foreign = await webhooks.sign({
        id: test.event.id,
        body: JSON.stringify(test.event.payload),
        secrets: webhooks.generateSecret(),
      });
      const refused = await fetch(url, {
        method: 'POST',
        headers: foreign,
        body: JSON.stringify(test.event.payload),
      });
      expect(refused.status).toBe(400);
      expect(events).toHaveLength(1);
      await svc.webhookEndpoints.delete(endpoint.id);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);
});

describe('examples/nextjs/app/api/webhooks/route.ts', () => {
  it('accepts a real delivery as Next hands it over (a Request) and refuses it tampered or stale', async () => {
    const { secret, eventId, request } = await delivered(capture.url, () => capture.requests[0]);
    const seen: Array<{ event: WebhookEvent; id: string | null }> = [];
    handlers.onEvent = async (event, id) => {
      seen.push({ event, id });
    };
    process.env.SVC_WEBHOOK_SECRET = secret;
    const asNextGivesIt = (body: Buffer | string, headers = request.headers) =>
      new Request('http://localhost:3000/api/webhooks', {
        method: 'POST',
        headers: Object.entries(headers).flatMap(([name, value]) =>
          typeof value === 'string' ? [[name, value] as [string, string]] : [],
        ),
        body,
      });
    const accepted = await POST(asNextGivesIt(request.body));
    expect(accepted.status).toBe(200);
    expect(seen).toEqual([{ id: eventId, event: JSON.parse(request.body.toString('utf8')) }]);
    expect(seen[0]?.event.event).toBe('payment.underpaid');

    const tampered = await POST(
      asNextGivesIt(request.body.toString('utf8').replace('underpaid', 'completed')),
    );
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toEqual({ error: 'invalid_signature' });
    const stale = await POST(
      asNextGivesIt(request.body, {
        ...request.headers,
        'webhook-timestamp': String(Number(request.headers['webhook-timestamp']) - 3600),
      }),
    );
    expect(stale.status).toBe(400);
    expect(await stale.json()).toEqual({ error: 'stale_timestamp' });
    process.env.SVC_WEBHOOK_SECRET = webhooks.generateSecret();
    expect((await POST(asNextGivesIt(request.body))).status).toBe(400);
    expect(seen).toHaveLength(1);
    delete process.env.SVC_WEBHOOK_SECRET;
  }, 60_000);
});
