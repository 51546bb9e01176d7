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
import { type ChainInfo, fallbackChains, loadChains, type Payment, readPayment } from '../model.ts';
import { Link } from '../router.tsx';
import { useAction, useApp, useResource } from '../state.tsx';
import { checkoutHref } from './payment-detail.tsx';
import { LiveReadinessNotice } from './setup.tsx';

const currencies = ['USD', 'EUR', 'GBP'];
/** The checkout's languages (the payer's browser decides when none is chosen). */
const checkoutLanguages = [
  { code: '', label: "The customer's browser language" },
  { code: 'en', label: 'English' },
  { code: 'es', label: 'Español' },
  { code: 'de', label: 'Deutsch' },
  { code: 'fr', label: 'Français' },
  { code: 'pt', label: 'Português' },
  { code: 'zh', label: '中文' },
  { code: 'ar', label: 'العربية' },
];
const windows = [
  { minutes: 0, label: 'Default (your setting, normally 30 minutes)' },
  { minutes: 10, label: '10 minutes' },
  { minutes: 30, label: '30 minutes' },
  { minutes: 60, label: '1 hour' },
  { minutes: 240, label: '4 hours' },
];

function Created({ payment, onAnother }: { payment: Payment; onAnother: () => void }) {
  const detail = `/payments/${encodeURIComponent(payment.id)}`;
  return (
    <section class="card created-payment" aria-labelledby="created-title" data-testid="created-payment">
      <h2 id="created-title" tabIndex={-1}>
        {payment.isTest ? 'Test payment created' : 'Live payment created'}
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
        <dt>Paid in</dt>
        <dd>
          {payment.chain === null
            ? 'The customer chooses on the checkout'
            : `${payment.asset} on ${payment.chain}`}
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
        The checkout page is what your customer sees: send them its link. In test mode it has buttons to
        simulate the payer; so does the payment's page here.
      </p>
    </section>
  );
}

function assetsOf(chains: ChainInfo[], chain: string): string[] {
  return chains.find((known) => known.id === chain)?.assets ?? [];
}

export function NewPaymentPage() {
  const app = useApp();
  const isTest = app.mode === 'test';
  const chainsResource = useResource(() => loadChains(() => api('/chains')), []);
  const chains = chainsResource.data ?? fallbackChains;
  const [amount, setAmount] = useState('25.00');
  const [currency, setCurrency] = useState('USD');
  const [payerChooses, setPayerChooses] = useState(true);
  const [chain, setChain] = useState('ethereum');
  const [asset, setAsset] = useState('');
  const [orderId, setOrderId] = useState('');
  const [customerEmail, setCustomerEmail] = useState('');
  const [redirectUrl, setRedirectUrl] = useState('');
  const [locale, setLocale] = useState('');
  const [windowMinutes, setWindowMinutes] = useState(0);
  const [created, setCreated] = useState<Payment | null>(null);
  const action = useAction();
  const errorFor = (...params: string[]) => fieldError(action.error, ...params);
  const chainAssets = assetsOf(chains, chain);
  const modeWord = isTest ? 'test' : 'live';

  if (created !== null) {
    return (
      <section>
        <PageHeader title={`Create a ${modeWord} payment`} />
        <Created payment={created} onAnother={() => setCreated(null)} />
      </section>
    );
  }

  const amountError = errorFor('amount');
  const currencyError = errorFor('currency');
  const chainError = errorFor('chain');
  const assetError = errorFor('asset');
  const orderError = errorFor('order_id');
  const emailError = errorFor('customer_email');
  const redirectError = errorFor('redirect_url');
  const windowError = errorFor('expires_in');
  const named = [
    amountError,
    currencyError,
    chainError,
    assetError,
    orderError,
    emailError,
    redirectError,
    windowError,
  ].some((error) => error !== null);

  return (
    <section>
      <PageHeader
        title={`Create a ${modeWord} payment`}
        description="A payment and its checkout page, without writing code: send the customer its link. Your server does the same with its API key (POST /v1/payments)."
      />
      {isTest ? (
        <Notice tone="info">
          <p>
            Test mode: the payment runs on a simulated chain and no real funds move. Switch to live mode at
            the top for a real payment.
          </p>
        </Notice>
      ) : (
        <>
          <Notice tone="warn">
            <p>Live mode: this payment takes real funds.</p>
          </Notice>
          <LiveReadinessNotice {...(payerChooses ? {} : { chain })} />
        </>
      )}
      <form
        noValidate
        class="card"
        aria-labelledby="payment-form-title"
        onSubmit={async (event) => {
          event.preventDefault();
          const body = await action.run(() =>
            api('/payments', {
              method: 'POST',
              headers: { 'idempotency-key': crypto.randomUUID() },
              body: {
                amount: amount.trim(),
                currency: currency.trim().toUpperCase(),
                is_test: isTest,
                ...(payerChooses ? {} : { chain }),
                ...(payerChooses || asset === '' ? {} : { asset }),
                ...(orderId.trim() === '' ? {} : { order_id: orderId.trim() }),
                ...(customerEmail.trim() === '' ? {} : { customer_email: customerEmail.trim() }),
                ...(redirectUrl.trim() === '' ? {} : { redirect_url: redirectUrl.trim() }),
                ...(locale === '' ? {} : { locale }),
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
        </div>
        <fieldset class="choice">
          <legend>Coin and network</legend>
          <label class="radio">
            <input
              type="radio"
              name="who-chooses"
              checked={payerChooses}
              onChange={() => setPayerChooses(true)}
            />
            The customer chooses on the checkout (among the chains this mode can take)
          </label>
          <label class="radio">
            <input
              type="radio"
              name="who-chooses"
              checked={!payerChooses}
              onChange={() => setPayerChooses(false)}
            />
            I choose the network and coin
          </label>
        </fieldset>
        <div class="form-grid">
          {!payerChooses && (
            <>
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
            </>
          )}
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
            label="Customer email (optional)"
            id="pay-email"
            error={emailError}
            hint="The customer gets their receipt there once paid, and the link of any refund (with email set up)."
          >
            <input
              {...describedBy('pay-email', { hint: true, error: emailError })}
              type="email"
              autocomplete="off"
              value={customerEmail}
              onInput={(event) => setCustomerEmail(event.currentTarget.value)}
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
          <Field label="Checkout language" id="pay-locale">
            <select
              {...describedBy('pay-locale', {})}
              value={locale}
              onChange={(event) => setLocale(event.currentTarget.value)}
            >
              {checkoutLanguages.map((choice) => (
                <option key={choice.code} value={choice.code}>
                  {choice.label}
                </option>
              ))}
            </select>
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
        <button type="submit" class="button" disabled={action.busy}>
          {action.busy ? 'Creating…' : `Create ${modeWord} payment`}
        </button>
      </form>
    </section>
  );
}
