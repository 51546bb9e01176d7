import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { DeliveryList } from '../components/deliveries.tsx';
import { PaymentRefunds } from '../components/refunds.tsx';
import {
  CopyButton,
  CopyInline,
  Empty,
  ErrorNotice,
  ExternalLink,
  Loading,
  Notice,
  PageHeader,
  StatusBadge,
  Time,
} from '../components/ui.tsx';
import { addressUrl, txUrl } from '../explorers.ts';
import { describeEvent, formatAmount, shorten, statusLabel } from '../format.ts';
import {
  type ChainInfo,
  chainName,
  type Delivery,
  dataOf,
  loadChains,
  type Payment,
  type PaymentEvent,
  readDelivery,
  readEndpoint,
  readEvent,
  readPayment,
} from '../model.ts';
import { Link } from '../router.tsx';
import { useAction, useApp, useResource } from '../state.tsx';

const openStatuses = new Set(['pending', 'confirming', 'underpaid']);

const outcomes = [
  { outcome: 'paid', label: 'Pay in full', hint: 'Sends exactly the expected amount.' },
  { outcome: 'underpaid', label: 'Pay too little', hint: 'Sends less than expected.' },
  { outcome: 'overpaid', label: 'Pay too much', hint: 'Sends more than expected.' },
  { outcome: 'expired', label: 'Let it expire', hint: 'Ends the payment window now.' },
] as const;

export function checkoutHref(payment: Payment): string {
  return payment.checkoutUrl ?? `/pay/${encodeURIComponent(payment.id)}`;
}

function Hash({
  chain,
  isTest,
  hash,
  chains,
  explorerUrl = null,
  simulated = false,
}: {
  chain: string | null;
  isTest: boolean;
  hash: string | null;
  chains: ChainInfo[] | undefined;
  explorerUrl?: string | null;
  simulated?: boolean;
}) {
  if (hash === null) return <span class="muted">—</span>;
  const url = simulated ? null : (explorerUrl ?? txUrl(chain, isTest, hash, chains));
  return (
    <span class="copy-inline">
      {url !== null ? (
        <ExternalLink href={url}>
          <code title={hash}>{shorten(hash, 12, 8)}</code>
        </ExternalLink>
      ) : (
        <code title={hash}>{shorten(hash, 12, 8)}</code>
      )}
      <CopyButton value={hash} what="transaction hash" />
      {simulated && <span class="badge">Simulated</span>}
    </span>
  );
}

function Fact({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </>
  );
}

function Simulator({ payment, onDone }: { payment: Payment; onDone: () => void }) {
  const app = useApp();
  const action = useAction();
  const open = openStatuses.has(payment.status);
  return (
    <section class="card simulator" aria-labelledby="simulate-title">
      <h2 id="simulate-title">Simulate the payer</h2>
      <p class="muted">
        This is a test payment on a simulated chain. Choose what the payer does; the payment then goes through
        its confirmations like a real one, and your webhooks receive the events.
      </p>
      {!open && (
        <p class="muted">
          The payment is {statusLabel(payment.status).toLowerCase()}; there is nothing left to simulate.
        </p>
      )}
      {open && payment.chain === null && (
        <p class="muted" data-testid="awaiting-pick">
          The customer has not picked a coin and network yet: open the checkout page and pick one as they
          would, then simulate the payment here.
        </p>
      )}
      {open && payment.chain !== null && (
        <div class="button-row">
          {outcomes.map((choice) => (
            <button
              key={choice.outcome}
              type="button"
              class="button button-secondary button-small"
              disabled={action.busy || !open}
              title={choice.hint}
              onClick={async () => {
                const done = await action.run(async () => {
                  await api(`/payments/${encodeURIComponent(payment.id)}/simulate`, {
                    method: 'POST',
                    body: { outcome: choice.outcome },
                  });
                  return true;
                });
                if (done) {
                  app.notify(
                    `Simulated: ${choice.label.toLowerCase()}. The status updates as blocks confirm.`,
                  );
                  onDone();
                }
              }}
            >
              {choice.label}
            </button>
          ))}
        </div>
      )}
      {action.error !== null && <ErrorNotice error={action.error} compact />}
    </section>
  );
}

/**
 * The deliveries of one event. Taken from the event when the API includes them; otherwise gathered from the
 * deliveries of each endpoint of the event's mode.
 */
async function loadEventDeliveries(event: PaymentEvent): Promise<Delivery[]> {
  if (event.deliveries !== null) return event.deliveries;
  const detailed = readEvent(await api(`/events/${encodeURIComponent(event.id)}`));
  if (detailed.deliveries !== null) return detailed.deliveries;
  const query = event.isTest === null ? {} : { is_test: event.isTest };
  const endpoints = dataOf(await api('/webhooks', { query })).map(readEndpoint);
  const perEndpoint = await Promise.all(
    endpoints.map(async (endpoint) =>
      dataOf(await api(`/webhooks/${encodeURIComponent(endpoint.id)}/deliveries`, { query: { limit: 100 } }))
        .map(readDelivery)
        .filter((delivery) => delivery.eventId === event.id)
        .map((delivery) => ({ ...delivery, endpointId: endpoint.id, endpointUrl: endpoint.url })),
    ),
  );
  return perEndpoint.flat();
}

export function EventDeliveries({ event }: { event: PaymentEvent }) {
  const [open, setOpen] = useState(false);
  const details = useResource(async () => (open ? loadEventDeliveries(event) : null), [open, event.id]);
  const deliveries = details.data;
  return (
    <div class="event-deliveries">
      <button type="button" class="link-button" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? 'Hide deliveries' : 'Show deliveries'}
      </button>
      {open && (
        <div>
          {details.state === 'loading' && <Loading label="Loading deliveries…" />}
          {details.state === 'error' && <ErrorNotice error={details.error} compact />}
          {deliveries !== null && deliveries.length === 0 && (
            <p class="muted">
              No delivery found for this event. Events go to the {event.isTest === false ? 'live' : 'test'}{' '}
              webhook endpoints that were enabled when they happened.
            </p>
          )}
          {deliveries !== null && deliveries.length > 0 && (
            <DeliveryList deliveries={deliveries} onChanged={() => void details.reload()} showEndpoint />
          )}
        </div>
      )}
    </div>
  );
}

function Timeline({ payment }: { payment: Payment }) {
  if (payment.events.length === 0) {
    return (
      <Empty title="No events yet">
        <p>
          Events are created when the payment changes status: confirmed, underpaid, overpaid, expired,
          completed.
        </p>
      </Empty>
    );
  }
  const events = [...payment.events].sort((a, b) => (a.createdAt ?? '').localeCompare(b.createdAt ?? ''));
  return (
    <ol class="timeline" data-testid="timeline">
      {events.map((event) => (
        <li key={event.id} class="timeline-item">
          <span class="timeline-dot" aria-hidden="true" />
          <div>
            <p class="timeline-title">
              {describeEvent(event.type)} <code class="muted small">{event.type}</code>
            </p>
            <p class="muted small">
              <Time iso={event.createdAt} />
              {event.status !== null && <> · status {statusLabel(event.status).toLowerCase()}</>} ·{' '}
              <code>{event.id}</code>
            </p>
            <EventDeliveries event={event} />
          </div>
        </li>
      ))}
    </ol>
  );
}

export function PaymentDetailPage({ id }: { id: string }) {
  const loaded = useResource(async () => readPayment(await api(`/payments/${encodeURIComponent(id)}`)), [id]);
  const chains = useResource(() => loadChains(() => api('/chains')), []).data ?? undefined;
  const payment = loaded.data;
  const [watching, setWatching] = useState(false);

  // While the payment can still change (or right after a simulation), refresh it every few seconds.
  const awaitingForward =
    payment !== null &&
    (payment.status === 'completed' || payment.status === 'overpaid') &&
    payment.forwardedAt === null;
  const pollEvery =
    payment === null
      ? null
      : openStatuses.has(payment.status) || watching
        ? 3000
        : awaitingForward
          ? 10_000
          : null;
  useEffect(() => {
    if (pollEvery === null) return;
    const timer = window.setInterval(() => void loaded.reload(), pollEvery);
    return () => window.clearInterval(timer);
  }, [pollEvery, id]);
  useEffect(() => {
    if (!watching) return;
    const timer = window.setTimeout(() => setWatching(false), 120_000);
    return () => window.clearTimeout(timer);
  }, [watching]);

  if (payment === null) {
    return (
      <section>
        <p class="breadcrumb">
          <Link to="/payments">Payments</Link>
        </p>
        <PageHeader title="Payment" />
        {loaded.state === 'loading' && <Loading label="Loading the payment…" />}
        {loaded.state === 'error' && (
          <ErrorNotice error={loaded.error} onRetry={() => void loaded.reload()} />
        )}
      </section>
    );
  }

  const simulatedChain = payment.deposits.some((deposit) => deposit.simulated);
  const addressLink = addressUrl(payment.chain, payment.isTest, payment.address, chains);
  const network =
    chains?.find((known) => known.id === payment.chain)?.[payment.isTest ? 'test' : 'live']?.name ?? null;
  return (
    <section>
      <p class="breadcrumb">
        <Link to="/payments">Payments</Link> <span aria-hidden="true">›</span> {shorten(payment.id, 8, 4)}
      </p>
      <PageHeader
        title={`Payment of ${formatAmount(payment.amount, payment.currency)}`}
        description={
          <>
            <StatusBadge status={payment.status} />{' '}
            {payment.isTest && <span class="badge badge-warn">Test</span>}{' '}
            {payment.orderId !== null && <span class="muted">Order {payment.orderId}</span>}{' '}
            {payment.customerEmail !== null && (
              <span class="muted" data-testid="customer-email">
                Payer {payment.customerEmail}
              </span>
            )}
          </>
        }
        actions={
          <a href={checkoutHref(payment)} target="_blank" rel="noopener" class="button button-secondary">
            Open checkout page<span class="visually-hidden"> (opens in a new tab)</span>
          </a>
        }
      />
      {loaded.state === 'error' && <ErrorNotice error={loaded.error} compact />}
      {payment.isTest && (
        <Simulator
          payment={payment}
          onDone={() => {
            setWatching(true);
            void loaded.reload();
          }}
        />
      )}

      <div class="grid-2">
        <section class="card" aria-labelledby="amounts-title">
          <h2 id="amounts-title">Amounts</h2>
          <dl class="facts">
            <Fact label="Price">{formatAmount(payment.amount, payment.currency)}</Fact>
            <Fact label="Expected">
              <span data-testid="expected">{formatAmount(payment.expectedNative, payment.asset)}</span>
            </Fact>
            <Fact label="Received">
              <span data-testid="received">{formatAmount(payment.receivedNative, payment.asset)}</span>
            </Fact>
            {payment.remainingNative !== null &&
              payment.remainingNative !== '0' &&
              payment.status !== 'expired' && (
                <Fact label="Still to pay">{formatAmount(payment.remainingNative, payment.asset)}</Fact>
              )}
            {payment.rate !== null && payment.asset !== null && payment.asset !== payment.currency && (
              <Fact label="Rate">
                1 {payment.asset} = {formatAmount(payment.rate, payment.currency)}
                <span class="muted small"> (locked at creation)</span>
              </Fact>
            )}
            <Fact label="Network">
              {payment.asset ?? '—'} on {chainName(payment.chain)}
              {network !== null && network !== chainName(payment.chain) && (
                <span class="muted"> ({network})</span>
              )}
            </Fact>
            {payment.confirmations !== null && (
              <Fact label="Confirmations">
                {payment.confirmations}
                {payment.requiredConfirmations !== null && <> of {payment.requiredConfirmations}</>}
              </Fact>
            )}
          </dl>
        </section>
        <section class="card" aria-labelledby="details-title">
          <h2 id="details-title">Details</h2>
          <dl class="facts">
            <Fact label="Payment ID">
              <CopyInline value={payment.id} what="payment ID" />
            </Fact>
            <Fact label="Deposit address">
              {payment.address === null ? (
                '—'
              ) : (
                <span class="copy-inline">
                  {addressLink !== null && !payment.isTest ? (
                    <ExternalLink href={addressLink}>
                      <code class="break">{payment.address}</code>
                    </ExternalLink>
                  ) : (
                    <code class="break">{payment.address}</code>
                  )}
                  <CopyButton value={payment.address} what="deposit address" />
                </span>
              )}
            </Fact>
            <Fact label="Created">
              <Time iso={payment.createdAt} />
            </Fact>
            <Fact label="Expires">
              <Time iso={payment.expiresAt} relative={openStatuses.has(payment.status)} />
            </Fact>
            {payment.redirectUrl !== null && (
              <Fact label="Redirect after payment">{payment.redirectUrl}</Fact>
            )}
            {payment.metadata !== null && Object.keys(payment.metadata).length > 0 && (
              <Fact label="Metadata">
                <pre class="response">{JSON.stringify(payment.metadata, null, 2)}</pre>
              </Fact>
            )}
          </dl>
        </section>
      </div>

      <PaymentRefunds
        paymentId={payment.id}
        asset={payment.asset ?? ''}
        received={payment.receivedNative ?? '0'}
      />

      <section class="card" aria-labelledby="deposits-title">
        <h2 id="deposits-title">Deposits</h2>
        {simulatedChain && (
          <p class="muted small">
            These are simulated test transactions: they appear on no public block explorer.
          </p>
        )}
        {payment.deposits.length === 0 ? (
          <p class="muted">
            Nothing has arrived at the deposit address yet.
            {openStatuses.has(payment.status) && ' This page refreshes on its own.'}
          </p>
        ) : (
          <div class="table-wrap">
            <table class="table table-compact" data-testid="deposits">
              <thead>
                <tr>
                  <th scope="col">Transaction</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Block</th>
                  <th scope="col">Confirmations</th>
                  <th scope="col">State</th>
                  <th scope="col">Seen</th>
                </tr>
              </thead>
              <tbody>
                {payment.deposits.map((deposit, index) => (
                  <tr key={`${deposit.txHash ?? ''}:${index}`}>
                    <td>
                      <Hash
                        chain={payment.chain}
                        isTest={payment.isTest}
                        hash={deposit.txHash}
                        chains={chains}
                        explorerUrl={deposit.explorerUrl}
                        simulated={deposit.simulated}
                      />
                      {!deposit.counted && <p class="muted small">Another asset: not counted as payment.</p>}
                    </td>
                    <td>{formatAmount(deposit.amountNative, payment.asset)}</td>
                    <td>{deposit.blockNumber ?? '—'}</td>
                    <td>
                      {deposit.confirmations ?? '—'}
                      {deposit.requiredConfirmations !== null && <> of {deposit.requiredConfirmations}</>}
                    </td>
                    <td>
                      {deposit.state === null ? '—' : <StatusBadge status={deposit.state} />}
                      {deposit.leftAsDustAt !== null && (
                        <p class="muted small">
                          Left unswept <Time iso={deposit.leftAsDustAt} />: worth less than the network fee to
                          move it. Priced again every ten minutes; swept once the fee allows.
                        </p>
                      )}
                    </td>
                    <td>
                      <Time iso={deposit.seenAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section class="card" aria-labelledby="forwarding-title">
        <h2 id="forwarding-title">Forwarding to your payout wallet</h2>
        {payment.forwardTxHash === null && payment.forwardedAt === null ? (
          <p class="muted">
            {payment.status === 'completed' || payment.status === 'overpaid'
              ? 'The funds are queued to be forwarded to your payout wallet.'
              : 'Funds are forwarded once the payment is complete.'}
          </p>
        ) : (
          <dl class="facts">
            <Fact label="Transaction">
              <Hash
                chain={payment.chain}
                isTest={payment.isTest}
                hash={payment.forwardTxHash}
                chains={chains}
                simulated={simulatedChain}
              />
            </Fact>
            <Fact label="Forwarded">
              <Time iso={payment.forwardedAt} />
            </Fact>
            {payment.forwardFee !== null && (
              <Fact label="Network fee">{formatAmount(payment.forwardFee, null)}</Fact>
            )}
          </dl>
        )}
      </section>

      <section class="card" aria-labelledby="events-title">
        <h2 id="events-title">Events</h2>
        <Timeline payment={payment} />
      </section>
      {!payment.isTest && (
        <Notice tone="info">
          <p>This is a live payment: real funds on {chainName(payment.chain)}.</p>
        </Notice>
      )}
    </section>
  );
}
