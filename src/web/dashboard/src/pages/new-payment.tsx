import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import {
  CopyInline,
  describedBy,
  ErrorNotice,
  Field,
  fieldError,
  Notice,
  PageHeader,
  StatusBadge,
  Time,
} from '../components/ui.tsx';
import { formatAmount } from '../format.ts';
import {
  type ChainInfo,
  type CreatedKeypair,
  fallbackChains,
  loadChains,
  type Payment,
  readPayment,
} from '../model.ts';
import { Link } from '../router.tsx';
import { useAction, useApp, useResource } from '../state.tsx';
import { generateKeypair, NewKeypair } from './keys.tsx';
import { checkoutHref } from './payment-detail.tsx';

const currencies = ['USD', 'EUR', 'GBP'];
const windows = [
  { minutes: 0, label: 'Default (your setting, normally 30 minutes)' },
  { minutes: 10, label: '10 minutes' },
  { minutes: 30, label: '30 minutes' },
  { minutes: 60, label: '1 hour' },
  { minutes: 240, label: '4 hours' },
];

function TestKeyPanel() {
  const app = useApp();
  const [pasted, setPasted] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [created, setCreated] = useState<CreatedKeypair | null>(null);
  const generate = useAction();

  if (created !== null) {
    return <NewKeypair keypair={created} onDone={() => setCreated(null)} />;
  }
  if (app.testKey !== null) {
    return (
      <div class="card key-in-use">
        <p>
          Using the test key <code>{`${app.testKey.slice(0, 13)}…${app.testKey.slice(-4)}`}</code> in this
          tab. It is kept in memory only and forgotten when you reload or log out.
        </p>
        <button
          type="button"
          class="button button-small button-secondary"
          onClick={() => app.setTestKey(null)}
        >
          Use a different key
        </button>
      </div>
    );
  }
  return (
    <section class="card" aria-labelledby="test-key-title">
      <h2 id="test-key-title">First, a test key</h2>
      <p>
        Payments are created by your server with its API key (the <code>x-api-key</code> header), never by a
        browser in production. To try the whole flow from here, the dashboard needs one of your{' '}
        <strong>test</strong> keys for this tab. It stays in this tab's memory only, is sent only to this
        service, and is forgotten when you reload.
      </p>
      <form
        noValidate
        class="paste-key"
        onSubmit={(event) => {
          event.preventDefault();
          const key = pasted.trim();
          if (!key.startsWith('svc_test_')) {
            setProblem(
              key.startsWith('svc_live_')
                ? 'That is a live key. Test payments need a test key (it starts with svc_test_).'
                : 'A test key starts with svc_test_.',
            );
            return;
          }
          setProblem(null);
          app.setTestKey(key);
        }}
      >
        <Field label="Paste a test key" id="paste-test-key" error={problem}>
          <input
            {...describedBy('paste-test-key', { error: problem })}
            type="password"
            autocomplete="off"
            spellcheck={false}
            placeholder="svc_test_…"
            value={pasted}
            onInput={(event) => setPasted(event.currentTarget.value)}
          />
        </Field>
        <button type="submit" class="button button-secondary">
          Use this key
        </button>
      </form>
      <p class="or">or</p>
      <button
        type="button"
        class="button button-secondary"
        disabled={generate.busy}
        onClick={async () => {
          const pair = await generate.run(generateKeypair);
          if (pair !== undefined) {
            app.setTestKey(pair.testKey);
            setCreated(pair);
          }
        }}
      >
        {generate.busy ? 'Generating…' : 'Generate a new keypair and use its test key'}
      </button>
      <p class="hint">
        Lost your keys? Full keys are shown only once; generate a new pair and revoke the old one on the{' '}
        <Link to="/keys">API keys</Link> page.
      </p>
      {generate.error !== null && <ErrorNotice error={generate.error} compact />}
    </section>
  );
}

function Created({ payment, onAnother }: { payment: Payment; onAnother: () => void }) {
  const detail = `/payments/${encodeURIComponent(payment.id)}`;
  return (
    <section class="card created-payment" aria-labelledby="created-title" data-testid="created-payment">
      <h2 id="created-title" tabIndex={-1}>
        Test payment created
      </h2>
      <dl class="facts">
        <dt>Payment ID</dt>
        <dd>
          <CopyInline value={payment.id} what="payment ID" />
        </dd>
        <dt>Status</dt>
        <dd>
          <StatusBadge status={payment.status} />
        </dd>
        <dt>Amount</dt>
        <dd>
          {formatAmount(payment.amount, payment.currency)}
          {payment.expectedNative !== null && <> = {formatAmount(payment.expectedNative, payment.asset)}</>}
        </dd>
        <dt>Expires</dt>
        <dd>
          <Time iso={payment.expiresAt} relative />
        </dd>
      </dl>
      <div class="button-row">
        <a
          class="button"
          href={checkoutHref(payment)}
          target="_blank"
          rel="noopener"
          data-testid="open-checkout"
        >
          Open checkout page<span class="visually-hidden"> (opens in a new tab)</span>
        </a>
        <Link class="button button-secondary" to={detail}>
          View payment
        </Link>
        <button type="button" class="button button-secondary" onClick={onAnother}>
          Create another
        </button>
      </div>
      <p class="hint">
        The checkout page is what your customer sees. In test mode it has buttons to simulate the payer; so
        does the payment's page here.
      </p>
    </section>
  );
}

function assetsOf(chains: ChainInfo[], chain: string): string[] {
  return chains.find((known) => known.id === chain)?.assets ?? [];
}

export function NewTestPaymentPage() {
  const app = useApp();
  const chainsResource = useResource(() => loadChains(() => api('/chains')), []);
  const chains = chainsResource.data ?? fallbackChains;
  const [amount, setAmount] = useState('25.00');
  const [currency, setCurrency] = useState('USD');
  const [chain, setChain] = useState('ethereum');
  const [asset, setAsset] = useState('');
  const [orderId, setOrderId] = useState('');
  const [redirectUrl, setRedirectUrl] = useState('');
  const [windowMinutes, setWindowMinutes] = useState(0);
  const [created, setCreated] = useState<Payment | null>(null);
  const action = useAction();
  const errorFor = (...params: string[]) => fieldError(action.error, ...params);
  const chainAssets = assetsOf(chains, chain);

  if (created !== null) {
    return (
      <section>
        <PageHeader title="Create a test payment" />
        <Created payment={created} onAnother={() => setCreated(null)} />
      </section>
    );
  }

  const amountError = errorFor('amount');
  const currencyError = errorFor('currency');
  const chainError = errorFor('chain');
  const assetError = errorFor('asset');
  const orderError = errorFor('order_id');
  const redirectError = errorFor('redirect_url');
  const windowError = errorFor('expires_in');
  const named = [
    amountError,
    currencyError,
    chainError,
    assetError,
    orderError,
    redirectError,
    windowError,
  ].some((error) => error !== null);

  return (
    <section>
      <PageHeader
        title="Create a test payment"
        description="Try the whole flow: create a payment, open the checkout page your customer would see, simulate the payer, and watch the status and webhooks follow."
      />
      {app.mode === 'live' && (
        <Notice tone="info">
          <p>
            Test payments are listed in test mode. Switch to test mode at the top to find them afterwards.
          </p>
        </Notice>
      )}
      <TestKeyPanel />
      <form
        noValidate
        class="card"
        aria-labelledby="payment-form-title"
        onSubmit={async (event) => {
          event.preventDefault();
          const key = app.testKey;
          if (key === null) return;
          const body = await action.run(() =>
            api('/payments', {
              method: 'POST',
              apiKey: key,
              headers: { 'idempotency-key': crypto.randomUUID() },
              body: {
                amount: amount.trim(),
                currency: currency.trim().toUpperCase(),
                chain,
                ...(asset === '' ? {} : { asset }),
                ...(orderId.trim() === '' ? {} : { order_id: orderId.trim() }),
                ...(redirectUrl.trim() === '' ? {} : { redirect_url: redirectUrl.trim() }),
                ...(windowMinutes === 0 ? {} : { expires_in: windowMinutes * 60 }),
              },
            }),
          );
          if (body !== undefined) setCreated(readPayment(body));
        }}
      >
        <h2 id="payment-form-title">The payment</h2>
        <div class="form-grid">
          <Field label="Amount" id="pay-amount" error={amountError} hint="A decimal number, e.g. 25.00">
            <input
              {...describedBy('pay-amount', { hint: true, error: amountError })}
              type="text"
              inputMode="decimal"
              required
              value={amount}
              onInput={(event) => setAmount(event.currentTarget.value)}
            />
          </Field>
          <Field
            label="Currency"
            id="pay-currency"
            error={currencyError}
            hint="A currency like USD or EUR, or a crypto asset like ETH."
          >
            <input
              {...describedBy('pay-currency', { hint: true, error: currencyError })}
              type="text"
              list="currency-options"
              required
              autocomplete="off"
              value={currency}
              onInput={(event) => setCurrency(event.currentTarget.value)}
            />
            <datalist id="currency-options">
              {[...currencies, ...new Set(chains.flatMap((known) => known.assets))].map((code) => (
                <option key={code} value={code} />
              ))}
            </datalist>
          </Field>
          <Field label="Network" id="pay-chain" error={chainError}>
            <select
              {...describedBy('pay-chain', { error: chainError })}
              value={chain}
              onChange={(event) => {
                setChain(event.currentTarget.value);
                setAsset('');
              }}
            >
              {chains.map((known) => (
                <option key={known.id} value={known.id}>
                  {known.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Paid in" id="pay-asset" error={assetError}>
            <select
              {...describedBy('pay-asset', { error: assetError })}
              value={asset}
              onChange={(event) => setAsset(event.currentTarget.value)}
            >
              <option value="">The network's own coin</option>
              {chainAssets.map((code) => (
                <option key={code} value={code}>
                  {code}
                </option>
              ))}
            </select>
          </Field>
          <Field
            label="Order ID (optional)"
            id="pay-order"
            error={orderError}
            hint="Your own reference, to find it later."
          >
            <input
              {...describedBy('pay-order', { hint: true, error: orderError })}
              type="text"
              value={orderId}
              onInput={(event) => setOrderId(event.currentTarget.value)}
            />
          </Field>
          <Field
            label="Return address (optional)"
            id="pay-redirect"
            error={redirectError}
            hint="Where the checkout page sends the customer after paying."
          >
            <input
              {...describedBy('pay-redirect', { hint: true, error: redirectError })}
              type="url"
              placeholder="https://shop.example.com/thanks"
              value={redirectUrl}
              onInput={(event) => setRedirectUrl(event.currentTarget.value)}
            />
          </Field>
          <Field label="Time to pay" id="pay-window" error={windowError}>
            <select
              {...describedBy('pay-window', { error: windowError })}
              value={String(windowMinutes)}
              onChange={(event) => setWindowMinutes(Number.parseInt(event.currentTarget.value, 10))}
            >
              {windows.map((choice) => (
                <option key={choice.minutes} value={String(choice.minutes)}>
                  {choice.label}
                </option>
              ))}
            </select>
          </Field>
        </div>
        {action.error !== null && !named && <ErrorNotice error={action.error} compact />}
        <button type="submit" class="button" disabled={action.busy || app.testKey === null}>
          {action.busy ? 'Creating…' : 'Create test payment'}
        </button>
        {app.testKey === null && <p class="hint">Choose a test key above first.</p>}
      </form>
    </section>
  );
}
