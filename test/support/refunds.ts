import { strongPassword, uniqueEmail } from './harness.ts';
import { keyedApi } from './program.ts';
import { waitFor } from './webhooks.ts';

/**
 * Refunds through a running program's API, shared by the live refund tests of each chain family: ask for one, wait for
 * it to reach a state (failing at once, with the program's last output, when it fails), and ask for one that must be
 * refused (the API's error shape).
 */

export interface RefundSeen {
  id: string;
  status: string;
  source: string | null;
  amount_native: string;
  sent_amount_native: string | null;
  fee_native: string | null;
  tx_hash: string | null;
  last_error?: string | null;
}

export interface ApiError {
  status: number;
  error: { code: string; message: string; param?: string; request_id: string };
}

/** Decimal text as the API writes amounts, in base units of `decimals`. */
export function baseUnits(decimal: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

export function refundsApi(base: () => string, output: () => string) {
  const api = keyedApi(base);
  return {
    /** POST /v1/payments/{id}/refunds: the refund as first answered. */
    ask: (key: string, paymentId: string, body: { address: string; amount?: string }) =>
      api<RefundSeen>('POST', `/payments/${paymentId}/refunds`, key, body),

    /** The same request expected to be refused: the status and the error body. */
    async refused(
      key: string,
      paymentId: string,
      body: { address: string; amount?: string },
    ): Promise<ApiError> {
      const answer = await fetch(`${base()}/v1/payments/${paymentId}/refunds`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const parsed = (await answer.json()) as Omit<ApiError, 'status'>;
      return { status: answer.status, ...parsed };
    },

    /** Waits (generously) until the refund passes `check`; a failed refund throws at once unless `failed` is expected. */
    until<R extends { status: string } = RefundSeen>(
      key: string,
      id: string,
      what: string,
      check: (refund: R) => boolean,
      timeoutMs = 60_000,
    ) {
      let last: R | undefined;
      return waitFor(
        what,
        async () => {
          last = await api<R>('GET', `/refunds/${id}`, key);
          if (last.status === 'failed' && !check(last))
            throw new Error(`refund failed: ${JSON.stringify(last)}`);
          return check(last) ? last : undefined;
        },
        timeoutMs,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\nlast seen: ${JSON.stringify(last)}\n${output().slice(-3000)}`);
      });
    },
  };
}

/**
 * A merchant signed up on the running program, with its key of `mode` and its session, whose payout wallets can be
 * set and removed (the session is fresh: changes need one re-authenticated in the last 10 minutes). A live payment
 * needs a payout wallet to be created; with it removed afterwards its settled funds are never swept, so a refund of an
 * overpaid payment's excess is sent from the deposit address with the rest left there to check.
 */
export async function refundMerchant(base: string, mode: 'live' | 'test' = 'live') {
  const signup = await fetch(`${base}/v1/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: uniqueEmail(), password: strongPassword }),
  });
  if (signup.status !== 201) throw new Error(`sign-up: ${signup.status} ${await signup.text()}`);
  const { token } = (await signup.json()) as { token: string };
  const pair = await fetch(`${base}/v1/keypairs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  if (pair.status !== 201) throw new Error(`keypair: ${pair.status} ${await pair.text()}`);
  const key = ((await pair.json()) as Record<'live' | 'test', { full_key: string }>)[mode].full_key;
  return {
    key,
    /** The merchant's session (a bearer token). */
    token,
    /** Replaces the payout wallets of the mode (a chain left out has none afterwards). */
    async payoutWallets(wallets: Record<string, string>): Promise<void> {
      const answer = await fetch(`${base}/v1/settings/payout-wallets?is_test=${mode === 'test'}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(wallets),
      });
      if (answer.status !== 200) throw new Error(`payout wallets: ${answer.status} ${await answer.text()}`);
    },
  };
}
