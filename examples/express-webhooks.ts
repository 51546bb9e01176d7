// A webhook receiver for Express 5 with the SDK's verify:
//   SVC_WEBHOOK_SECRET=whsec_… npx tsx examples/express-webhooks.ts   (or node, which strips the types, on Node 24)
// The body must reach verify as the raw bytes svc signed, so this route takes it with express.raw, never express.json.
import express, { type Express } from 'express';
import { type WebhookEvent, WebhookVerificationError, webhooks } from 'svc-sdk';

export interface WebhookAppOptions {
  /** The endpoint's signing secret (`whsec_…`, shown once when it was created); read at each request. */
  readonly secret: string;
  /** Called once a delivery is verified; the same event may come again (retries): `id` (webhook-id) tells. */
  onEvent(event: WebhookEvent, id: string | undefined): void | Promise<void>;
}

/** The app: POST /webhooks verifies each delivery, hands its event to `onEvent`, then acknowledges with 200. */
export function createWebhookApp(options: WebhookAppOptions): Express {
  const app = express();
  app.post(
    '/webhooks',
    express.raw({ type: 'application/json', limit: '1mb' }),
    async (request, response) => {
      let event: WebhookEvent;
      try {
        event = await webhooks.verify(request.body as Buffer, request.headers, options.secret);
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error;
        response.status(400).json({ error: error.reason });
        return;
      }
      await options.onEvent(event, request.get('webhook-id'));
      response.status(200).json({ received: true });
    },
  );
  return app;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const secret = process.env.SVC_WEBHOOK_SECRET;
  if (secret === undefined) throw new Error('Set SVC_WEBHOOK_SECRET to the endpoint signing secret.');
  const port = Number(process.env.PORT ?? 3000);
  createWebhookApp({ secret, onEvent: (event, id) => console.log(id, event.event, event) }).listen(port, () =>
    console.log(`listening on http://localhost:${port}/webhooks`),
  );
}
