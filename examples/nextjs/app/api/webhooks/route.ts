// A webhook receiver as a Next.js App Router route handler (app/api/webhooks/route.ts) with the SDK's verify. It
// reads the raw body itself (request.arrayBuffer(), never request.json()): verify needs the bytes svc signed.
import { type WebhookEvent, WebhookVerificationError, webhooks } from 'svc-sdk';

/** Where the events go; replace with your own (the same event may come twice: key on the webhook-id). */
export const handlers = {
  onEvent: async (event: WebhookEvent, id: string | null): Promise<void> => {
    console.log(id, event.event);
  },
};

export async function POST(request: Request): Promise<Response> {
  const secret = process.env.SVC_WEBHOOK_SECRET;
  if (secret === undefined) return Response.json({ error: 'SVC_WEBHOOK_SECRET is not set' }, { status: 500 });
  let event: WebhookEvent;
  try {
    event = await webhooks.verify(new Uint8Array(await request.arrayBuffer()), request.headers, secret);
  } catch (error) {
    if (error instanceof WebhookVerificationError)
      return Response.json({ error: error.reason }, { status: 400 });
    throw error;
  }
  await handlers.onEvent(event, request.headers.get('webhook-id'));
  return Response.json({ received: true });
}
