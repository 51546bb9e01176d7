import { z } from 'zod';
import { eventTypes } from './payload.ts';

const eventTypeList = z
  .string()
  .max(1000)
  .transform((value, context) => {
    const types = [
      ...new Set(
        value
          .split(',')
          .map((type) => type.trim())
          .filter((type) => type !== ''),
      ),
    ];
    for (const type of types) {
      if (!(eventTypes as readonly string[]).includes(type)) {
        context.addIssue({
          code: 'custom',
          message: `unknown event type ${type}; one of ${eventTypes.join(', ')}`,
        });
        return z.NEVER;
      }
    }
    return types.length === 0 ? undefined : types;
  });

export const streamEventsQuerySchema = z.strictObject({
  types: eventTypeList
    .optional()
    .describe(
      'Comma-separated event types to send (default: every type), e.g. `payment.confirmed,payment.expired`.',
    ),
});

export const streamEventsHeadersSchema = z.object({
  'last-event-id': z
    .string()
    .max(64)
    .optional()
    .describe(
      'The id of the last event received: the stream resumes right after it (EventSource sends it itself).',
    ),
});

export const eventStreamSchema = z
  .string()
  .describe(
    'Server-Sent Events. Each event: `id: evt_…` (send it back as `Last-Event-ID` to resume), `event: <type>`, ' +
      '`data: <the exact JSON body its webhooks carry>`. Comments (`: heartbeat`) keep an idle stream open.',
  );
