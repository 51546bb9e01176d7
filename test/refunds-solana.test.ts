import { generateKeyPairSigner } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyedApi } from './support/program.ts';
import { baseUnits, refundMerchant, refundsApi } from './support/refunds.ts';
import {
  ata,
  balance,
  createAta,
  LIVE_USDC_MINT,
  send,
  solTransfer,
  tokenBalance,
  tokenTransfer,
} from './support/solana.ts';
import { LAMPORTS, type SolanaProgram, startSolanaProgram } from './support/solana-program.ts';
import { waitFor } from './support/webhooks.ts';

/**
 * Live Solana refunds from the deposit address through the running program against LiteSVM, balances read from the
 * SVM's accounts: SOL of an underpaid payment (the deposit address signs alone and pays the fee out of the refund,
 * nothing is left), the excess of an overpaid one (exactly the expected amount stays), USDC to a payer without a token
 * account (the fee payer pays the fee and the new account's rent), and addresses refused with the API's error.
 */

const TOKEN_ACCOUNT_RENT = 2_039_280n;

interface Payment {
  payment_id: string;
  status: string;
  address: string;
}

describe('live Solana refunds through the running program against LiteSVM', { timeout: 180_000 }, () => {
  let solana: SolanaProgram;
  let key = '';
  let merchant: Awaited<ReturnType<typeof refundMerchant>>;
  const api = keyedApi(() => solana.base);
  const refunds = refundsApi(
    () => solana.base,
    () => solana.program.output(),
  );

  beforeAll(async () => {
    solana = await startSolanaProgram({ dataDirPrefix: 'svc-refunds-sol-' });
    merchant = await refundMerchant(solana.base);
    key = merchant.key;
  }, 120_000);

  afterAll(async () => {
    await solana?.stop();
  });

  async function paid(
    amount: string,
    asset: 'SOL' | 'USDC',
    pay: (address: string) => Promise<unknown>,
    status: string,
  ) {
    // A live payment needs a payout wallet; removed once it exists, so that nothing is swept and refunds come from
    // the deposit address.
    await merchant.payoutWallets({ solana: await newAddress() });
    const created = await api<Payment>('POST', '/payments', key, {
      chain: 'solana',
      amount,
      currency: asset,
      asset,
    });
    await merchant.payoutWallets({});
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

  const paySol = (to: string, amount: bigint) =>
    send(solana.node, solana.payer.signer, [solTransfer(solana.payer.signer, to, amount)]);
  const newAddress = async () => (await generateKeyPairSigner()).address;

  it('refunds underpaid SOL from the deposit address: the fee out of the refund, signed by the deposit alone', async () => {
    const payment = await paid('0.5', 'SOL', (address) => paySol(address, LAMPORTS / 10n), 'underpaid');
    const to = await newAddress();
    const asked = await refunds.ask(key, payment.payment_id, { address: to });
    expect(asked.amount_native).toBe('0.1');
    const sent = await refunds.until(key, asked.id, 'the SOL refund sent', (r) => r.status === 'sent');
    expect(sent.source).toBe('deposit');
    const fee = baseUnits(sent.fee_native ?? '0', 9);
    expect(fee).toBe(5000n);
    expect(balance(solana.node, to)).toBe(LAMPORTS / 10n - fee);
    expect(baseUnits(sent.sent_amount_native ?? '0', 9)).toBe(LAMPORTS / 10n - fee);
    // The deposit address alone paid (the fee came out of what it held): nothing is left there.
    expect(balance(solana.node, payment.address)).toBe(0n);
  });

  it('refunds the excess of an overpaid SOL payment: exactly the expected amount stays at the deposit address', async () => {
    const payment = await paid('0.5', 'SOL', (address) => paySol(address, (LAMPORTS * 7n) / 10n), 'overpaid');
    const to = await newAddress();
    const asked = await refunds.ask(key, payment.payment_id, { address: to, amount: '0.2' });
    const sent = await refunds.until(key, asked.id, 'the excess refunded', (r) => r.status === 'sent');
    const fee = baseUnits(sent.fee_native ?? '0', 9);
    expect(balance(solana.node, to)).toBe((LAMPORTS * 2n) / 10n - fee);
    expect(balance(solana.node, payment.address)).toBe(LAMPORTS / 2n);
  });

  it('refunds USDC to a payer without a token account: the fee payer pays the fee and its rent', async () => {
    const payment = await paid(
      '10',
      'USDC',
      async (address) =>
        send(solana.node, solana.payer.signer, [
          await createAta(solana.payer.signer, address, LIVE_USDC_MINT),
          await tokenTransfer(solana.payer.signer, address, LIVE_USDC_MINT, 4_000_000n),
        ]),
      'underpaid',
    );
    const to = await newAddress();
    const feePayerBefore = balance(solana.node, solana.feePayer);
    const asked = await refunds.ask(key, payment.payment_id, { address: to, amount: '1.5' });
    const sent = await refunds.until(key, asked.id, 'the USDC refund sent', (r) => r.status === 'sent');
    expect(sent).toMatchObject({ source: 'deposit', sent_amount_native: '1.5' });
    expect(await tokenBalance(solana.node, to, LIVE_USDC_MINT)).toBe(1_500_000n);
    expect(await tokenBalance(solana.node, payment.address, LIVE_USDC_MINT)).toBe(2_500_000n);
    const fee = baseUnits(sent.fee_native ?? '0', 9);
    expect(feePayerBefore - balance(solana.node, solana.feePayer)).toBe(fee + TOKEN_ACCOUNT_RENT);
    expect(balance(solana.node, payment.address)).toBe(0n); // the deposit address paid nothing
  });

  it('refuses what is no Solana wallet address with a clear error', async () => {
    const payment = await paid('1', 'SOL', (address) => paySol(address, LAMPORTS / 10n), 'underpaid');
    const garbage = await refunds.refused(key, payment.payment_id, { address: '0xnot-a-solana-address' });
    expect(garbage.status).toBe(400);
    expect(garbage.error).toMatchObject({ code: 'refund_address_invalid', param: 'address' });
    expect(garbage.error.message).toContain('is not a valid Solana address');
    // A token account pasted instead of its owner's wallet: tokens sent there would be stranded.
    const tokenAccount = await ata(solana.payer.address, LIVE_USDC_MINT);
    const stranded = await refunds.refused(key, payment.payment_id, { address: tokenAccount });
    expect(stranded.status).toBe(400);
    expect(stranded.error).toMatchObject({ code: 'refund_address_invalid', param: 'address' });
    expect(stranded.error.message).toContain('is not a wallet on Solana');
    expect(stranded.error.request_id).toBeTruthy();
  });
});
