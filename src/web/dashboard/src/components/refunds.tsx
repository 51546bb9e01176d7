import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { CopyInline, describedBy, ErrorNotice, Field, fieldError, Time } from './ui.tsx';

interface RefundItem {
  id: string;
  status: string;
  amount_native: string;
  asset: string;
  source: string | null;
  to_address: string | null;
  fee_native: string | null;
  fee_estimate_native: string | null;
  sent_amount_native: string | null;
  tx_hash: string | null;
  refund_url: string;
  payment_request: { uri: string; amount_native: string; to_address: string } | null;
  created_at: string;
}

const statusText: Record<string, string> = {
  awaiting_address: 'Waiting for the payer’s address',
  queued: 'Queued',
  pending: 'Signed, sending',
  broadcast: 'Sent, confirming',
  awaiting_payment: 'Waiting for your payment',
  sent: 'Refunded',
  failed: 'Failed',
};

function readRefunds(body: unknown): RefundItem[] {
  const data = (body as { data?: unknown } | undefined)?.data;
  return Array.isArray(data) ? (data as RefundItem[]) : [];
}

/**
 * A payment's refunds and the button to make one: an amount (default: all that is refundable) and, when known, the
 * payer's address; else the payer gets a link (shown here) where they give it. A refund of a swept payment that no
 * wallet of the service can pay shows the payment request the merchant pays from their own wallet.
 */
export function PaymentRefunds({
  paymentId,
  asset,
  received,
}: {
  paymentId: string;
  asset: string;
  received: string;
}) {
  const [refunds, setRefunds] = useState<RefundItem[] | null>(null);
  const [amount, setAmount] = useState('');
  const [address, setAddress] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const load = async () => setRefunds(readRefunds(await api(`/payments/${paymentId}/refunds`)));
  if (refunds === null) void load().catch(setError);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api(`/payments/${paymentId}/refunds`, {
        method: 'POST',
        body: {
          ...(amount.trim() === '' ? {} : { amount: amount.trim() }),
          ...(address.trim() === '' ? {} : { address: address.trim() }),
        },
      });
      setAmount('');
      setAddress('');
      await load();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section class="card" aria-labelledby="refunds-title" data-testid="refunds">
      <h2 id="refunds-title">Refunds</h2>
      {refunds !== null && refunds.length > 0 && (
        <div class="table-wrap">
          <table class="table table-compact">
            <thead>
              <tr>
                <th scope="col">Amount</th>
                <th scope="col">Status</th>
                <th scope="col">To</th>
                <th scope="col">Fee</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {refunds.map((refund) => (
                <tr key={refund.id}>
                  <td>
                    {refund.amount_native} {refund.asset}
                  </td>
                  <td>
                    {statusText[refund.status] ?? refund.status}
                    {refund.status === 'awaiting_address' && (
                      <div class="small">
                        Send the payer this link: <CopyInline value={refund.refund_url} what="refund link" />
                      </div>
                    )}
                    {refund.payment_request !== null && (
                      <div class="small">
                        Pay {refund.payment_request.amount_native} {refund.asset} to{' '}
                        <CopyInline value={refund.payment_request.to_address} what="address" /> from your
                        wallet: <a href={refund.payment_request.uri}>open in wallet</a>
                      </div>
                    )}
                  </td>
                  <td class="mono small">{refund.to_address ?? '—'}</td>
                  <td>
                    {refund.fee_native ??
                      (refund.fee_estimate_native === null ? '—' : `≈ ${refund.fee_estimate_native}`)}
                  </td>
                  <td>
                    <Time iso={refund.created_at} relative />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {received !== '0' && (
        <form class="form-inline" onSubmit={submit}>
          <Field
            id="refund-amount"
            label={`Amount (${asset})`}
            hint={`Leave empty to refund everything still refundable (received ${received} ${asset}).`}
            error={fieldError(error, 'amount')}
          >
            <input
              {...describedBy('refund-amount', { hint: true, error: fieldError(error, 'amount') })}
              inputMode="decimal"
              value={amount}
              onInput={(event) => setAmount(event.currentTarget.value)}
            />
          </Field>
          <Field
            id="refund-address"
            label="Payer’s address (optional)"
            hint="Leave empty to send the payer a link where they enter it."
            error={fieldError(error, 'address')}
          >
            <input
              {...describedBy('refund-address', { hint: true, error: fieldError(error, 'address') })}
              value={address}
              onInput={(event) => setAddress(event.currentTarget.value)}
            />
          </Field>
          <button type="submit" class="button" disabled={busy}>
            {busy ? 'Refunding…' : 'Refund'}
          </button>
        </form>
      )}
      {error !== null && fieldError(error, 'amount', 'address') === null && (
        <ErrorNotice error={error} compact />
      )}
    </section>
  );
}
