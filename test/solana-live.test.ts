import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strongPassword, uniqueEmail } from './support/harness.ts';
import { keyedApi } from './support/program.ts';
import {
  ata,
  balance,
  createAta,
  LIVE_USDC_MINT,
  newWallet,
  send,
  solanaMerchant,
  solTransfer,
  TEST_USDC_MINT,
  type TestWallet,
  tokenBalance,
  tokenTransfer,
} from './support/solana.ts';
import { LAMPORTS, startSolanaProgram } from './support/solana-program.ts';
import type { SolanaTestRpc } from './support/solana-rpc.ts';
import { waitFor } from './support/webhooks.ts';

/**
 * Live Solana payments end to end: the real program (`svc serve`, spawned) with a live mnemonic and
 * SVC_CHAIN_SOLANA_RPC_URL pointing at the LiteSVM test RPC (test/support/solana-rpc.ts: the real System, SPL Token
 * and ATA programs; slots every 200 ms, finalized 3 blocks behind confirmed, blockhashes valid 20 blocks).
 * SVC_CHAIN_SOLANA_GENESIS_HASH lets it stand in for mainnet; USDC is installed at its mainnet mint. Checked through
 * the API and on the SVM's accounts: SOL and USDC payments (to an existing token account, and one whose transaction
 * creates it), underpaid then topped up, overpaid, a failed transaction not credited, two payments in one transaction,
 * expiry and late funds, SOL and token sweeps with balances and rent, a sweep that expired unseen signed again, the
 * RPC gone mid-scan, and a fork abandoning a confirmed block. The node's WebSocket is test/solana-ws.test.ts.
 */

interface Payment {
  payment_id: string;
  status: string;
  address: string;
  expected_amount_native: string;
  received_amount_native: string;
  forwarded_at: string | null;
  forward_tx_hash: string | null;
  forward_fee_native: string | null;
  deposits: Array<{ tx_hash: string; amount_native: string; state: string }>;
  events: Array<{ type: string }>;
}

/** Decimal text of base units (9 decimals SOL, 6 USDC), as the API writes amounts. */
function units(text: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0') || '0');
}

describe('live Solana payments through the running program against LiteSVM', { timeout: 120_000 }, () => {
  let node: SolanaTestRpc;
  let base = '';
  let output = (): string => '';
  let stop: () => Promise<void> = async () => {};
  let payer: TestWallet;
  /** The live fee payer's address (SVC_CHAIN_SOLANA_FEE_PAYER_KEY). */
  let feePayer = '';
  /** Created first, so that its 60-second window runs out while the other cases run. */
  let expiring: { key: string; payment: Payment };

  beforeAll(async () => {
    const started = await startSolanaProgram({
      dataDirPrefix: 'svc-sol-live-',
      env: (rpc) => ({
        SVC_CHAIN_SOLANA_RPC_TIMEOUT_MS: '1000',
        SVC_CHAIN_SOLANA_RPC_RETRIES: '1',
        // Test mode on the same RPC (a test cluster): it replaces the simulator on solana.
        SVC_TEST_CHAIN_SOLANA_RPC_URL: rpc.url,
        SVC_TEST_CHAIN_SOLANA_GENESIS_HASH: rpc.genesisHash,
        SVC_TEST_CHAIN_SOLANA_POLL_MS: '200',
        SVC_TEST_CHAIN_SOLANA_CONFIRMATIONS: '2',
        SVC_OPERATOR_EMAILS: 'operator@fee-wallets.example.org',
        LOG_LEVEL: 'info',
      }),
    });
    ({ node, base, payer, feePayer, stop } = started);
    output = started.program.output;
    const m = await merchant();
    expiring = { key: m.key, payment: await create(m.key, '0.25', 'SOL', 60) };
  }, 120_000);

  afterAll(async () => {
    await stop();
  });

  const api = keyedApi(() => base);

  /** A merchant with a live key and a fresh live payout wallet (an account that does not exist yet). */
  const merchant = () => solanaMerchant(base);

  const create = (key: string, amount: string, asset: 'SOL' | 'USDC', expiresIn?: number) =>
    api<Payment>('POST', '/payments', key, {
      chain: 'solana',
      amount,
      currency: asset,
      asset,
      ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
    });
  const get = (key: string, id: string) => api<Payment>('GET', `/payments/${id}`, key);
  const types = (p: Payment) => p.events.map((e) => e.type);

  async function until(
    key: string,
    id: string,
    what: string,
    check: (p: Payment) => boolean,
    timeoutMs = 20_000,
  ) {
    let last: Payment | undefined;
    try {
      return await waitFor(
        `${what} (payment ${id})`,
        async () => {
          last = await get(key, id);
          return check(last) ? last : undefined;
        },
        timeoutMs,
      );
    } catch (error) {
      throw new Error(`${String(error)}\nlast seen: ${JSON.stringify(last)}\n${output().slice(-3000)}`);
    }
  }

  const swept = (key: string, p: Payment, timeoutMs = 30_000) =>
    until(key, p.payment_id, 'forwarded', (x) => x.forwarded_at !== null, timeoutMs);

  const paySol = async (to: string, amount: bigint) =>
    send(node, payer.signer, [solTransfer(payer.signer, to, amount)]);
  const payUsdc = async (to: string, amount: bigint, createAccount: boolean) =>
    send(node, payer.signer, [
      ...(createAccount ? [await createAta(payer.signer, to, LIVE_USDC_MINT)] : []),
      await tokenTransfer(payer.signer, to, LIVE_USDC_MINT, amount),
    ]);

  it('SOL: confirming at the confirmed commitment, completed at finalized, swept to zero with the fee payer paying', async () => {
    const m = await merchant();
    const p = await create(m.key, '0.5', 'SOL');
    expect(p.address).toMatch(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/);
    const feePayerBefore = balance(node, feePayer);
    let paid: { signature: string; err: unknown };
    // Slots only when the test makes them: confirming must show while the payment's block is not finalized, which a
    // time limit could only suggest (the payment's slot is seconds from finalized on mainnet, 0.6 s here).
    node.hold(true);
    try {
      paid = await paySol(p.address, LAMPORTS / 2n);
      expect(paid.err).toBeNull();
      const landedSlot = node.tick();
      const confirming = await until(m.key, p.payment_id, 'confirming', (x) => x.status === 'confirming');
      expect(confirming.deposits).toMatchObject([{ tx_hash: paid.signature, state: 'seen' }]);
      expect(node.finalizedSlot()).toBeLessThan(landedSlot);
    } finally {
      node.hold(false);
    }
    const completed = await until(m.key, p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(completed.deposits).toMatchObject([
      { tx_hash: paid.signature, state: 'final', amount_native: '0.5' },
    ]);
    expect(types(completed)).toContain('payment.confirmed');
    const done = await swept(m.key, completed);
    expect(types(done)).toContain('payment.completed');
    const fee = units(done.forward_fee_native ?? '0', 9);
    expect(fee).toBeGreaterThanOrEqual(10_000n); // two signatures, and a priority fee
    expect(balance(node, p.address)).toBe(0n);
    expect(balance(node, m.payout)).toBe(LAMPORTS / 2n);
    expect(feePayerBefore - balance(node, feePayer)).toBe(fee);
  });

  it("the fee payers are shown to the instance's operators with their balances, and to no one else", async () => {
    const session = async (email: string) => {
      const signup = await fetch(`${base}/v1/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: strongPassword }),
      });
      return ((await signup.json()) as { token: string }).token;
    };
    const operator = await session('operator@fee-wallets.example.org');
    const read = (token: string) =>
      fetch(`${base}/v1/operator/fee-wallets`, { headers: { authorization: `Bearer ${token}` } });
    const answer = await read(operator);
    expect(answer.status).toBe(200);
    const { data } = (await answer.json()) as {
      data: Array<{
        chain: string;
        is_test: boolean;
        address: string;
        asset: string;
        balance_native: string | null;
        low_below_native: string | null;
        low: boolean;
      }>;
    };
    const live = data.find((wallet) => wallet.chain === 'solana' && !wallet.is_test);
    expect(live).toMatchObject({ address: feePayer, asset: 'SOL', low: false });
    expect(units(live?.balance_native ?? '', 9)).toBe(balance(node, feePayer));
    // Test mode's fee payer is derived from the test mnemonic: another address, unfunded here, so it warns.
    const test = data.find((wallet) => wallet.chain === 'solana' && wallet.is_test);
    expect(test?.address).not.toBe(feePayer);
    expect(test?.low).toBe(units(test?.balance_native ?? '0', 9) < units(test?.low_below_native ?? '0', 9));
    // A merchant who is not an operator is refused.
    expect((await read(await session(uniqueEmail()))).status).toBe(403);
  });

  it('USDC to an existing token account, and one whose transaction creates it: swept, deposit accounts closed', async () => {
    const m = await merchant();
    const existing = await create(m.key, '12.5', 'USDC');
    const created = await create(m.key, '7.25', 'USDC');
    // The first deposit address's token account exists before the payment (made by someone else earlier).
    await send(node, payer.signer, [await createAta(payer.signer, existing.address, LIVE_USDC_MINT)]);
    // Both paid in one transaction, so both complete in the same slot: the forwarder then finds them together (paid
    // in two slots, a busy machine could sweep the first before the second completes, which is right but not this test).
    const both = await send(node, payer.signer, [
      await tokenTransfer(payer.signer, existing.address, LIVE_USDC_MINT, 12_500_000n),
      await createAta(payer.signer, created.address, LIVE_USDC_MINT),
      await tokenTransfer(payer.signer, created.address, LIVE_USDC_MINT, 7_250_000n),
    ]);
    expect(both.err).toBeNull();
    const a = await until(m.key, existing.payment_id, 'completed', (x) => x.status === 'completed');
    const b = await until(m.key, created.payment_id, 'completed', (x) => x.status === 'completed');
    expect(a.deposits).toMatchObject([{ tx_hash: both.signature, amount_native: '12.5' }]);
    expect(b.deposits).toMatchObject([{ tx_hash: both.signature, amount_native: '7.25' }]);
    const doneA = await swept(m.key, a);
    const doneB = await swept(m.key, b);
    // Both in one sweep (one merchant, one asset), to the payout's token account made by the fee payer.
    expect(doneA.forward_tx_hash).toBe(doneB.forward_tx_hash);
    expect(await tokenBalance(node, m.payout, LIVE_USDC_MINT)).toBe(19_750_000n);
    for (const p of [existing, created]) {
      expect(node.svm.getAccount(await ata(p.address, LIVE_USDC_MINT)).exists).toBe(false);
    }
  });

  it('underpaid, then topped up; and overpaid', async () => {
    const m = await merchant();
    const p = await create(m.key, '0.2', 'SOL');
    await paySol(p.address, LAMPORTS / 10n);
    await until(m.key, p.payment_id, 'underpaid', (x) => x.status === 'underpaid');
    await paySol(p.address, LAMPORTS / 10n);
    const completed = await until(m.key, p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(completed.deposits).toHaveLength(2);
    expect(types(completed)).toEqual(expect.arrayContaining(['payment.underpaid', 'payment.confirmed']));
    await swept(m.key, completed);
    expect(balance(node, m.payout)).toBe(LAMPORTS / 5n);
    const over = await create(m.key, '3', 'USDC');
    await payUsdc(over.address, 5_000_000n, true);
    const overpaid = await until(m.key, over.payment_id, 'overpaid', (x) => x.status === 'overpaid');
    expect(overpaid.received_amount_native).toBe('5');
    const done = await swept(m.key, overpaid);
    expect(done.status).toBe('overpaid');
    expect(await tokenBalance(node, m.payout, LIVE_USDC_MINT)).toBe(5_000_000n);
  });

  it('a failed transaction is not credited; two payments in one transaction are each credited once', async () => {
    const m = await merchant();
    const a = await create(m.key, '0.3', 'SOL');
    const b = await create(m.key, '4', 'USDC');
    // Pays a, then fails on an overdraft: nothing of it stands.
    const failed = await send(node, payer.signer, [
      solTransfer(payer.signer, a.address, 3n * 10n ** 8n),
      solTransfer(payer.signer, a.address, 10n ** 17n),
    ]);
    expect(failed.err).not.toBeNull();
    // One transaction pays both.
    const both = await send(node, payer.signer, [
      solTransfer(payer.signer, a.address, 3n * 10n ** 8n),
      await createAta(payer.signer, b.address, LIVE_USDC_MINT),
      await tokenTransfer(payer.signer, b.address, LIVE_USDC_MINT, 4_000_000n),
    ]);
    const doneA = await until(m.key, a.payment_id, 'completed', (x) => x.status === 'completed');
    const doneB = await until(m.key, b.payment_id, 'completed', (x) => x.status === 'completed');
    expect(doneA.deposits).toMatchObject([{ tx_hash: both.signature, amount_native: '0.3' }]);
    expect(doneB.deposits).toMatchObject([{ tx_hash: both.signature, amount_native: '4' }]);
    expect(doneA.deposits.some((d) => d.tx_hash === failed.signature)).toBe(false);
    await swept(m.key, doneA);
    await swept(m.key, doneB);
  });

  it('a sweep whose blockhash expired unseen is signed again, once, and only the new version lands', async () => {
    const m = await merchant();
    const p = await create(m.key, '1.5', 'SOL');
    node.dropSends(1);
    const sentBefore = node.sent.length;
    await paySol(p.address, (3n * LAMPORTS) / 2n);
    await until(m.key, p.payment_id, 'completed', (x) => x.status === 'completed');
    const done = await swept(m.key, p, 60_000);
    const sends = node.sent.slice(sentBefore);
    const versions = [...new Set(sends)];
    expect(versions).toHaveLength(2);
    // The first version was sent (and re-sent) but never executed; the second is the one counted.
    expect(done.forward_tx_hash).toBe(versions[1]);
    expect(balance(node, m.payout)).toBe((3n * LAMPORTS) / 2n);
    expect(balance(node, p.address)).toBe(0n);
  });

  it('the RPC gone mid-scan, back with 429s: nothing missed, nothing counted twice', async () => {
    const m = await merchant();
    const p = await create(m.key, '0.35', 'SOL');
    node.down(true);
    const paid = await paySol(p.address, 35n * 10n ** 7n);
    await waitFor(
      'readyz to report the RPC down',
      async () => {
        const ready = await fetch(`${base}/readyz`);
        if (ready.status !== 503) return undefined;
        return /solana \(live\)/.test(await ready.text()) ? true : undefined;
      },
      10_000,
    );
    node.down(false);
    // Back, but rate limiting for a while (429): requests rest and retry, nothing is lost.
    node.rateLimit(5);
    const completed = await until(m.key, p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(completed.deposits).toMatchObject([{ tx_hash: paid.signature }]);
    expect(completed.deposits).toHaveLength(1);
    expect(completed.received_amount_native).toBe('0.35');
    await waitFor('ready again', async () => (await fetch(`${base}/readyz`)).status === 200, 10_000);
  });

  it('a fork abandons the block of two payments before it is finalized: walked back, pending again; one transaction lands again and is counted once, the other is never credited', async () => {
    const m = await merchant();
    const dropped = await create(m.key, '0.4', 'SOL');
    const relanded = await create(m.key, '0.6', 'SOL');
    const [payerA, payerB] = [await newWallet(node, 5n), await newWallet(node, 5n)];
    let a: { signature: string };
    let b: { signature: string };
    // Slots only when the test makes them: the fork must come before the payments' block is finalized.
    node.hold(true);
    try {
      a = await send(node, payerA.signer, [solTransfer(payerA.signer, dropped.address, 4n * 10n ** 8n)]);
      b = await send(node, payerB.signer, [solTransfer(payerB.signer, relanded.address, 6n * 10n ** 8n)]);
      node.tick();
      for (const p of [dropped, relanded]) {
        const seen = await until(m.key, p.payment_id, 'confirming', (x) => x.status === 'confirming');
        expect(seen.deposits).toMatchObject([{ state: 'seen' }]);
      }
      node.tick();
      // Their block and the one on top are abandoned for another fork, in which b's transaction lands again.
      node.fork(2, { reland: [b.signature] });
      node.ticks(3);
      const back = await until(m.key, dropped.payment_id, 'pending again', (x) => x.status === 'pending');
      expect(back.deposits).toMatchObject([{ tx_hash: a.signature, state: 'reverted' }]);
      expect(back.received_amount_native).toBe('0');
    } finally {
      node.hold(false);
    }
    const done = await until(m.key, relanded.payment_id, 'completed', (x) => x.status === 'completed');
    expect(done.deposits).toEqual([
      expect.objectContaining({ tx_hash: b.signature, state: 'final', amount_native: '0.6' }),
    ]);
    expect(done.received_amount_native).toBe('0.6');
    expect(types(done).filter((type) => type === 'payment.confirmed')).toHaveLength(1);
    // The dropped one stays uncredited once the new fork is finalized well past it (and scanned: b completed there).
    const forkedAt = node.confirmedSlot();
    await waitFor('the new fork finalized', () => node.finalizedSlot() > forkedAt, 10_000);
    await until(m.key, relanded.payment_id, 'swept', (x) => x.forwarded_at !== null, 30_000);
    const never = await get(m.key, dropped.payment_id);
    expect(never.status).toBe('pending');
    expect(never.deposits).toMatchObject([{ tx_hash: a.signature, state: 'reverted' }]);
    expect(types(never)).not.toContain('payment.confirmed');
    expect(balance(node, dropped.address)).toBe(0n);
    expect(balance(node, m.payout)).toBe(6n * 10n ** 8n);
  });

  it('expiry and late funds: the expired payment records late funds, keeps its status, and is swept', async () => {
    const { key, payment } = expiring;
    const expired = await until(key, payment.payment_id, 'expired', (x) => x.status === 'expired', 70_000);
    expect(types(expired)).toContain('payment.expired');
    await paySol(payment.address, LAMPORTS / 4n);
    const late = await until(
      key,
      payment.payment_id,
      'late funds final',
      (x) => x.received_amount_native === '0.25',
    );
    expect(late.status).toBe('expired');
    const done = await swept(key, late);
    expect(done.status).toBe('expired');
    expect(balance(node, payment.address)).toBe(0n);
  });

  it('test mode on a real test cluster: a test key pays on the RPC, not on the simulator; swept by the derived fee payer', async () => {
    const { key: testKey, payout } = await solanaMerchant(base, 'test');
    const p = await api<Payment & { deposits: Array<{ simulated: boolean }> }>('POST', '/payments', testKey, {
      chain: 'solana',
      amount: '2.5',
      currency: 'USDC',
      asset: 'USDC',
    });
    const paid = await send(node, payer.signer, [
      await createAta(payer.signer, p.address, TEST_USDC_MINT),
      await tokenTransfer(payer.signer, p.address, TEST_USDC_MINT, 2_500_000n),
    ]);
    const completed = await until(testKey, p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(completed.deposits).toMatchObject([{ tx_hash: paid.signature, state: 'final', simulated: false }]);
    await swept(testKey, completed);
    expect(await tokenBalance(node, payout, TEST_USDC_MINT)).toBe(2_500_000n);
  });

  it('kept the RPC within budget: requests per block scanned', () => {
    const total = [...node.counts.values()].reduce((sum, n) => sum + n, 0);
    const blocks = node.counts.get('getBlock') ?? 0;
    expect(blocks).toBeGreaterThan(0);
    // Everything (scan, re-checks, sweeps) under a few requests per block: the budget is per block, not per payment.
    expect(total / Math.max(1, node.confirmedSlot())).toBeLessThan(10);
  });
});
