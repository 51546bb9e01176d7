import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  CopyInline,
  describedBy,
  Empty,
  ErrorNotice,
  Field,
  fieldError,
  Loading,
  PageHeader,
  StatusBadge,
  Time,
} from '../components/ui.tsx';
import { formatAmount } from '../format.ts';
import { dataOf, type Payment, readPayment, record, text } from '../model.ts';
import { Link } from '../router.tsx';
import { useAction, useApp, useResource } from '../state.tsx';

interface PaymentLink {
  id: string;
  url: string;
  title: string;
  description: string | null;
  amount: string | null;
  currency: string;
  chain: string | null;
  active: boolean;
  payments: number;
  paid: number;
  paidAmount: string;
  createdAt: string | null;
}

function readLink(value: unknown): PaymentLink {
  const source = record(value);
  const totals = record(source.totals);
  return {
    id: text(source, 'id') ?? '',
    url: text(source, 'url') ?? '',
    title: text(source, 'title') ?? '',
    description: text(source, 'description'),
    amount: text(source, 'amount'),
    currency: text(source, 'currency') ?? '',
    chain: text(source, 'chain'),
    active: source.active === true,
    payments: typeof totals.payments === 'number' ? totals.payments : 0,
    paid: typeof totals.paid === 'number' ? totals.paid : 0,
    paidAmount: text(totals, 'paid_amount') ?? '0',
    createdAt: text(source, 'created_at'),
  };
}

function NewLinkForm({ onCreated }: { onCreated: (link: PaymentLink) => void }) {
  const app = useApp();
  const [title, setTitle] = useState('');
  const [description, setDescription] = useState('');
  const [fixed, setFixed] = useState(true);
  const [amount, setAmount] = useState('10.00');
  const [currency, setCurrency] = useState('USD');
  const action = useAction();
  const errorFor = (param: string) => fieldError(action.error, param);
  return (
    <form
      noValidate
      class="card"
      aria-labelledby="new-link-title"
      onSubmit={async (event) => {
        event.preventDefault();
        const created = await action.run(() =>
          api('/payment-links', {
            method: 'POST',
            body: {
              title: title.trim(),
              ...(description.trim() === '' ? {} : { description: description.trim() }),
              ...(fixed ? { amount: amount.trim() } : {}),
              currency: currency.trim().toUpperCase(),
              is_test: app.mode === 'test',
            },
          }),
        );
        if (created !== undefined) {
          onCreated(readLink(created));
          setTitle('');
          setDescription('');
        }
      }}
    >
      <h2 id="new-link-title">New {app.mode} payment link</h2>
      <div class="form-grid">
        <Field label="Title" id="link-title" error={errorFor('title')}>
          <input
            {...describedBy('link-title', { error: errorFor('title') })}
            type="text"
            required
            value={title}
            onInput={(event) => setTitle(event.currentTarget.value)}
          />
        </Field>
        <Field label="Description (optional)" id="link-description" error={errorFor('description')}>
          <input
            {...describedBy('link-description', { error: errorFor('description') })}
            type="text"
            value={description}
            onInput={(event) => setDescription(event.currentTarget.value)}
          />
        </Field>
      </div>
      <fieldset class="choice">
        <legend>Amount</legend>
        <label class="radio">
          <input type="radio" name="link-amount-kind" checked={fixed} onChange={() => setFixed(true)} />A
          fixed amount
        </label>
        <label class="radio">
          <input type="radio" name="link-amount-kind" checked={!fixed} onChange={() => setFixed(false)} />
          The customer enters the amount
        </label>
      </fieldset>
      <div class="form-grid">
        {fixed && (
          <Field label="Link amount" id="link-amount" error={errorFor('amount')}>
            <input
              {...describedBy('link-amount', { error: errorFor('amount') })}
              type="text"
              inputMode="decimal"
              value={amount}
              onInput={(event) => setAmount(event.currentTarget.value)}
            />
          </Field>
        )}
        <Field label="Link currency" id="link-currency" error={errorFor('currency')}>
          <input
            {...describedBy('link-currency', { error: errorFor('currency') })}
            type="text"
            value={currency}
            onInput={(event) => setCurrency(event.currentTarget.value)}
          />
        </Field>
      </div>
      <p class="hint">The customer picks the coin and network on the checkout.</p>
      {action.error !== null && <ErrorNotice error={action.error} compact />}
      <button type="submit" class="button" disabled={action.busy}>
        {action.busy ? 'Creating…' : 'Create payment link'}
      </button>
    </form>
  );
}

export function PaymentLinksPage() {
  const app = useApp();
  const isTest = app.mode === 'test';
  const links = useResource(
    async () => dataOf(await api('/payment-links', { query: { is_test: isTest } })).map(readLink),
    [isTest],
  );
  return (
    <section>
      <PageHeader
        title="Payment links"
        description="Reusable links to share anywhere: each visit that pays creates a payment, with no code on your side."
      />
      <NewLinkForm
        onCreated={(link) => {
          app.notify(`Payment link created: ${link.url}`);
          void links.reload();
        }}
      />
      <h2>Your {isTest ? 'test' : 'live'} links</h2>
      {links.state === 'loading' && links.data === null && <Loading label="Loading payment links" />}
      {links.error !== null && <ErrorNotice error={links.error} onRetry={links.reload} />}
      {links.data !== null && links.data.length === 0 && <Empty title="No payment links yet" />}
      {links.data !== null && links.data.length > 0 && (
        <div class="table-wrap">
          <table class="table" data-testid="payment-links">
            <caption class="visually-hidden">Payment links</caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Amount</th>
                <th scope="col">Paid</th>
                <th scope="col">Link</th>
              </tr>
            </thead>
            <tbody>
              {links.data.map((link) => (
                <tr key={link.id} data-link={link.id}>
                  <th scope="row">
                    <Link to={`/links/${encodeURIComponent(link.id)}`}>{link.title}</Link>
                    {!link.active && <span class="muted"> (off)</span>}
                  </th>
                  <td>
                    {link.amount === null
                      ? `Any (${link.currency})`
                      : formatAmount(link.amount, link.currency)}
                  </td>
                  <td>
                    {link.paid} of {link.payments} · {formatAmount(link.paidAmount, link.currency)}
                  </td>
                  <td>
                    <CopyInline value={link.url} what="link" display="Copy link" />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function PaymentLinkPage({ id }: { id: string }) {
  const app = useApp();
  const loaded = useResource(async () => {
    const [link, payments] = await Promise.all([
      api(`/payment-links/${encodeURIComponent(id)}`),
      api('/payments', { query: { payment_link_id: id, limit: 100 } }),
    ]);
    return { link: readLink(link), payments: dataOf(payments).map(readPayment) };
  }, [id]);
  const toggle = useAction();
  const data = loaded.data;
  return (
    <section>
      <PageHeader title={data === null ? 'Payment link' : data.link.title} />
      {loaded.state === 'loading' && data === null && <Loading label="Loading the payment link" />}
      {loaded.error !== null && <ErrorNotice error={loaded.error} onRetry={loaded.reload} />}
      {data !== null && (
        <>
          <section class="card" aria-label="The link">
            <dl class="facts">
              <dt>Link</dt>
              <dd>
                <a href={data.link.url} target="_blank" rel="noopener" data-testid="link-url">
                  {data.link.url}
                  <span class="visually-hidden"> (opens in a new tab)</span>
                </a>{' '}
                <CopyInline value={data.link.url} what="link" display="Copy" />
              </dd>
              <dt>Amount</dt>
              <dd>
                {data.link.amount === null
                  ? `Entered by the customer (${data.link.currency})`
                  : formatAmount(data.link.amount, data.link.currency)}
              </dd>
              <dt>Payments</dt>
              <dd data-testid="link-totals">
                {data.link.payments} created, {data.link.paid} paid:{' '}
                {formatAmount(data.link.paidAmount, data.link.currency)}
              </dd>
            </dl>
            <button
              type="button"
              class="button button-secondary button-small"
              disabled={toggle.busy}
              onClick={async () => {
                const done = await toggle.run(() =>
                  api(`/payment-links/${encodeURIComponent(id)}`, {
                    method: 'PATCH',
                    body: { active: !data.link.active },
                  }),
                );
                if (done !== undefined) {
                  app.notify(data.link.active ? 'Payment link turned off.' : 'Payment link turned on.');
                  void loaded.reload();
                }
              }}
            >
              {data.link.active ? 'Turn the link off' : 'Turn the link on'}
            </button>
            {toggle.error !== null && <ErrorNotice error={toggle.error} compact />}
          </section>
          <h2>Its payments</h2>
          {data.payments.length === 0 ? (
            <Empty title="No payments from this link yet" />
          ) : (
            <div class="table-wrap">
              <table class="table" data-testid="link-payments">
                <caption class="visually-hidden">Payments made from this link</caption>
                <thead>
                  <tr>
                    <th scope="col">Amount</th>
                    <th scope="col">Status</th>
                    <th scope="col">Created</th>
                  </tr>
                </thead>
                <tbody>
                  {data.payments.map((payment: Payment) => (
                    <tr key={payment.id}>
                      <td>
                        <Link to={`/payments/${encodeURIComponent(payment.id)}`}>
                          {formatAmount(payment.amount, payment.currency)}
                        </Link>
                      </td>
                      <td>
                        <StatusBadge status={payment.status} />
                      </td>
                      <td>
                        <Time iso={payment.createdAt} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}
    </section>
  );
}
