import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressDeriver, MAX_DERIVATION_INDEX } from '../src/modules/chains/derivation.ts';
import { type Anvil, startAnvil } from './support/anvil.ts';
import { type EvmTestChain, setUpEvmChain } from './support/evm.ts';
import { testMnemonic } from './support/harness.ts';
import { type IsolatedProgram, LIVE_MNEMONIC, startIsolatedServe } from './support/live-program.ts';
import { keyedApi } from './support/program.ts';
import { refundMerchant, refundsApi, baseUnits as units } from './support/refunds.ts';
import { waitFor } from './support/webhooks.ts';

/**
 * Live refunds on an EVM chain through the running program against anvil, balances checked on chain: ether and USDC
 * refunded from the deposit address while the funds are there (the fee out of an ether refund; a token refund's gas
 * topped up by the gas wallet), a swept payment refunded by the merchant's own transfer (the payment request, seen by
 * the watcher), and a contract address refused.
 */

const ETH = 10n ** 18n;

interface Payment {
  payment_id: string;
  status: string;
  address: string;
  forwarded_at: string | null;
}

interface Refund {
  id: string;
  status: string;
  source: string | null;
  sent_amount_native: string | null;
  fee_native: string | null;
  tx_hash: string | null;
  payment_request: { uri: string; amount_native: string; to_address: string } | null;
}

const randomAddress = (): Hex => `0x${randomBytes(20).toString('hex')}`;

describe('live EVM refunds through the running program against anvil', { timeout: 180_000 }, () => {
  let anvil: Anvil;
  let chain: EvmTestChain;
  let served: IsolatedProgram | undefined;
  let base = '';
  let key = '';
  const api = keyedApi(() => base);
  const refunds = refundsApi(
    () => base,
    () => served?.program.output() ?? '',
  );

  beforeAll(async () => {
    anvil = await startAnvil({ blockTime: 1 });
    chain = await setUpEvmChain(anvil);
    const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: LIVE_MNEMONIC });
    await chain.sendEth(deriver.deriveAddress('ethereum', false, MAX_DERIVATION_INDEX), ETH, 1);
    served = await startIsolatedServe({
      dataDirPrefix: 'svc-refunds-evm-',
      env: {
        SVC_CHAIN_ETHEREUM_RPC_URL: anvil.url,
        SVC_CHAIN_ETHEREUM_CHAIN_ID: '31337',
        SVC_CHAIN_ETHEREUM_POLL_MS: '200',
        SVC_CONFIRMATIONS: 'ethereum=2',
        SVC_EVM_MAX_HEAD_AGE_SECONDS: '0',
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'warn',
      },
    });
    base = served.base;
    const merchant = await refundMerchant(base);
    key = merchant.key;
    await merchant.payoutWallets({ ethereum: randomAddress() });
  }, 120_000);

  afterAll(async () => {
    await served?.stop();
    await anvil?.stop();
  });

  async function payment(
    body: Record<string, unknown>,
    pay: (address: string) => Promise<unknown>,
    status: string,
  ) {
    const created = await api<Payment>('POST', '/payments', key, { chain: 'ethereum', ...body });
    await pay(created.address);
    return waitFor(
      `payment ${status}`,
      async () => {
        const seen = await api<Payment>('GET', `/payments/${created.payment_id}`, key);
        return seen.status === status ? seen : undefined;
      },
      30_000,
    );
  }

  const refundWhere = (id: string, what: string, check: (refund: Refund) => boolean) =>
    refunds.until<Refund>(key, id, what, check, 40_000);

  it('refunds underpaid ether from the deposit address: the payer gets it less the exact fee, nothing is left', async () => {
    const paid = await payment(
      { amount: '1', currency: 'ETH' },
      (address) => chain.sendEth(address, ETH / 4n),
      'underpaid',
    );
    const to = randomAddress();
    const refund = await api<Refund>('POST', `/payments/${paid.payment_id}/refunds`, key, { address: to });
    const sent = await refundWhere(refund.id, 'the ether refund sent', (r) => r.status === 'sent');
    expect(sent.source).toBe('deposit');
    const received = await chain.ethBalance(to);
    expect(received).toBe(units(sent.sent_amount_native ?? '0', 18));
    expect(received + units(sent.fee_native ?? '0', 18)).toBe(ETH / 4n);
    expect(await chain.ethBalance(paid.address)).toBe(0n);
  });

  it('refunds underpaid USDC from the deposit address, its gas topped up by the gas wallet', async () => {
    const paid = await payment(
      { amount: '10', currency: 'USDC', asset: 'USDC' },
      (address) => chain.sendToken(address, 4_000_000n),
      'underpaid',
    );
    const to = randomAddress();
    const refund = await api<Refund>('POST', `/payments/${paid.payment_id}/refunds`, key, {
      amount: '1.5',
      address: to,
    });
    const sent = await refundWhere(refund.id, 'the token refund sent', (r) => r.status === 'sent');
    expect(sent).toMatchObject({ source: 'deposit', sent_amount_native: '1.5' });
    expect(await chain.tokenBalance(to)).toBe(1_500_000n);
    expect(await chain.tokenBalance(paid.address)).toBe(2_500_000n);
  });

  it('a swept payment is refunded by the merchant: the payment request, then its transfer seen on chain', async () => {
    const paid = await payment(
      { amount: '3', currency: 'USDC', asset: 'USDC' },
      (address) => chain.sendToken(address, 3_000_000n),
      'completed',
    );
    await waitFor(
      'the payment swept',
      async () => (await api<Payment>('GET', `/payments/${paid.payment_id}`, key)).forwarded_at !== null,
      40_000,
    );
    const to = randomAddress();
    const refund = await api<Refund>('POST', `/payments/${paid.payment_id}/refunds`, key, {
      amount: '2',
      address: to,
    });
    const asked = await refundWhere(refund.id, 'the payment request', (r) => r.status === 'awaiting_payment');
    expect(asked.source).toBe('merchant');
    expect(asked.payment_request).toMatchObject({ amount_native: '2', to_address: to });
    expect(asked.payment_request?.uri).toContain(`uint256=2000000`);
    // The merchant pays it from their own wallet.
    await chain.sendToken(to, 2_000_000n, 2);
    const sent = await refundWhere(refund.id, 'the merchant-paid refund sent', (r) => r.status === 'sent');
    expect(sent.tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await chain.tokenBalance(to)).toBe(2_000_000n);
  });

  it('refuses a contract address with a clear error', async () => {
    const paid = await payment(
      { amount: '1', currency: 'ETH' },
      (address) => chain.sendEth(address, ETH / 10n),
      'underpaid',
    );
    const answer = await fetch(`${base}/v1/payments/${paid.payment_id}/refunds`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ address: chain.forwarder }),
    });
    expect(answer.status).toBe(400);
    const body = (await answer.json()) as { error: { code: string; message: string; param: string } };
    expect(body.error).toMatchObject({ code: 'refund_address_invalid', param: 'address' });
    expect(body.error.message).toContain('is a contract');
  });
});
