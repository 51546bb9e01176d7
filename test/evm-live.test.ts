import { createHmac, randomBytes } from 'node:crypto';
import type { Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressDeriver, MAX_DERIVATION_INDEX } from '../src/modules/chains/derivation.ts';
import { type Anvil, startAnvil } from './support/anvil.ts';
import { type EvmTestChain, setUpEvmChain } from './support/evm.ts';
import { strongPassword, testMnemonic, uniqueEmail } from './support/harness.ts';
import { LIVE_MNEMONIC, startIsolatedServe } from './support/live-program.ts';
import { keyedApi } from './support/program.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';
import { selfSignedCertificate } from './support/tls.ts';
import { type Receiver, startReceiver, waitFor } from './support/webhooks.ts';

/**
 * Live payments on an EVM chain, end to end: the real program (`svc serve`, spawned) with a live mnemonic and
 * SVC_CHAIN_ETHEREUM_RPC_URL pointing at anvil (through a TCP proxy the test can take down), a payout wallet per
 * merchant, and a payer moving real (local) ether and tokens. Checked: statuses through the API, deposits, the sweep
 * on chain (payout balances), and every event of each payment delivered, signed, to the merchant's live endpoint: an
 * HTTPS receiver on loopback with a throwaway certificate the program trusts (NODE_EXTRA_CA_CERTS), reachable because
 * the operator lists 127.0.0.1 in SVC_WEBHOOK_TRUSTED_NETWORKS. Test mode runs on the same node too
 * (SVC_TEST_CHAIN_ETHEREUM_RPC_URL: a real test network instead of the simulator), same adapter and watcher.
 */

const SEPOLIA_USDC = '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238';
const ETH = 10n ** 18n;

interface Payment {
  payment_id: string;
  status: string;
  address: string;
  expected_amount_native: string;
  received_amount_native: string;
  tx_hash: string | null;
  forwarded_at: string | null;
  forward_tx_hash: string | null;
  forward_fee_native: string | null;
  deposits: Array<{ tx_hash: string; amount_native: string; state: string; output_index: number }>;
  events: Array<{ type: string; payload: { status: string; tx_hash: string | null } }>;
}

interface Merchant {
  /** The sign-up's dashboard session. */
  token: string;
  liveKey: string;
  testKey: string;
  payout: Hex;
  /** The signing secret of the merchant's live endpoint (on `liveReceiver`). */
  liveSecret: string;
}

const randomAddress = (): Hex => `0x${randomBytes(20).toString('hex')}`;

/** Decimal string (18 or 6 decimals) to base units, exactly. */
function units(decimal: string, decimals: number): bigint {
  const [whole = '0', fraction = ''] = decimal.split('.');
  return (
    BigInt(whole) * 10n ** BigInt(decimals) + BigInt(fraction.padEnd(decimals, '0').slice(0, decimals) || '0')
  );
}

describe('live EVM payments through the running program against anvil', { timeout: 120_000 }, () => {
  let anvil: Anvil;
  let chain: EvmTestChain;
  let proxy: TcpProxy;
  let base = '';
  let output = (): string => '';
  let receiver: Receiver;
  let liveReceiver: Receiver;
  let stop: () => Promise<void> = async () => {};
  const liveDeriver = createAddressDeriver({ testMnemonic, liveMnemonic: LIVE_MNEMONIC });
  /** Created first, so that its 60-second window runs out while the other cases run. */
  let expiring: { m: Merchant; p: Payment };

  beforeAll(async () => {
    anvil = await startAnvil({ blockTime: 1 });
    chain = await setUpEvmChain(anvil);
    // Test mode's USDC contract (Sepolia's) is the same test token on this node.
    await anvil.rpc('anvil_setCode', [
      SEPOLIA_USDC,
      await chain.publicClient.getCode({ address: chain.token }),
    ]);
    await chain.wallet(0).writeContract({
      address: SEPOLIA_USDC,
      abi: [
        {
          type: 'function',
          name: 'mint',
          stateMutability: 'nonpayable',
          inputs: [
            { name: 'to', type: 'address' },
            { name: 'amount', type: 'uint256' },
          ],
          outputs: [],
        },
      ],
      functionName: 'mint',
      args: [chain.payer, 10n ** 12n],
      account: chain.wallet(0).account ?? null,
      chain: null,
    });
    // Gas wallets (derived at the reserved index) of both modes.
    for (const isTest of [false, true]) {
      await chain.sendEth(liveDeriver.deriveAddress('ethereum', isTest, MAX_DERIVATION_INDEX), ETH, 1);
    }
    proxy = await startTcpProxy(anvil.port);
    receiver = await startReceiver();
    const tls = selfSignedCertificate();
    liveReceiver = await startReceiver(undefined, tls);
    const started = await startIsolatedServe({
      dataDirPrefix: 'svc-evm-live-',
      env: {
        SVC_CHAIN_ETHEREUM_RPC_URL: proxy.url,
        SVC_CHAIN_ETHEREUM_CHAIN_ID: '31337',
        SVC_CHAIN_ETHEREUM_POLL_MS: '200',
        SVC_TEST_CHAIN_ETHEREUM_RPC_URL: anvil.url,
        SVC_TEST_CHAIN_ETHEREUM_CHAIN_ID: '31337',
        SVC_TEST_CHAIN_ETHEREUM_POLL_MS: '200',
        SVC_CONFIRMATIONS: 'ethereum=2',
        SVC_EVM_RPC_TIMEOUT_MS: '1000',
        SVC_EVM_RPC_RETRIES: '1',
        SVC_EVM_MAX_HEAD_AGE_SECONDS: '0',
        SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: 'true',
        SVC_WEBHOOK_TRUSTED_NETWORKS: '127.0.0.1',
        NODE_EXTRA_CA_CERTS: tls.certPath,
        SVC_WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,200ms,200ms',
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'info',
      },
    });
    stop = started.stop;
    base = started.base;
    const served = started.program;
    output = served.output;
    const m = await merchant();
    expiring = { m, p: await create(m.liveKey, { amount: '0.01', currency: 'ETH', expires_in: 60 }) };
  }, 120_000);

  afterAll(async () => {
    await stop();
    await receiver?.close();
    await liveReceiver?.close();
    await proxy?.close();
    await anvil?.stop();
  });

  const api = keyedApi(() => base);

  async function merchant(): Promise<Merchant> {
    const signup = await fetch(`${base}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: uniqueEmail(), password: strongPassword }),
    });
    const { token } = (await signup.json()) as { token: string };
    const pair = (await (
      await fetch(`${base}/v1/keypairs`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
    ).json()) as { test: { full_key: string }; live: { full_key: string } };
    const payout = randomAddress();
    // Payout wallets take a dashboard session with a fresh password: the sign-up's token is one.
    for (const mode of ['false', 'true']) {
      const wallets = await fetch(`${base}/v1/settings/payout-wallets?is_test=${mode}`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ethereum: payout }),
      });
      if (wallets.status !== 200)
        throw new Error(`payout wallets: ${wallets.status} ${await wallets.text()}`);
    }
    const endpoint = await api<{ signing_secret: string; is_test: boolean }>(
      'POST',
      '/webhooks',
      pair.live.full_key,
      {
        url: liveReceiver.url,
      },
    );
    expect(endpoint.is_test).toBe(false);
    return {
      token,
      liveKey: pair.live.full_key,
      testKey: pair.test.full_key,
      payout,
      liveSecret: endpoint.signing_secret,
    };
  }

  const create = (key: string, body: Record<string, unknown>) =>
    api<Payment>('POST', '/payments', key, { chain: 'ethereum', ...body });
  const get = (key: string, id: string) => api<Payment>('GET', `/payments/${id}`, key);

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

  const eventTypes = (p: Payment) => p.events.map((e) => e.type);

  /** Every event of the payment reaches the live endpoint, signed with its secret, in live mode. */
  async function expectDelivered(m: Merchant, p: Payment) {
    const types = eventTypes(p);
    const mine = await waitFor(
      `${types.join(', ')} delivered to the live endpoint (payment ${p.payment_id})`,
      () => {
        const found = liveReceiver.requests
          .map((r) => ({ r, body: JSON.parse(r.body.toString('utf8')) as Record<string, unknown> }))
          .filter(({ body }) => body.payment_id === p.payment_id);
        const delivered = new Set(found.map(({ body }) => body.event));
        return types.every((type) => delivered.has(type)) ? found : undefined;
      },
      30_000,
    );
    for (const { r, body } of mine) {
      const expected = `sha256=${createHmac('sha256', m.liveSecret).update(r.body).digest('hex')}`;
      expect(r.headers['x-service-signature']).toBe(expected);
      expect(body).toMatchObject({ is_test: false, chain: 'ethereum' });
    }
  }

  /**
   * The forward is final, the payout holds exactly what was received less the fee charged to the payment, and the
   * merchant's live endpoint received every event of the payment (payment.completed among them).
   */
  async function expectSwept(m: Merchant, p: Payment, asset: 'ETH' | 'USDC', alreadyAtPayout = 0n) {
    const done = await until(m.liveKey, p.payment_id, 'forwarded', (x) => x.forwarded_at !== null, 60_000);
    expect(done.forward_tx_hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(eventTypes(done)).toContain('payment.completed');
    const received = units(done.received_amount_native, asset === 'ETH' ? 18 : 6);
    if (asset === 'ETH') {
      const fee = units(done.forward_fee_native ?? '0', 18);
      expect(fee).toBeGreaterThan(0n);
      expect(await chain.ethBalance(m.payout)).toBe(alreadyAtPayout + received - fee);
      expect(await chain.ethBalance(done.address)).toBe(0n);
    } else {
      expect(await chain.tokenBalance(m.payout)).toBe(alreadyAtPayout + received);
      expect(await chain.tokenBalance(done.address)).toBe(0n);
    }
    await expectDelivered(m, done);
    return done;
  }

  it('native payment: confirming, completed, swept to the payout wallet', async () => {
    const m = await merchant();
    const p = await create(m.liveKey, { amount: '0.05', currency: 'ETH' });
    expect(p.status).toBe('pending');
    const hash = await chain.sendEth(p.address, units(p.expected_amount_native, 18));
    const confirming = await until(m.liveKey, p.payment_id, 'confirming', (x) => x.status !== 'pending');
    expect(['confirming', 'completed']).toContain(confirming.status);
    const completed = await until(m.liveKey, p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(completed.tx_hash).toBe(hash);
    expect(completed.deposits).toHaveLength(1);
    const confirmed = completed.events.find((e) => e.type === 'payment.confirmed');
    expect(confirmed?.payload.status).toBe('completed');
    await expectSwept(m, completed, 'ETH');
  });

  it('token payment (USDC): credited by its Transfer log and swept after a gas top-up', async () => {
    const m = await merchant();
    const p = await create(m.liveKey, { amount: '12.5', currency: 'USDC', asset: 'USDC' });
    await chain.sendToken(p.address, units(p.expected_amount_native, 6));
    const completed = await until(m.liveKey, p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(completed.received_amount_native).toBe('12.5');
    await expectSwept(m, completed, 'USDC');
  });

  it("the gas wallets are shown to the instance's operator (its first account) with their balances", async () => {
    const read = async (token: string) =>
      fetch(`${base}/v1/operator/fee-wallets`, { headers: { authorization: `Bearer ${token}` } });
    const answer = await read(expiring.m.token);
    expect(answer.status).toBe(200);
    const { data } = (await answer.json()) as {
      data: Array<{
        chain: string;
        is_test: boolean;
        address: string;
        balance_native: string | null;
        low: boolean;
      }>;
    };
    const gasWallet = liveDeriver.deriveAddress('ethereum', false, MAX_DERIVATION_INDEX);
    const live = data.find((wallet) => wallet.chain === 'ethereum' && !wallet.is_test);
    expect(live).toMatchObject({ address: gasWallet, low: false });
    expect(units(live?.balance_native ?? '', 18)).toBe(await chain.ethBalance(gasWallet as Hex));
    // The merchant created after it is no operator (the harness of this program names none by email).
    expect((await read((await merchant()).token)).status).toBe(403);
  });

  it('underpaid, then topped up to completed', async () => {
    const m = await merchant();
    const p = await create(m.liveKey, { amount: '0.02', currency: 'ETH' });
    await chain.sendEth(p.address, units('0.01', 18));
    const under = await until(m.liveKey, p.payment_id, 'underpaid', (x) => x.status === 'underpaid');
    expect(eventTypes(under)).toContain('payment.underpaid');
    await chain.sendEth(p.address, units('0.01', 18));
    const completed = await until(m.liveKey, p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(completed.deposits).toHaveLength(2);
    await expectSwept(m, completed, 'ETH');
  });

  it('overpaid: everything received is swept', async () => {
    const m = await merchant();
    const p = await create(m.liveKey, { amount: '0.01', currency: 'ETH' });
    await chain.sendEth(p.address, units('0.015', 18));
    const over = await until(m.liveKey, p.payment_id, 'overpaid', (x) => x.status === 'overpaid');
    expect(eventTypes(over)).toContain('payment.overpaid');
    expect(over.received_amount_native).toBe('0.015');
    await expectSwept(m, over, 'ETH');
  });

  it("payment by a contract's internal transfer", async () => {
    const m = await merchant();
    const p = await create(m.liveKey, { amount: '0.03', currency: 'ETH' });
    const hash = await chain.forwardEth(p.address, units(p.expected_amount_native, 18));
    const completed = await until(m.liveKey, p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(completed.tx_hash).toBe(hash);
    await expectSwept(m, completed, 'ETH');
  });

  it('the node goes away mid-scan and comes back: nothing missed, nothing counted twice', async () => {
    const m = await merchant();
    const p = await create(m.liveKey, { amount: '0.04', currency: 'ETH' });
    await proxy.down();
    await chain.sendEth(p.address, units(p.expected_amount_native, 18));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const ready = await fetch(`${base}/readyz`);
    const readiness = (await ready.json()) as { problems: string[] };
    expect(ready.status).toBe(503);
    expect(readiness.problems.join(' ')).toMatch(/ethereum \(live\): node unreachable/);
    expect((await get(m.liveKey, p.payment_id)).status).toBe('pending');
    await proxy.up();
    const completed = await until(m.liveKey, p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(completed.deposits).toHaveLength(1);
    expect(completed.received_amount_native).toBe(completed.expected_amount_native);
    await waitFor('ready again', async () => (await fetch(`${base}/readyz`)).status === 200, 10_000);
    await expectSwept(m, completed, 'ETH');
  });

  it('the node is killed and restarted with its state right after the payment is mined: counted once', async () => {
    const m = await merchant();
    const p = await create(m.liveKey, { amount: '0.045', currency: 'ETH' });
    const hash = await chain.mined(chain.sendEth(p.address, units(p.expected_amount_native, 18)));
    await anvil.restart({ downMs: 1500 });
    const completed = await until(m.liveKey, p.payment_id, 'completed', (x) => x.status === 'completed');
    expect(completed.deposits).toHaveLength(1);
    expect(completed.tx_hash).toBe(hash);
    await expectSwept(m, completed, 'ETH');
  });

  it('a deposit reorganised away before finality: back to pending, nothing credited', async () => {
    const m = await merchant();
    const p = await create(m.liveKey, { amount: '0.06', currency: 'ETH' });
    await anvil.rpc('evm_setIntervalMining', [0]);
    try {
      await chain.sendEth(p.address, units(p.expected_amount_native, 18));
      await anvil.rpc('anvil_mine', ['0x1']);
      const seen = await until(m.liveKey, p.payment_id, 'confirming', (x) => x.status === 'confirming');
      expect(seen.deposits[0]?.state).toBe('seen');
      // Replace that block with an empty one: the payment transaction is gone (a double spend).
      await anvil.rpc('anvil_reorg', [1, []]);
      await anvil.rpc('anvil_dropAllTransactions', []);
    } finally {
      await anvil.rpc('evm_setIntervalMining', [1]);
    }
    const back = await until(m.liveKey, p.payment_id, 'pending again', (x) => x.status === 'pending');
    expect(back.deposits[0]?.state).toBe('reverted');
    expect(back.received_amount_native).toBe('0');
    await chain.mine(3);
    expect(eventTypes(await get(m.liveKey, p.payment_id))).not.toContain('payment.confirmed');
  });

  it('test mode on a real test network: the receiver gets payment.confirmed and payment.completed, signed', async () => {
    const m = await merchant();
    const endpoint = await api<{ signing_secret: string }>('POST', '/webhooks', m.testKey, {
      url: receiver.url,
      is_test: true,
    });
    const p = await create(m.testKey, { amount: '0.01', currency: 'ETH' });
    // The simulator is not what test mode watches on this chain now: a simulated deposit is refused, clearly.
    const simulated = await fetch(`${base}/v1/payments/${p.payment_id}/simulate`, {
      method: 'POST',
      headers: { 'x-api-key': m.testKey, 'content-type': 'application/json' },
      body: JSON.stringify({ outcome: 'paid' }),
    });
    expect(simulated.status).toBe(400);
    expect(((await simulated.json()) as { error: { code: string } }).error.code).toBe('chain_unavailable');
    await chain.sendEth(p.address, units(p.expected_amount_native, 18));
    const bodies = await waitFor(
      'payment.confirmed and payment.completed delivered',
      () => {
        const mine = receiver.requests
          .map((r) => ({ r, body: JSON.parse(r.body.toString('utf8')) as Record<string, unknown> }))
          .filter(({ body }) => body.payment_id === p.payment_id);
        const types = mine.map(({ body }) => body.event);
        return types.includes('payment.confirmed') && types.includes('payment.completed') ? mine : undefined;
      },
      40_000,
    );
    for (const { r } of bodies) {
      const expected = `sha256=${createHmac('sha256', endpoint.signing_secret).update(r.body).digest('hex')}`;
      expect(r.headers['x-service-signature']).toBe(expected);
    }
    const confirmed = bodies.find(({ body }) => body.event === 'payment.confirmed');
    expect(confirmed?.body).toMatchObject({ status: 'completed', chain: 'ethereum', is_test: true });
    const done = await get(m.testKey, p.payment_id);
    expect(done.forwarded_at).not.toBeNull();
    expect(await chain.ethBalance(m.payout)).toBe(
      units(done.received_amount_native, 18) - units(done.forward_fee_native ?? '0', 18),
    );
  });

  it('expiry, then late funds: recorded, status stays expired, swept', async () => {
    const { m, p } = expiring;
    const expired = await until(m.liveKey, p.payment_id, 'expired', (x) => x.status === 'expired', 75_000);
    expect(eventTypes(expired)).toContain('payment.expired');
    await chain.sendEth(p.address, units('0.007', 18));
    const late = await until(
      m.liveKey,
      p.payment_id,
      'late funds recorded',
      (x) => x.received_amount_native === '0.007',
    );
    expect(late.status).toBe('expired');
    const swept = await expectSwept(m, late, 'ETH');
    expect(swept.status).toBe('expired');
  }, 120_000);
});
