import { randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressDeriver, MAX_DERIVATION_INDEX } from '../src/modules/chains/derivation.ts';
import { EVM_REFUND_WALLET_INDEX } from '../src/modules/chains/evm/adapter.ts';
import { type Anvil, startAnvil } from './support/anvil.ts';
import { type EvmTestChain, setUpEvmChain } from './support/evm.ts';
import { testMnemonic } from './support/harness.ts';
import { type IsolatedProgram, LIVE_MNEMONIC, startIsolatedServe } from './support/live-program.ts';
import { keyedApi } from './support/program.ts';
import { refundMerchant, refundsApi, baseUnits as units } from './support/refunds.ts';
import { waitFor } from './support/webhooks.ts';

/**
 * The refund wallet of an EVM chain (SVC_CHAIN_ETHEREUM_REFUND_WALLET=on) through the running program against anvil,
 * balances checked on chain: swept payments refunded from it (ether less its exact fee, USDC with the wallet's own
 * gas), shown to the operator beside the gas wallet with its balances, and a refund it is too poor for handed to the
 * merchant as a payment request (then paid by the merchant and seen on chain).
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
  from_address: string | null;
  sent_amount_native: string | null;
  fee_native: string | null;
  tx_hash: string | null;
  last_error: string | null;
  payment_request: { uri: string; amount_native: string; to_address: string } | null;
}

interface FeeWallet {
  chain: string;
  is_test: boolean;
  role: string;
  address: string;
  balance_native: string | null;
  low: boolean;
  token_balances?: Array<{ asset: string; balance_native: string | null }>;
}

const randomAddress = (): Hex => `0x${randomBytes(20).toString('hex')}`;

describe('an EVM refund wallet through the running program against anvil', { timeout: 240_000 }, () => {
  let anvil: Anvil;
  let chain: EvmTestChain;
  let served: IsolatedProgram | undefined;
  let base = '';
  let key = '';
  let token = '';
  const api = keyedApi(() => base);
  const refunds = refundsApi(
    () => base,
    () => served?.program.output() ?? '',
  );
  const deriver = createAddressDeriver({ testMnemonic, liveMnemonic: LIVE_MNEMONIC });
  const refundWallet = deriver.deriveAddress('ethereum', false, EVM_REFUND_WALLET_INDEX);
  const gasWallet = deriver.deriveAddress('ethereum', false, MAX_DERIVATION_INDEX);

  beforeAll(async () => {
    anvil = await startAnvil({ blockTime: 1 });
    chain = await setUpEvmChain(anvil);
    await chain.mined(chain.sendEth(gasWallet, ETH, 1));
    await chain.mined(chain.sendEth(refundWallet, ETH, 2));
    await chain.mined(chain.sendToken(refundWallet, 5_000_000n, 2));
    served = await startIsolatedServe({
      dataDirPrefix: 'svc-refund-wallet-',
      env: {
        SVC_CHAIN_ETHEREUM_RPC_URL: anvil.url,
        SVC_CHAIN_ETHEREUM_CHAIN_ID: '31337',
        SVC_CHAIN_ETHEREUM_POLL_MS: '200',
        SVC_CHAIN_ETHEREUM_REFUND_WALLET: 'on',
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
    token = merchant.token;
    await merchant.payoutWallets({ ethereum: randomAddress() });
  }, 120_000);

  afterAll(async () => {
    await served?.stop();
    await anvil?.stop();
  });

  async function feeWallets(): Promise<FeeWallet[]> {
    const answer = await fetch(`${base}/v1/operator/fee-wallets`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { data: FeeWallet[] }).data;
  }

  /** A payment paid in full and swept to the payout wallet: its deposit address holds nothing any more. */
  async function sweptPayment(body: Record<string, unknown>, pay: (address: string) => Promise<unknown>) {
    const created = await api<Payment>('POST', '/payments', key, { chain: 'ethereum', ...body });
    await pay(created.address);
    return waitFor(
      'the payment completed and swept',
      async () => {
        const seen = await api<Payment>('GET', `/payments/${created.payment_id}`, key);
        return seen.status === 'completed' && seen.forwarded_at !== null ? seen : undefined;
      },
      60_000,
    );
  }

  const refundWhere = (id: string, what: string, check: (refund: Refund) => boolean) =>
    refunds.until<Refund>(key, id, what, check, 40_000);

  it('shows the refund wallet to the operator beside the gas wallet, with its ether and token balances', async () => {
    const wallets = (await feeWallets()).filter((w) => w.chain === 'ethereum' && !w.is_test);
    expect(wallets.map((w) => w.address.toLowerCase()).sort()).toEqual(
      [gasWallet.toLowerCase(), refundWallet.toLowerCase()].sort(),
    );
    const refunds = wallets.find((w) => w.address.toLowerCase() === refundWallet.toLowerCase());
    expect(refunds).toMatchObject({ balance_native: '1', low: false });
    expect(refunds?.role).toContain('refunds of swept payments');
    expect(refunds?.token_balances).toContainEqual({ asset: 'USDC', balance_native: '5' });
    const gas = wallets.find((w) => w.address.toLowerCase() === gasWallet.toLowerCase());
    expect(gas?.token_balances).toBeUndefined();
  });

  it('refunds a swept ether payment from the refund wallet: the payer gets it less the exact fee', async () => {
    const paid = await sweptPayment({ amount: '0.5', currency: 'ETH' }, (address) =>
      chain.sendEth(address, ETH / 2n),
    );
    expect(await chain.ethBalance(paid.address)).toBe(0n);
    const walletBefore = await chain.ethBalance(refundWallet);
    const to = randomAddress();
    const refund = await api<Refund>('POST', `/payments/${paid.payment_id}/refunds`, key, {
      amount: '0.2',
      address: to,
    });
    const sent = await refundWhere(refund.id, 'the ether refund sent', (r) => r.status === 'sent');
    expect(sent.source).toBe('refund_wallet');
    const received = await chain.ethBalance(to);
    expect(received).toBe(units(sent.sent_amount_native ?? '0', 18));
    expect(received + units(sent.fee_native ?? '0', 18)).toBe(ETH / 5n);
    // The wallet paid exactly the refund's amount (what reached the payer and the fee), nothing more.
    expect(walletBefore - (await chain.ethBalance(refundWallet))).toBe(ETH / 5n);
  });

  it('refunds swept USDC from the refund wallet, and one it is too poor for becomes a payment request', async () => {
    const paid = await sweptPayment({ amount: '10', currency: 'USDC', asset: 'USDC' }, (address) =>
      chain.sendToken(address, 10_000_000n),
    );
    const etherBefore = await chain.ethBalance(refundWallet);
    const first = randomAddress();
    const refund = await api<Refund>('POST', `/payments/${paid.payment_id}/refunds`, key, {
      amount: '2',
      address: first,
    });
    const sent = await refundWhere(refund.id, 'the token refund sent', (r) => r.status === 'sent');
    expect(sent).toMatchObject({ source: 'refund_wallet', sent_amount_native: '2' });
    expect(await chain.tokenBalance(first)).toBe(2_000_000n);
    expect(await chain.tokenBalance(refundWallet)).toBe(3_000_000n);
    expect(await chain.tokenBalance(paid.address)).toBe(0n);
    // Its gas came from the refund wallet's own ether, as charged.
    expect(etherBefore - (await chain.ethBalance(refundWallet))).toBe(units(sent.fee_native ?? '0', 18));

    // 4 USDC more is more than the wallet's 3: the merchant is asked instead, and nothing leaves the wallet.
    const second = randomAddress();
    const poor = await api<Refund>('POST', `/payments/${paid.payment_id}/refunds`, key, {
      amount: '4',
      address: second,
    });
    const asked = await refundWhere(poor.id, 'the payment request', (r) => r.status === 'awaiting_payment');
    expect(asked).toMatchObject({ source: 'merchant', tx_hash: null });
    expect(asked.payment_request).toMatchObject({ amount_native: '4', to_address: second });
    expect(asked.last_error).toContain('the merchant is asked to pay it');
    expect(await chain.tokenBalance(refundWallet)).toBe(3_000_000n);
    const shown = (await feeWallets()).find((w) => w.address.toLowerCase() === refundWallet.toLowerCase());
    expect(shown).toMatchObject({ low: true });
    expect(shown?.token_balances).toContainEqual({ asset: 'USDC', balance_native: '3' });
    // The merchant pays it from their own wallet; the watcher sees it and the refund is sent.
    await chain.sendToken(second, 4_000_000n, 3);
    const paidByMerchant = await refundWhere(
      poor.id,
      'the merchant-paid refund sent',
      (r) => r.status === 'sent',
    );
    expect(paidByMerchant.source).toBe('merchant');
    expect(await chain.tokenBalance(second)).toBe(4_000_000n);
    expect(await chain.tokenBalance(refundWallet)).toBe(3_000_000n);
  });
});
