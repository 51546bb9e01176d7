import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Empty, ErrorNotice, Loading, PageHeader, Time } from '../components/ui.tsx';
import { describeEvent, shorten } from '../format.ts';
import { type Page, type PaymentEvent, readEvent, readPage } from '../model.ts';
import { Link } from '../router.tsx';
import { useAction, useApp, useResource } from '../state.tsx';
import { EventDeliveries } from './payment-detail.tsx';

const eventTypes = [
  'payment.confirmed',
  'payment.completed',
  'payment.underpaid',
  'payment.overpaid',
  'payment.expired',
  'payout_wallet.updated',
  'webhook_endpoint.failing',
  'webhook_endpoint.recovered',
];
const sampleId = /^0{8}-0{4}-0{4}-0{4}-0{12}$/;

export function EventsPage() {
  const app = useApp();
  const isTest = app.mode === 'test';
  const [type, setType] = useState('');
  const [pages, setPages] = useState<Page<PaymentEvent>[]>([]);
  const more = useAction();
  const query = { is_test: isTest, type: type === '' ? undefined : type };
  const first = useResource(
    async (isCurrent) => {
      const page = readPage(await api('/events', { query }), readEvent, (event) => event.id);
      if (isCurrent()) setPages([page]);
      return page;
    },
    [isTest, type],
  );
  const events = pages.flatMap((page) => page.items);
  const next = pages.at(-1)?.next ?? null;

  return (
    <section>
      <PageHeader
        title="Events"
        description={`Every status change of your ${isTest ? 'test' : 'live'} payments, newest first, and where each was delivered.`}
      />
      <div class="filters">
        <div class="filter">
          <label for="event-type">Event type</label>
          <select id="event-type" value={type} onChange={(event) => setType(event.currentTarget.value)}>
            <option value="">All events</option>
            {eventTypes.map((value) => (
              <option key={value} value={value}>
                {value}
              </option>
            ))}
          </select>
        </div>
      </div>
      {first.state === 'loading' && <Loading label="Loading events…" />}
      {first.state === 'error' && <ErrorNotice error={first.error} onRetry={() => void first.reload()} />}
      {first.state === 'ready' && events.length === 0 && (
        <Empty title={`No ${isTest ? 'test' : 'live'} events yet`}>
          <p>
            An event is recorded each time a payment is confirmed, underpaid, overpaid, expires or is
            forwarded.
          </p>
        </Empty>
      )}
      {events.length > 0 && (
        <ul class="card-list" data-testid="events">
          {events.map((event) => (
            <li key={event.id} class="card event-card">
              <div class="event-head">
                <div>
                  <p class="timeline-title">
                    {describeEvent(event.type)} <code class="muted small">{event.type}</code>
                  </p>
                  <p class="muted small">
                    <Time iso={event.createdAt} /> · <code>{event.id}</code>
                    {event.paymentId !== null && !sampleId.test(event.paymentId) && (
                      <>
                        {' · payment '}
                        <Link to={`/payments/${encodeURIComponent(event.paymentId)}`}>
                          <code>{shorten(event.paymentId, 8, 4)}</code>
                        </Link>
                      </>
                    )}
                    {event.paymentId !== null && sampleId.test(event.paymentId) && ' · test sample'}
                  </p>
                </div>
              </div>
              <EventDeliveries event={event} />
            </li>
          ))}
        </ul>
      )}
      {next !== null && (
        <button
          type="button"
          class="button button-secondary"
          disabled={more.busy}
          onClick={async () => {
            const page = await more.run(async () =>
              readPage(
                await api('/events', { query: { ...query, ...next } }),
                readEvent,
                (event) => event.id,
              ),
            );
            if (page !== undefined) setPages((current) => [...current, page]);
          }}
        >
          {more.busy ? 'Loading…' : 'Show older events'}
        </button>
      )}
      {more.error !== null && <ErrorNotice error={more.error} compact />}
    </section>
  );
}
