import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Anvil, startAnvil } from './support/anvil.ts';
import { type EvmTestChain, setUpEvmChain } from './support/evm.ts';
import { strongPassword, uniqueEmail } from './support/harness.ts';
import { startIsolatedServe } from './support/live-program.ts';
import { type Receiver, startReceiver, waitFor } from './support/webhooks.ts';

/**
 * A payment whose payer picks the coin, end to end through the running program (`svc serve`, spawned): created from
 * the merchant's dashboard session with a fiat amount and no chain, priced on the public checkout in every option,
 * picked there (address derived and rate locked then), paid, and announced to the merchant's endpoint with the chain
 * the payer picked. Twice: on the simulated chain (base, test mode), and on anvil (ethereum, test mode pointed at
 * the node, a real transfer from a funded account) where a live payment in ETH offered only on ethereum is paid too.
 */

const PAYOUT = '0x00000000000000000000000000000000000000a1';

interface CheckoutView {
  status: string;
  chain: string | null;
  asset: string | null;
  address: string | null;
  expected_amount_native: string | null;
  chosen_by: string;
  selected_at: string | null;
  quote_expires_at: string | null;
  options: Array<{ chain: string; asset: string; amount_native: string; network: string }>;
}

describe('the payer picks the coin, end to end', { timeout: 180_000 }, () => {
  let anvil: Anvil;
  let evm: EvmTestChain;
  let output = (): string => '';
  let base = '';
  let receiver: Receiver;
  let stop: () => Promise<void> = async () => {};
  let token = '';
  /** The signing secret of the merchant's test endpoint (live endpoints need https; live is read from the API). */
  let secret = '';

  beforeAll(async () => {
    anvil = await startAnvil({ blockTime: 1 });
    evm = await setUpEvmChain(anvil);
    receiver = await startReceiver();
    const started = await startIsolatedServe({
      dataDirPrefix: 'svc-payer-choice-',
      env: {
        // Test mode's ethereum is anvil; every other test chain is the simulator.
        SVC_TEST_CHAIN_ETHEREUM_RPC_URL: anvil.url,
        SVC_TEST_CHAIN_ETHEREUM_CHAIN_ID: '31337',
        SVC_TEST_CHAIN_ETHEREUM_POLL_MS: '200',
        SVC_CHAIN_ETHEREUM_RPC_URL: anvil.url,
        SVC_CHAIN_ETHEREUM_CHAIN_ID: '31337',
        SVC_CHAIN_ETHEREUM_POLL_MS: '200',
        SVC_CONFIRMATIONS: 'ethereum=2,base=2',
        SVC_SIM_BLOCK_MS: '200',
        SVC_EVM_MAX_HEAD_AGE_SECONDS: '0',
        SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        SVC_WEBHOOK_TRUSTED_NETWORKS: '127.0.0.1',
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'warn',
      },
    });
    stop = started.stop;
    base = started.base;
    const served = started.program;
    output = served.output;
    const signup = await call('POST', '/auth/signup', { email: uniqueEmail(), password: strongPassword });
    token = (signup.body as { token: string }).token;
    // A live payout wallet for ethereum (the sign-up's session has a fresh password), so live ETH can be offered.
    const wallets = await call('PUT', '/settings/payout-wallets?is_test=false', { ethereum: PAYOUT }, token);
    expect(wallets.status, JSON.stringify(wallets.body)).toBe(200);
    const endpoint = await call('POST', '/webhooks', { url: receiver.url, is_test: true }, token);
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    secret = (endpoint.body as { signing_secret: string }).signing_secret;
  }, 180_000);

  afterAll(async () => {
    await stop();
    await receiver?.close();
    await anvil?.stop();
  });

  async function call(
    method: string,
    path: string,
    body?: unknown,
    bearer?: string,
  ): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${base}/v1${path}`, {
      method,
      headers: {
        ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? {} : JSON.parse(text) };
  }

  const checkout = async (id: string) => (await call('GET', `/payments/checkout/${id}`)).body as CheckoutView;

  /** Created from the dashboard session (no API key), without a chain. */
  async function createUnpicked(body: Record<string, unknown>): Promise<string> {
    const created = await call('POST', '/payments', body, token);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const payment = created.body as CheckoutView & { payment_id: string };
    expect(payment).toMatchObject({ chosen_by: 'payer', chain: null, address: null, selected_at: null });
    return payment.payment_id;
  }

  async function pick(id: string, chain: string, asset: string): Promise<CheckoutView> {
    const picked = await call('POST', `/payments/checkout/${id}/select`, { chain, asset });
    expect(picked.status, JSON.stringify(picked.body)).toBe(200);
    return picked.body as CheckoutView;
  }

  /** The signed webhook of `event` for test payment `id`. */
  async function delivered(id: string, event: string) {
    const request = await waitFor(
      `${event} of ${id}`,
      () =>
        receiver.requests.find((r) => {
          const body = JSON.parse(r.body.toString('utf8')) as Record<string, unknown>;
          return body.payment_id === id && body.event === event;
        }),
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${output().slice(-3000)}`);
    });
    expect(request.headers['x-service-signature']).toBe(
      `sha256=${createHmac('sha256', secret).update(request.body).digest('hex')}`,
    );
    return JSON.parse(request.body.toString('utf8')) as Record<string, unknown>;
  }

  it('on the simulator: options priced, pick, pay, payment.confirmed carries the chain picked', async () => {
    const id = await createUnpicked({ amount: '25.00', currency: 'USD', is_test: true });
    const before = await checkout(id);
    // Test mode offers every test asset of every chain, each priced: 25 USD at 3000 USD/ETH rounded up to 6 decimals.
    expect(before.options).toContainEqual(
      expect.objectContaining({ chain: 'base', asset: 'ETH', amount_native: '0.008334' }),
    );
    expect(before.options).toContainEqual(
      expect.objectContaining({ chain: 'base', asset: 'USDC', amount_native: '25' }),
    );
    expect(before.options.some((option) => option.chain === 'bitcoin')).toBe(true);

    const picked = await pick(id, 'base', 'ETH');
    expect(picked).toMatchObject({
      chain: 'base',
      asset: 'ETH',
      expected_amount_native: '0.008334',
      options: [],
      chosen_by: 'payer',
    });
    expect(picked.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(Date.parse(picked.quote_expires_at ?? '') - Date.parse(picked.selected_at ?? '')).toBe(
      15 * 60_000,
    );
    // The pick is final: another pair is refused, the same one changes nothing.
    const other = await call('POST', `/payments/checkout/${id}/select`, { chain: 'bitcoin', asset: 'BTC' });
    expect(other.status).toBe(409);
    expect((await pick(id, 'base', 'ETH')).address).toBe(picked.address);

    const simulated = await call('POST', `/payments/${id}/simulate`, { outcome: 'paid' }, token);
    expect(simulated.status, JSON.stringify(simulated.body)).toBe(202);
    const confirmed = await delivered(id, 'payment.confirmed');
    expect(confirmed).toMatchObject({
      status: 'completed',
      chain: 'base',
      expected_amount_native: '0.008334',
      received_amount_native: '0.008334',
      is_test: true,
    });
  });

  it('on anvil: a real transfer to the picked address completes the payment, in test and in live mode', async () => {
    // Test mode: USD priced at the test rates, ethereum answered by anvil.
    const id = await createUnpicked({ amount: '30', currency: 'USD', is_test: true });
    const picked = await pick(id, 'ethereum', 'ETH');
    expect(picked.expected_amount_native).toBe('0.01');
    await evm.sendEth(picked.address ?? '', 10n ** 16n, 1);
    const confirmed = await delivered(id, 'payment.confirmed');
    expect(confirmed).toMatchObject({
      status: 'completed',
      chain: 'ethereum',
      received_amount_native: '0.01',
    });

    // Live mode: an amount in ETH, offered only where a live payout wallet is set and a node connected.
    const liveId = await createUnpicked({ amount: '0.02', currency: 'ETH', is_test: false });
    const offered = await checkout(liveId);
    expect(offered.options.map((option) => `${option.chain}:${option.asset}`)).toEqual(['ethereum:ETH']);
    const livePicked = await pick(liveId, 'ethereum', 'ETH');
    expect(livePicked.expected_amount_native).toBe('0.02');
    await evm.sendEth(livePicked.address ?? '', 2n * 10n ** 16n, 2);
    const live = await waitFor(
      'the live payment to complete',
      async () => {
        const read = (await call('GET', `/payments/${liveId}`, undefined, token)).body as Record<
          string,
          unknown
        >;
        return read.status === 'completed' ? read : undefined;
      },
      60_000,
    );
    expect(live).toMatchObject({
      chain: 'ethereum',
      is_test: false,
      chosen_by: 'payer',
      received_amount_native: '0.02',
    });
    expect((live.events as Array<{ type: string; payload: { chain: string } }>)[0]).toMatchObject({
      type: 'payment.confirmed',
      payload: { chain: 'ethereum' },
    });
  });

  it('an unpicked payment that expires says no chain yet: chain "" and amounts "0" in payment.expired', async () => {
    const id = await createUnpicked({ amount: '5', currency: 'USD', is_test: true, expires_in: 60 });
    const simulated = await call('POST', `/payments/${id}/simulate`, { outcome: 'expired' }, token);
    expect(simulated.status).toBe(409);
    // The window is a minute: wait for the expiry job rather than simulating (nothing to simulate on yet).
    const expired = await waitFor(
      'the unpicked payment to expire',
      async () => ((await checkout(id)).status === 'expired' ? true : undefined),
      90_000,
    );
    expect(expired).toBe(true);
    const body = await delivered(id, 'payment.expired');
    expect(body).toMatchObject({ chain: '', expected_amount_native: '0', received_amount_native: '0' });
    const late = await call('POST', `/payments/checkout/${id}/select`, { chain: 'base', asset: 'ETH' });
    expect(late.status).toBe(409);
  }, 150_000);
});
