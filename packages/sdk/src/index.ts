export {
  type Chain,
  type CreateOptions,
  type CreatePaymentParams,
  type CreateWebhookEndpointParams,
  type Event,
  type EventType,
  type ListDeliveriesParams,
  type ListEventsParams,
  type ListPaymentsParams,
  PageIterator,
  type Payment,
  type PaymentDetail,
  type RequestOptions,
  type RotatedWebhookSecret,
  type SimulatedPayment,
  type SimulatePaymentParams,
  type StreamedEvent,
  type StreamOptions,
  Svc,
  type SvcOptions,
  type UpdateWebhookEndpointParams,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
} from './client.ts';
export { type ApiErrorCode, SvcError, type SvcErrorCode } from './errors.ts';
export type { components, operations, paths } from './openapi.ts';
export { createServerSentEventParser, type ServerSentEvent } from './sse.ts';
export * as webhooks from './webhooks.ts';
export {
  type HeadersLike,
  type VerifyOptions,
  type WebhookEvent,
  WebhookVerificationError,
  type WebhookVerificationReason,
} from './webhooks.ts';
