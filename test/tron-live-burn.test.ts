import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAddressDeriver, MAX_DERIVATION_INDEX } from '../src/modules/chains/derivation.ts';
import { addressOfKey } from '../src/modules/chains/tron/tx.ts';
import { strongPassword, testMnemonic, uniqueEmail } from './support/harness.ts';
import { LIVE_MNEMONIC, startIsolatedServe } from './support/live-program.ts';
import { type FakeTronNode, startFakeTronNode, testKey } from './support/tron-node.ts';
import { waitFor } from './support/webhooks.ts';

/**
 * Live Tron without a resource wallet, through the running program against the fake Tron node
 * (test/support/tron-node.ts): USDT sweeps burn TRX topped up by the fee wallet (the live mnemonic's index 2147483647),
 * within SVC_CHAIN_TRON_MAX_BURN_TRX (10 TRX here): a sweep to a payout already holding USDT (64,285 energy, 6.43 TRX
 * burnt) goes out; one to a payout holding none (130,285 energy, 13.03 TRX) waits, its deposit shown as left. Also the
 * payment window: a payment unpaid in its 60 s window expires, and funds arriving later are recorded, counted and swept
 * with the status left `expired`.
 */

interface Payment {
  payment_id: string;
  status: string;
  address: string;
  received_amount_native: string;
  forwarded_at: string | null;
  deposits: Array<{ amount_native: string; state: string; left_as_dust_at: string | null }>;
  events: Array<{ type: string }>;
}

describe('live Tron sweeps that burn TRX, and late funds, through the running program', {
  timeout: 150_000,
}, () => {
  let node: FakeTronNode;
  let base = '';
  let output = (): string => '';
  let stop: () => Promise<void> = async () => {};
  let producer: ReturnType<typeof setInterval> | undefined;
  const payer = testKey('burn-payer');
  const holding = testKey('burn-payout-holding');
  const fresh = testKey('burn-payout-fresh');
  const feeWallet = addressOfKey(
    createAddressDeriver({ testMnemonic, liveMnemonic: LIVE_MNEMONIC }).derivePrivateKey(
      'tron',
      false,
      MAX_DERIVATION_INDEX,
    ),
  );
  let holdingKey = '';
  let freshKey = '';
  let expiring: Payment;

  beforeAll(async () => {
    node = await startFakeTronNode({ wallClock: true });
    node.fund(payer.address, 100_000_000_000n, 1_000_000_000_000n);
    node.fund(feeWallet, 100_000_000n);
    node.fund(holding.address, 1_000_000n, 1n);
    node.produceBlocks(25);
    producer = setInterval(() => node.produceBlocks(1), 100);
    const started = await startIsolatedServe({
      dataDirPrefix: 'svc-tron-burn-',
      env: {
        SVC_CHAIN_TRON_RPC_URL: node.url,
        SVC_CHAIN_TRON_POLL_MS: '100',
        SVC_CHAIN_TRON_MAX_BURN_TRX: '10',
        SVC_TRON_HTTP_TIMEOUT_MS: '1000',
        SVC_TRON_HTTP_RETRIES: '1',
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        SVC_OPERATOR_EMAILS: 'operator@tron-fees.example.org',
        LOG_LEVEL: 'info',
      },
    });
    stop = started.stop;
    base = started.base;
    const served = started.program;
    output = served.output;
    holdingKey = await merchant(holding.address);
    freshKey = await merchant(fresh.address);
    // Created first, so that its 60-second window runs out while the other cases run.
    expiring = await create(holdingKey, '3', 'TRX', 60);
  }, 120_000);

  afterAll(async () => {
    if (producer !== undefined) clearInterval(producer);
    await stop();
    await node?.close();
  });

  async function api<T>(key: string, method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${base}/v1${path}`, {
      method,
      headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as T;
  }

  async function merchant(payout: string): Promise<string> {
    const signup = await fetch(`${base}/v1/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: uniqueEmail(), password: strongPassword }),
    });
    const { token } = (await signup.json()) as { token: string };
    const pair = (await (
      await fetch(`${base}/v1/keypairs`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
    ).json()) as { live: { full_key: string } };
    const wallets = await fetch(`${base}/v1/settings/payout-wallets?is_test=false`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tron: payout }),
    });
    if (wallets.status !== 200) throw new Error(`payout wallets: ${wallets.status} ${await wallets.text()}`);
    return pair.live.full_key;
  }

  const create = (key: string, amount: string, currency: 'TRX' | 'USDT', expiresIn?: number) =>
    api<Payment>(key, 'POST', '/payments', {
      chain: 'tron',
      amount,
      currency,
      ...(currency === 'USDT' ? { asset: 'USDT' } : {}),
      ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
    });

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
          last = await api<Payment>(key, 'GET', `/payments/${id}`);
          return check(last) ? last : undefined;
        },
        timeoutMs,
      );
    } catch (error) {
      throw new Error(`${String(error)}\nlast seen: ${JSON.stringify(last)}\n${output().slice(-3000)}`);
    }
  }

  it("the fee wallet is shown to the instance's operators with its TRX, and to no one else", async () => {
    const session = async (email: string) => {
      const signup = await fetch(`${base}/v1/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: strongPassword }),
      });
      return ((await signup.json()) as { token: string }).token;
    };
    const read = async (token: string) =>
      fetch(`${base}/v1/operator/fee-wallets`, { headers: { authorization: `Bearer ${token}` } });
    const answer = await read(await session('operator@tron-fees.example.org'));
    expect(answer.status).toBe(200);
    const { data } = (await answer.json()) as {
      data: Array<{
        chain: string;
        is_test: boolean;
        address: string;
        balance_native: string | null;
        low_below_native: string | null;
        low: boolean;
      }>;
    };
    const tron = data.find((wallet) => wallet.chain === 'tron' && !wallet.is_test);
    const sun = node.account(feeWallet)?.balance ?? 0n;
    // One sweep's burn cap (MAX_BURN_TRX 10) is the floor under which it counts as low.
    expect(tron).toMatchObject({ address: feeWallet, low_below_native: '10', low: sun < 10_000_000n });
    const [whole = '', fraction = ''] = (tron?.balance_native ?? '').split('.');
    expect(BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'))).toBe(sun);
    expect((await read(await session(uniqueEmail()))).status).toBe(403);
  });

  it('a USDT sweep burns TRX topped up by the fee wallet, within the cap', async () => {
    const p = await create(holdingKey, '5', 'USDT');
    const feeBefore = node.account(feeWallet)?.balance ?? 0n;
    node.sendUsdt(payer.key, p.address, 5_000_000n);
    await until(holdingKey, p.payment_id, 'completed', (x) => x.status === 'completed');
    await until(holdingKey, p.payment_id, 'forwarded', (x) => x.forwarded_at !== null, 30_000);
    expect(node.account(holding.address)?.usdt).toBe(5_000_001n);
    // 64,285 energy × 100 sun burnt, and the 1.1 TRX that creating the deposit account cost.
    expect(feeBefore - (node.account(feeWallet)?.balance ?? 0n)).toBe(6_428_500n + 1_100_000n);
    expect(node.account(p.address)?.balance).toBe(0n);
  });

  it('a USDT sweep that would burn more than MAX_BURN_TRX waits, its deposit left in place', async () => {
    const p = await create(freshKey, '4', 'USDT');
    node.sendUsdt(payer.key, p.address, 4_000_000n);
    await until(freshKey, p.payment_id, 'completed', (x) => x.status === 'completed');
    const left = await until(freshKey, p.payment_id, 'left', (x) => x.deposits[0]?.left_as_dust_at != null);
    expect(left.forwarded_at).toBeNull();
    expect(node.account(fresh.address)).toBeUndefined();
    expect(output()).toMatch(/would burn more TRX than MAX_BURN_TRX/);
  });

  it('expiry and late funds: recorded, counted, swept, the status left expired', async () => {
    const expired = await until(
      holdingKey,
      expiring.payment_id,
      'expired',
      (x) => x.status === 'expired',
      80_000,
    );
    expect(expired.events.map((e) => e.type)).toContain('payment.expired');
    const before = node.account(holding.address)?.balance ?? 0n;
    node.sendTrx(payer.key, expiring.address, 3_000_000n);
    const late = await until(
      holdingKey,
      expiring.payment_id,
      'late funds final',
      (x) => x.received_amount_native === '3',
    );
    expect(late.status).toBe('expired');
    const done = await until(
      holdingKey,
      expiring.payment_id,
      'late funds swept',
      (x) => x.forwarded_at !== null,
      30_000,
    );
    expect(done.status).toBe('expired');
    expect((node.account(holding.address)?.balance ?? 0n) - before).toBe(3_000_000n);
  });
});
