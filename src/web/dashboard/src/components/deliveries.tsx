import { api } from '../api.ts';
import { describeEvent } from '../format.ts';
import type { Delivery } from '../model.ts';
import { Link } from '../router.tsx';
import { useAction, useApp } from '../state.tsx';
import { ErrorNotice, StatusBadge, Time } from './ui.tsx';

function AttemptsTable({ delivery }: { delivery: Delivery }) {
  if (delivery.attempts.length === 0) {
    return <p class="muted">No attempt yet: the first one is made within seconds.</p>;
  }
  return (
    <div class="table-wrap">
      <table class="table table-compact">
        <caption class="visually-hidden">Attempts of delivery {delivery.id}</caption>
        <thead>
          <tr>
            <th scope="col">Attempt</th>
            <th scope="col">Time</th>
            <th scope="col">Status code</th>
            <th scope="col">Took</th>
            <th scope="col">Response</th>
          </tr>
        </thead>
        <tbody>
          {delivery.attempts.map((attempt) => (
            <tr key={attempt.number}>
              <td>#{attempt.number}</td>
              <td>
                <Time iso={attempt.at} />
              </td>
              <td>
                {attempt.statusCode !== null ? (
                  <span class={`badge badge-${attempt.succeeded ? 'good' : 'bad'}`}>
                    {attempt.statusCode}
                  </span>
                ) : (
                  <span class="badge badge-bad">No answer</span>
                )}
              </td>
              <td>{attempt.durationMs === null ? '—' : `${attempt.durationMs} ms`}</td>
              <td class="cell-response">
                {attempt.error !== null && <p class="text-bad">{attempt.error}</p>}
                {attempt.response !== null && attempt.response !== '' ? (
                  <pre class="response">{attempt.response}</pre>
                ) : (
                  attempt.error === null && (
                    <span class="muted">
                      {attempt.response === null ? 'Body not kept (private network target)' : 'Empty body'}
                    </span>
                  )
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RedeliverButton({ delivery, onDone }: { delivery: Delivery; onDone: () => void }) {
  const app = useApp();
  const action = useAction();
  return (
    <div class="inline-action">
      <button
        type="button"
        class="button button-small button-secondary"
        disabled={action.busy}
        onClick={async () => {
          const done = await action.run(async () => {
            await api(`/webhooks/deliveries/${encodeURIComponent(delivery.id)}/redeliver`, {
              method: 'POST',
            });
            return true;
          });
          if (done) {
            app.notify('Sent again as a new delivery. It appears in the list in a moment.');
            onDone();
          }
        }}
      >
        {action.busy ? 'Sending…' : 'Redeliver'}
      </button>
      {action.error !== null && <ErrorNotice error={action.error} compact />}
    </div>
  );
}

/** Deliveries with every attempt: status code, time, duration and the start of the response. */
export function DeliveryList({
  deliveries,
  onChanged,
  showEndpoint = false,
}: {
  deliveries: Delivery[];
  onChanged: () => void;
  showEndpoint?: boolean;
}) {
  return (
    <ul class="deliveries" data-testid="deliveries">
      {deliveries.map((delivery) => {
        const last = delivery.attempts.at(-1);
        return (
          <li key={delivery.id} class="delivery">
            <details>
              <summary>
                <StatusBadge status={delivery.status} kind="delivery" />
                <span class="delivery-event">
                  {delivery.eventType !== null ? describeEvent(delivery.eventType) : 'Event'}
                  {delivery.eventType !== null && <code class="muted small"> {delivery.eventType}</code>}
                </span>
                <span class="delivery-meta muted small">
                  {delivery.attempts.length} attempt{delivery.attempts.length === 1 ? '' : 's'}
                  {last?.statusCode !== undefined && last.statusCode !== null && (
                    <> · last answer {last.statusCode}</>
                  )}
                  {' · '}
                  <Time iso={last?.at ?? delivery.createdAt} />
                </span>
              </summary>
              <div class="delivery-body">
                <dl class="facts facts-compact">
                  <dt>Delivery</dt>
                  <dd>
                    <code>{delivery.id}</code>
                  </dd>
                  {delivery.eventId !== null && (
                    <>
                      <dt>Event</dt>
                      <dd>
                        <code>{delivery.eventId}</code>
                      </dd>
                    </>
                  )}
                  {delivery.paymentId !== null && (
                    <>
                      <dt>Payment</dt>
                      <dd>
                        <Link to={`/payments/${encodeURIComponent(delivery.paymentId)}`}>
                          <code>{delivery.paymentId}</code>
                        </Link>
                      </dd>
                    </>
                  )}
                  {showEndpoint && (delivery.endpointUrl !== null || delivery.endpointId !== null) && (
                    <>
                      <dt>Endpoint</dt>
                      <dd>
                        {delivery.endpointId !== null ? (
                          <Link to={`/webhooks/${encodeURIComponent(delivery.endpointId)}`}>
                            {delivery.endpointUrl ?? delivery.endpointId}
                          </Link>
                        ) : (
                          delivery.endpointUrl
                        )}
                      </dd>
                    </>
                  )}
                  {delivery.nextAttemptAt !== null && (
                    <>
                      <dt>Next attempt</dt>
                      <dd>
                        <Time iso={delivery.nextAttemptAt} relative />
                      </dd>
                    </>
                  )}
                </dl>
                <AttemptsTable delivery={delivery} />
                <RedeliverButton delivery={delivery} onDone={onChanged} />
              </div>
            </details>
          </li>
        );
      })}
    </ul>
  );
}
