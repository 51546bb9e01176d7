import { errorFromResponse, SvcError } from './errors.ts';
import type { components, operations } from './openapi.ts';
import { createServerSentEventParser } from './sse.ts';
import type { WebhookEvent } from './webhooks.ts';

type Schemas = components['schemas'];
type JsonBody<Op> = Op extends { requestBody: { content: { 'application/json': infer B } } }
  ? B
  : Op extends { requestBody?: { content: { 'application/json': infer B } } }
    ? B
    : never;
type Query<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type Payment = Schemas['Payment'];
export type PaymentDetail = Schemas['PaymentDetail'];
type PaymentList = Schemas['PaymentList'];
export type SimulatedPayment = Schemas['SimulatedPayment'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type RotatedWebhookSecret = Schemas['RotatedWebhookSecret'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookTestDelivery = Schemas['WebhookTestDelivery'];
export type Event = Schemas['Event'];
export type EventType = Event['payload']['event'];
export type Chain = Schemas['ChainList']['data'][number];

export type CreatePaymentParams = JsonBody<operations['createPayment']>;
export type ListPaymentsParams = Omit<Query<operations['listPayments']>, 'starting_after' | 'is_test'>;
export type SimulatePaymentParams = JsonBody<operations['simulatePayment']>;
export type CreateWebhookEndpointParams = JsonBody<operations['createWebhookEndpoint']>;
export type UpdateWebhookEndpointParams = JsonBody<operations['updateWebhookEndpoint']>;
export type ListEventsParams = Omit<Query<operations['listEvents']>, 'starting_after' | 'is_test'>;
export type ListDeliveriesParams = Omit<Query<operations['listWebhookDeliveries']>, 'starting_after'>;

export interface SvcOptions {
  /** `svc_test_…` or `svc_live_…`: its mode is the mode of everything the client does. */
  apiKey: string;
  /** Where svc runs (default `http://127.0.0.1:8080`); with or without `/v1`. */
  baseUrl?: string;
  /** Retries of a failed call (network error, 409 in progress, 429, 5xx) before it throws (default 3). */
  maxRetries?: number;
  /** Per attempt (default 30 000 ms). */
  timeoutMs?: number;
  /** Another fetch (tests, instrumentation); the global one by default. */
  fetch?: typeof fetch;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

export interface CreateOptions extends RequestOptions {
  /** Reused on every retry of this call; a fresh random one when unset. */
  idempotencyKey?: string;
}

interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  body?: unknown;
  headers?: Record<string, string>;
  /** Safe to send again after an unknown outcome (reads, updates, deletes, creations with an Idempotency-Key). */
  idempotent: boolean;
  signal?: AbortSignal | undefined;
}

/** Every page of a list, lazily, as an async iterator over the items (`for await`), or page by page. */
export class PageIterator<T> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: (
      cursor: string | undefined,
    ) => Promise<{ items: T[]; next: string | undefined }>,
  ) {}

  async *pages(): AsyncGenerator<T[]> {
    let cursor: string | undefined;
    do {
      const page = await this.fetchPage(cursor);
      yield page.items;
      cursor = page.next;
    } while (cursor !== undefined);
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for await (const page of this.pages()) yield* page;
  }

  /** Every item, up to `max` (default 10 000: a guard against reading a whole history into memory by accident). */
  async toArray(max = 10_000): Promise<T[]> {
    const all: T[] = [];
    for await (const item of this) {
      if (all.length >= max) break;
      all.push(item);
    }
    return all;
  }
}

/** One event from the live stream: its id (resume after it), type, exact body and that body parsed. */
export interface StreamedEvent {
  id: string;
  type: EventType;
  /** The exact JSON text its webhooks carry (sign or verify these bytes). */
  data: string;
  payload: WebhookEvent;
}

export interface StreamOptions {
  /** Only these types (all when unset). */
  types?: readonly EventType[];
  /** Resume right after this event (default: from now on). */
  lastEventId?: string;
  /** Ends the stream. */
  signal?: AbortSignal;
  /** A connection silent this long (no event, no heartbeat) is taken as dead and reopened (default 60 000 ms). */
  idleTimeoutMs?: number;
  /** Told each time the stream (re)connects, and each time it lost its connection and will retry. */
  onConnect?: () => void;
  onDisconnect?: (error: unknown) => void;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });

/** Exponential backoff with jitter: 0.5 s, 1 s, 2 s … at most 8 s, each between half and all of it. */
function backoffMs(attempt: number): number {
  const ceiling = Math.min(8000, 500 * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

/**
 * The svc API, keyed by one API key: payments, webhook endpoints, events and the live event stream. Every call
 * retries what is safe to retry (network errors, `409 idempotency_in_progress`, `429` after its `Retry-After`, and
 * `5xx`) with backoff and jitter, never another `4xx`; creations of payments carry an Idempotency-Key, the same on
 * every retry, so a retry never makes a second payment. Failures throw `SvcError`.
 */
export class Svc {
  readonly mode: 'test' | 'live';
  private readonly base: string;
  private readonly apiKey: string;
  private readonly maxRetries: number;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: SvcOptions) {
    if (!/^svc_(test|live)_/.test(options.apiKey)) {
      throw new TypeError('apiKey must be an svc key (svc_test_… or svc_live_…).');
    }
    this.apiKey = options.apiKey;
    this.mode = options.apiKey.startsWith('svc_test_') ? 'test' : 'live';
    this.base = `${(options.baseUrl ?? 'http://127.0.0.1:8080').replace(/\/+$/, '').replace(/\/v1$/, '')}/v1`;
    this.maxRetries = options.maxRetries ?? 3;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  private url(path: string, query: Call['query']): string {
    const url = new URL(`${this.base}${path}`);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  private async send<T>(call: Call): Promise<T> {
    const url = this.url(call.path, call.query);
    const headers: Record<string, string> = {
      'x-api-key': this.apiKey,
      accept: 'application/json',
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...call.headers,
    };
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    for (let attempt = 0; ; attempt++) {
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const signal = call.signal === undefined ? timeout : AbortSignal.any([call.signal, timeout]);
      let response: Response;
      try {
        response = await this.fetch(url, { method: call.method, headers, body: body ?? null, signal });
      } catch (error) {
        if (call.signal?.aborted) throw error;
        // The outcome is unknown: only a call that is safe to repeat is sent again.
        if (call.idempotent && attempt < this.maxRetries) {
          await sleep(backoffMs(attempt), call.signal);
          continue;
        }
        throw new SvcError({
          code: 'network_error',
          message: `${call.method} ${url}: ${error instanceof Error ? error.message : String(error)}`,
          status: 0,
          cause: error,
        });
      }
      if (response.ok) {
        if (response.status === 204) return undefined as T;
        return (await response.json()) as T;
      }
      const error = await errorFromResponse(response);
      const retryable =
        error.status === 429 ||
        (error.status === 409 && error.code === 'idempotency_in_progress') ||
        (error.status >= 500 && call.idempotent);
      if (!retryable || attempt >= this.maxRetries) throw error;
      const wait =
        error.retryAfterSeconds === undefined
          ? backoffMs(attempt)
          : Math.min(60_000, error.retryAfterSeconds * 1000) + Math.random() * 250;
      await sleep(wait, call.signal);
      if (call.signal?.aborted) throw error;
    }
  }

  readonly payments = {
    /** Creates a payment in the key's mode. Retries reuse one Idempotency-Key: at most one payment results. */
    create: (params: CreatePaymentParams, options: CreateOptions = {}): Promise<Payment> =>
      this.send<Payment>({
        method: 'POST',
        path: '/payments',
        body: params,
        headers: { 'idempotency-key': options.idempotencyKey ?? crypto.randomUUID() },
        idempotent: true,
        signal: options.signal,
      }),
    /** One payment with its deposits and events. */
    retrieve: (paymentId: string, options: RequestOptions = {}): Promise<PaymentDetail> =>
      this.send({
        method: 'GET',
        path: `/payments/${encodeURIComponent(paymentId)}`,
        idempotent: true,
        signal: options.signal,
      }),
    /** Every payment matching `params`, newest first, over all pages. */
    list: (params: ListPaymentsParams = {}, options: RequestOptions = {}): PageIterator<Payment> =>
      new PageIterator(async (cursor) => {
        const page = await this.send<PaymentList>({
          method: 'GET',
          path: '/payments',
          query: { ...params, starting_after: cursor },
          idempotent: true,
          signal: options.signal,
        });
        return { items: page.data, next: page.has_more ? (page.next_cursor ?? undefined) : undefined };
      }),
    /** TEST MODE: simulates the payer (or the end of the window); its events follow as for a real payment. */
    simulate: (
      paymentId: string,
      params: SimulatePaymentParams,
      options: RequestOptions = {},
    ): Promise<SimulatedPayment> =>
      this.send({
        method: 'POST',
        path: `/payments/${encodeURIComponent(paymentId)}/simulate`,
        body: params,
        idempotent: false,
        signal: options.signal,
      }),
  };

  readonly webhookEndpoints = {
    /** Registers an endpoint in the key's mode; `signing_secret` is in this answer only. */
    create: (
      params: CreateWebhookEndpointParams,
      options: RequestOptions = {},
    ): Promise<WebhookEndpointWithSecret> =>
      this.send({
        method: 'POST',
        path: '/webhooks',
        body: params,
        idempotent: false,
        signal: options.signal,
      }),
    retrieve: (id: string, options: RequestOptions = {}): Promise<WebhookEndpoint> =>
      this.send({
        method: 'GET',
        path: `/webhooks/${encodeURIComponent(id)}`,
        idempotent: true,
        signal: options.signal,
      }),
    /** The key's endpoints (one page: a merchant has at most a few). */
    list: (options: RequestOptions = {}): PageIterator<WebhookEndpoint> =>
      new PageIterator(async () => {
        const page = await this.send<Schemas['WebhookEndpointList']>({
          method: 'GET',
          path: '/webhooks',
          idempotent: true,
          signal: options.signal,
        });
        return { items: page.data, next: undefined };
      }),
    update: (
      id: string,
      params: UpdateWebhookEndpointParams,
      options: RequestOptions = {},
    ): Promise<WebhookEndpoint> =>
      this.send({
        method: 'PATCH',
        path: `/webhooks/${encodeURIComponent(id)}`,
        body: params,
        idempotent: true,
        signal: options.signal,
      }),
    delete: (id: string, options: RequestOptions = {}): Promise<void> =>
      this.send({
        method: 'DELETE',
        path: `/webhooks/${encodeURIComponent(id)}`,
        idempotent: true,
        signal: options.signal,
      }),
    /** A new secret; the previous one keeps signing (Standard Webhooks header) for 24 hours. */
    rotateSecret: (id: string, options: RequestOptions = {}): Promise<RotatedWebhookSecret> =>
      this.send({
        method: 'POST',
        path: `/webhooks/${encodeURIComponent(id)}/rotate-secret`,
        idempotent: false,
        signal: options.signal,
      }),
    /** Sends a signed sample event (payment_id all zeros) to this endpoint. */
    sendTest: (
      id: string,
      params: { event?: EventType } = {},
      options: RequestOptions = {},
    ): Promise<WebhookTestDelivery> =>
      this.send({
        method: 'POST',
        path: `/webhooks/${encodeURIComponent(id)}/test`,
        body: params,
        idempotent: false,
        signal: options.signal,
      }),
    /** The endpoint's deliveries, newest first, each with its attempts, over all pages. */
    listDeliveries: (
      id: string,
      params: ListDeliveriesParams = {},
      options: RequestOptions = {},
    ): PageIterator<WebhookDelivery> =>
      new PageIterator(async (cursor) => {
        const page = await this.send<Schemas['WebhookDeliveryList']>({
          method: 'GET',
          path: `/webhooks/${encodeURIComponent(id)}/deliveries`,
          query: { ...params, starting_after: cursor },
          idempotent: true,
          signal: options.signal,
        });
        return { items: page.data, next: page.has_more ? page.data.at(-1)?.id : undefined };
      }),
    /** Sends a delivery's event again as a fresh delivery. */
    redeliver: (deliveryId: string, options: RequestOptions = {}): Promise<WebhookDelivery> =>
      this.send({
        method: 'POST',
        path: `/webhooks/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
        idempotent: false,
        signal: options.signal,
      }),
  };

  readonly events = {
    /** The key's events, newest first, over all pages. */
    list: (params: ListEventsParams = {}, options: RequestOptions = {}): PageIterator<Event> =>
      new PageIterator(async (cursor) => {
        const page = await this.send<Schemas['EventList']>({
          method: 'GET',
          path: '/events',
          query: { ...params, starting_after: cursor },
          idempotent: true,
          signal: options.signal,
        });
        return { items: page.data, next: page.has_more ? page.data.at(-1)?.id : undefined };
      }),
    retrieve: (id: string, options: RequestOptions = {}): Promise<Event> =>
      this.send({
        method: 'GET',
        path: `/events/${encodeURIComponent(id)}`,
        idempotent: true,
        signal: options.signal,
      }),
    /**
     * The live stream of the key's events (GET /v1/events/stream), each once and in order, for as long as it is
     * iterated. A dropped connection is reopened (backoff with jitter) after the last event received, so nothing is
     * lost or repeated; `401`, `404` and other refusals of the first connection throw `SvcError`.
     */
    stream: (options: StreamOptions = {}): AsyncIterable<StreamedEvent> => this.streamEvents(options),
  };

  private async *streamEvents(options: StreamOptions): AsyncGenerator<StreamedEvent> {
    let lastEventId = options.lastEventId;
    let retryMs = 1000;
    let failures = 0;
    let connectedOnce = false;
    const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
    while (!options.signal?.aborted) {
      const controller = new AbortController();
      const stop = () => controller.abort();
      options.signal?.addEventListener('abort', stop, { once: true });
      let idle: ReturnType<typeof setTimeout> | undefined;
      const touch = () => {
        if (idle !== undefined) clearTimeout(idle);
        idle = setTimeout(stop, idleTimeoutMs);
      };
      try {
        const url = this.url('/events/stream', { types: options.types?.join(',') });
        const response = await this.fetch(url, {
          headers: {
            'x-api-key': this.apiKey,
            accept: 'text/event-stream',
            ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }),
          },
          signal: controller.signal,
        });
        if (!response.ok || response.body === null) {
          const error = await errorFromResponse(response);
          // Refusals are final, except a cap reached while the server still counts the connection just lost, and
          // answers that say to come back (429 with Retry-After, 5xx).
          if (error.status < 500 && !(error.status === 429 && connectedOnce)) throw error;
          throw Object.assign(error, { retryable: true });
        }
        connectedOnce = true;
        failures = 0;
        options.onConnect?.();
        touch();
        const queue: StreamedEvent[] = [];
        const parser = createServerSentEventParser({
          onEvent: (event) => {
            if (event.id === undefined) return;
            queue.push({
              id: event.id,
              type: event.event as EventType,
              data: event.data,
              payload: JSON.parse(event.data) as WebhookEvent,
            });
          },
          onRetry: (ms) => {
            retryMs = ms;
          },
        });
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          touch();
          parser.feed(value);
          while (queue.length > 0) {
            const event = queue.shift() as StreamedEvent;
            lastEventId = event.id;
            yield event;
          }
        }
        throw new Error('the event stream ended');
      } catch (error) {
        if (options.signal?.aborted) return;
        if (error instanceof SvcError && !(error as SvcError & { retryable?: boolean }).retryable)
          throw error;
        options.onDisconnect?.(error);
        const wait =
          error instanceof SvcError && error.retryAfterSeconds !== undefined
            ? error.retryAfterSeconds * 1000
            : Math.max(retryMs, backoffMs(failures));
        failures += 1;
        if (!isAbort(error) || !options.signal?.aborted) await sleep(wait, options.signal);
      } finally {
        if (idle !== undefined) clearTimeout(idle);
        options.signal?.removeEventListener('abort', stop);
        controller.abort();
      }
    }
  }

  readonly chains = {
    /** The chains and assets payments can use (public). */
    list: (options: RequestOptions = {}): Promise<Chain[]> =>
      this.send<Schemas['ChainList']>({
        method: 'GET',
        path: '/chains',
        idempotent: true,
        signal: options.signal,
      }).then((list) => list.data),
  };
}
