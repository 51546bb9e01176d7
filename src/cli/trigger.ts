/**
 * `svc trigger <event>`: a test payment driven through the simulator to the outcome that produces that event, then
 * waits until the event exists and prints it. payment.completed comes after payment.confirmed, once the simulated
 * sweep is final.
 */
import type { Event, Svc } from '../../packages/sdk/src/index.ts';

export const triggerable = {
  'payment.confirmed': 'paid',
  'payment.completed': 'paid',
  'payment.underpaid': 'underpaid',
  'payment.overpaid': 'overpaid',
  'payment.expired': 'expired',
} as const;
export type TriggerableEvent = keyof typeof triggerable;

export function isTriggerable(value: string): value is TriggerableEvent {
  return Object.hasOwn(triggerable, value);
}

export async function trigger(
  svc: Svc,
  type: TriggerableEvent,
  options: { chain: string; amount: string; currency: string; timeoutMs: number },
): Promise<Event> {
  if (svc.mode !== 'test')
    throw new Error('svc trigger works with a test key only (svc_test_…): no real funds move.');
  const payment = await svc.payments.create({
    amount: options.amount,
    currency: options.currency,
    chain: options.chain,
    metadata: { created_by: 'svc trigger', event: type },
  });
  await svc.payments.simulate(payment.payment_id, { outcome: triggerable[type] });
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const [event] = await svc.events.list({ payment_id: payment.payment_id, type, limit: 1 }).toArray(1);
    if (event !== undefined) return event;
    if (Date.now() > deadline) {
      throw new Error(
        `${type} of payment ${payment.payment_id} did not happen within ${options.timeoutMs} ms`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
