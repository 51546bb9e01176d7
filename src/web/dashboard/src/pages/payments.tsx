import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Empty, ErrorNotice, Loading, PageHeader, StatusBadge, Time } from '../components/ui.tsx';
import { formatAmount, shorten, statusLabel } from '../format.ts';
import { chainName, type Page, type Payment, readPage, readPayment } from '../model.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { useAction, useApp, useResource } from '../state.tsx';

const paymentStatuses = ['pending', 'confirming', 'completed', 'underpaid', 'overpaid', 'expired'] as const;

const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function PaymentRow({ payment }: { payment: Payment }) {
  const to = `/payments/${encodeURIComponent(payment.id)}`;
  return (
    <tr>
      <td>
        <Link to={to} class="row-link">
          <span class="amount">{formatAmount(payment.amount, payment.currency)}</span>
        </Link>
        {payment.expectedNative !== null && payment.asset !== null && payment.currency !== payment.asset && (
          <div class="muted small">{formatAmount(payment.expectedNative, payment.asset)}</div>
        )}
      </td>
      <td>
        <StatusBadge status={payment.status} />
      </td>
      <td>
        {payment.chain === null ? (
          <span class="muted">The customer picks</span>
        ) : (
          <>
            {payment.asset ?? '—'} <span class="muted">on {chainName(payment.chain)}</span>
          </>
        )}
      </td>
      <td>{payment.orderId ?? <span class="muted">—</span>}</td>
      <td>
        <code title={payment.id}>{shorten(payment.id, 8, 4)}</code>
      </td>
      <td>
        <Time iso={payment.createdAt} />
      </td>
    </tr>
  );
}

export function PaymentsPage() {
  const app = useApp();
  const isTest = app.mode === 'test';
  const { query } = useLocation();
  const status = query.get('status') ?? '';
  const orderId = query.get('order_id') ?? '';
  const [search, setSearch] = useState(orderId);
  const [pages, setPages] = useState<Page<Payment>[]>([]);
  const lookup = useAction();
  const more = useAction();

  const filters = {
    is_test: isTest,
    status: status === '' ? undefined : status,
    order_id: orderId || undefined,
  };
  const first = useResource(
    async (isCurrent) => {
      const page = readPage(await api('/payments', { query: filters }), readPayment, (payment) => payment.id);
      if (isCurrent()) setPages([page]);
      return page;
    },
    [isTest, status, orderId],
  );
  const payments = pages.flatMap((page) => page.items);
  const next = pages.at(-1)?.next ?? null;
  const filtered = status !== '' || orderId !== '';

  const setFilters = (nextStatus: string, nextOrder: string) => {
    const params = new URLSearchParams();
    if (nextStatus !== '') params.set('status', nextStatus);
    if (nextOrder !== '') params.set('order_id', nextOrder);
    const search = params.toString();
    navigate(`/payments${search === '' ? '' : `?${search}`}`, { replace: true });
  };

  return (
    <section>
      <PageHeader
        title="Payments"
        description={`Every ${isTest ? 'test' : 'live'} payment your server created, newest first.`}
        actions={
          isTest ? (
            <Link to="/payments/new" class="button">
              Create test payment
            </Link>
          ) : undefined
        }
      />
      <form
        class="filters"
        aria-label="Find payments"
        onSubmit={async (event) => {
          event.preventDefault();
          const value = search.trim();
          if (uuidPattern.test(value)) {
            // A payment id: open it directly.
            const found = await lookup.run(() => api(`/payments/${encodeURIComponent(value)}`));
            if (found !== undefined) navigate(`/payments/${encodeURIComponent(value)}`);
            return;
          }
          lookup.clearError();
          setFilters(status, value);
        }}
      >
        <div class="filter">
          <label for="payment-search">Payment ID or order ID</label>
          <input
            id="payment-search"
            type="search"
            placeholder="e.g. 0193… or order-1042"
            value={search}
            onInput={(event) => setSearch(event.currentTarget.value)}
          />
        </div>
        <div class="filter">
          <label for="payment-status">Status</label>
          <select
            id="payment-status"
            value={status}
            onChange={(event) => setFilters(event.currentTarget.value, orderId)}
          >
            <option value="">All statuses</option>
            {paymentStatuses.map((value) => (
              <option key={value} value={value}>
                {statusLabel(value)}
              </option>
            ))}
          </select>
        </div>
        <div class="filter filter-actions">
          <button type="submit" class="button button-secondary" disabled={lookup.busy}>
            Search
          </button>
          {filtered && (
            <button
              type="button"
              class="button button-secondary"
              onClick={() => {
                setSearch('');
                setFilters('', '');
              }}
            >
              Clear
            </button>
          )}
        </div>
      </form>
      {lookup.error !== null && <ErrorNotice error={lookup.error} compact />}

      {first.state === 'loading' && <Loading label="Loading payments…" />}
      {first.state === 'error' && <ErrorNotice error={first.error} onRetry={() => void first.reload()} />}
      {first.state === 'ready' && payments.length === 0 && (
        <Empty title={filtered ? 'No payments match' : `No ${isTest ? 'test' : 'live'} payments yet`}>
          {filtered ? (
            <p>Try another status or order ID, or clear the filters.</p>
          ) : isTest ? (
            <p>
              Payments appear here once your server creates them with a test key. You can also{' '}
              <Link to="/payments/new">create a test payment</Link> right here.
            </p>
          ) : (
            <p>Payments appear here once your server creates them with your live key.</p>
          )}
        </Empty>
      )}
      {payments.length > 0 && (
        <div class="table-wrap">
          <table class="table" data-testid="payments">
            <caption class="visually-hidden">Payments, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Amount</th>
                <th scope="col">Status</th>
                <th scope="col">Paid with</th>
                <th scope="col">Order</th>
                <th scope="col">Payment ID</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {payments.map((payment) => (
                <PaymentRow key={payment.id} payment={payment} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next !== null && (
        <button
          type="button"
          class="button button-secondary"
          disabled={more.busy}
          onClick={async () => {
            const page = await more.run(async () =>
              readPage(await api('/payments', { query: { ...filters, ...next } }), readPayment, (p) => p.id),
            );
            if (page !== undefined) setPages((current) => [...current, page]);
          }}
        >
          {more.busy ? 'Loading…' : 'Show older payments'}
        </button>
      )}
      {more.error !== null && <ErrorNotice error={more.error} compact />}
    </section>
  );
}
