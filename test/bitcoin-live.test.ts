import { hexToBytes } from '@noble/hashes/utils.js';
import { Transaction } from '@scure/btc-signer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coinsToBaseUnits } from '../src/modules/chains/bitcoin/json.ts';
import { addressToScript, BITCOIN_NETWORKS, scriptToAddress } from '../src/modules/chains/bitcoin/network.ts';
import { strongPassword, uniqueEmail } from './support/harness.ts';
import {
  type Litecoind,
  litecoindSkipReason,
  runLitecoindTests,
  startLitecoind,
} from './support/litecoind.ts';
import { startIsolatedServe } from './support/live-program.ts';
import { keyedApi } from './support/program.ts';
import { waitFor } from './support/webhooks.ts';

/**
 * Live Litecoin payments end to end: the real program (`svc serve`, spawned) with a live mnemonic and
 * SVC_CHAIN_LITECOIN_RPC_URL pointing at litecoind in regtest (SVC_CHAIN_LITECOIN_NETWORK=regtest lets the local node
 * stand in for mainnet; addresses keep the live ltc1 spelling, the payer's regtest wallet writes the same output script
 * as rltc1). A payer wallet in the node pays; blocks are mined by the test. Checked through the API: mempool →
 * confirming within seconds, completed, the batched sweep to the payout wallet and payment.completed; underpaid then
 * topped up; overpaid; one transaction paying two payments; a replacement (BIP125) before confirmation; a deposit
 * reorganised away (invalidateblock); the node stopped and restarted mid-scan. Test mode runs on the same node through
 * SVC_TEST_CHAIN_LITECOIN_RPC_URL with SVC_TEST_CHAIN_LITECOIN_NETWORK=regtest: its addresses are spelled rltc1…, and
 * the node's wallet pays the address the checkout shows as it is.
 */

const live = BITCOIN_NETWORKS['litecoin-main'];
const regtest = BITCOIN_NETWORKS['litecoin-regtest'];

function respell(address: string, from: typeof live, to: typeof live): string {
  const spelled = scriptToAddress(to, addressToScript(from, address));
  if (spelled === null) throw new Error(`${address} is not a segwit address`);
  return spelled;
}

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
  deposits: Array<{
    tx_hash: string;
    amount_native: string;
    state: string;
    output_index: number;
    simulated: boolean;
    left_as_dust_at: string | null;
  }>;
  events: Array<{ type: string; payload: { status: string } }>;
}

describe.skipIf(!runLitecoindTests)(
  'live Litecoin payments through the running program against litecoind',
  {
    timeout: 120_000,
  },
  () => {
    let node: Litecoind;
    let base = '';
    let output = (): string => '';
    let stop: () => Promise<void> = async () => {};
    /** Created first, so that their 60-second windows run out while the other cases run. */
    let expiring: { key: string; inTime: Payment; unpaid: Payment; txid: string };

    beforeAll(async () => {
      // 120 blocks: twenty mature coinbases, so one held transaction does not lock up the payer's funds.
      node = await startLitecoind({ blocks: 120 });
      const started = await startIsolatedServe({
        dataDirPrefix: 'svc-btc-live-',
        env: {
          SVC_CHAIN_LITECOIN_RPC_URL: node.urlWithAuth,
          SVC_CHAIN_LITECOIN_NETWORK: 'regtest',
          SVC_CHAIN_LITECOIN_POLL_MS: '200',
          SVC_CHAIN_LITECOIN_CONFIRMATIONS: '2',
          SVC_CHAIN_LITECOIN_SWEEP_BATCH: '1',
          SVC_CHAIN_LITECOIN_SWEEP_BUMP_AFTER_SECONDS: '3',
          SVC_CHAIN_LITECOIN_MAX_HEAD_AGE_SECONDS: '0',
          // Test mode on the same node (regtest is a test network): it replaces the simulator on litecoin, and set as
          // regtest it spells test addresses rltc1…, which the node's wallet pays as they are.
          SVC_TEST_CHAIN_LITECOIN_RPC_URL: node.urlWithAuth,
          SVC_TEST_CHAIN_LITECOIN_NETWORK: 'regtest',
          SVC_TEST_CHAIN_LITECOIN_POLL_MS: '200',
          SVC_TEST_CHAIN_LITECOIN_CONFIRMATIONS: '1',
          SVC_TEST_CHAIN_LITECOIN_SWEEP_BATCH: '1',
          // 100 sat/vB: a deposit output worth at most 68 vB × 100 = 6,800 litoshis is not worth its fee (dust).
          SVC_TEST_CHAIN_LITECOIN_MIN_FEE_RATE: '100',
          SVC_TEST_CHAIN_LITECOIN_MAX_FEE_RATE: '200',
          SVC_BITCOIN_RPC_TIMEOUT_MS: '1000',
          SVC_BITCOIN_RPC_RETRIES: '1',
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
      const inTime = await create(m.key, '0.05', 60);
      const unpaid = await create(m.key, '0.06', 60);
      // Paid at once, but held in the mempool (miners here ignore it) until after the window.
      const txid = await pay(inTime.address, inTime.expected_amount_native);
      await node.rpc('prioritisetransaction', [txid, 0, -10_000_000]);
      // Its change must not fund the other payments (a child of a held transaction is held too).
      const held = await node.rpc<{ vout: Array<{ n: number; scriptPubKey: { addresses?: string[] } }> }>(
        'getrawtransaction',
        [txid, true],
      );
      const deposit = respell(inTime.address, live, regtest);
      const change = held.vout.filter((out) => !(out.scriptPubKey.addresses ?? []).includes(deposit));
      await node.rpc('lockunspent', [false, change.map((out) => ({ txid, vout: out.n }))], {
        wallet: node.wallet,
      });
      expiring = { key: m.key, inTime, unpaid, txid };
    }, 120_000);

    afterAll(async () => {
      await stop();
      await node?.stop();
    });

    const api = keyedApi(() => base);

    /** A merchant with a live key and a live payout wallet in the payer's node (so the test can read what it got). */
    async function merchant(): Promise<{ key: string; payoutRegtest: string }> {
      const signup = await fetch(`${base}/v1/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: uniqueEmail(), password: strongPassword }),
      });
      const { token } = (await signup.json()) as { token: string };
      const pair = (await (
        await fetch(`${base}/v1/keypairs`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
      ).json()) as { live: { full_key: string } };
      const payoutRegtest = await node.rpc<string>('getnewaddress', ['', 'bech32'], { wallet: node.wallet });
      const wallets = await fetch(`${base}/v1/settings/payout-wallets?is_test=false`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ litecoin: respell(payoutRegtest, regtest, live) }),
      });
      if (wallets.status !== 200)
        throw new Error(`payout wallets: ${wallets.status} ${await wallets.text()}`);
      return { key: pair.live.full_key, payoutRegtest };
    }

    const create = (key: string, amount: string, expiresIn?: number) =>
      api<Payment>('POST', '/payments', key, {
        chain: 'litecoin',
        amount,
        currency: 'LTC',
        ...(expiresIn === undefined ? {} : { expires_in: expiresIn }),
      });
    const get = (key: string, id: string) => api<Payment>('GET', `/payments/${id}`, key);
    const pay = (address: string, coins: string) =>
      node.rpc<string>('sendtoaddress', [respell(address, live, regtest), coins, '', '', false, true], {
        wallet: node.wallet,
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
            last = await get(key, id);
            return check(last) ? last : undefined;
          },
          timeoutMs,
        );
      } catch (error) {
        throw new Error(`${String(error)}\nlast seen: ${JSON.stringify(last)}\n${output().slice(-3000)}`);
      }
    }

    const types = (p: Payment) => p.events.map((e) => e.type);

    /** Mines a block now and then until the payment is forwarded: the sweep is final, payment.completed written. */
    async function swept(key: string, p: Payment): Promise<Payment> {
      const done = await waitFor(
        `forwarded (payment ${p.payment_id})`,
        async () => {
          const now = await get(key, p.payment_id);
          if (now.forwarded_at !== null) return now;
          await node.mine(1);
          return undefined;
        },
        40_000,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${output().slice(-3000)}`);
      });
      expect(types(done)).toContain('payment.completed');
      expect(done.forward_tx_hash).toMatch(/^[0-9a-f]{64}$/);
      return done;
    }

    /** Spends the inputs of `txid` again, to the payer itself with a higher fee (a BIP125 replacement). */
    async function doubleSpend(txid: string): Promise<string> {
      const tx = await node.rpc<{ vin: Array<{ txid: string; vout: number }> }>('getrawtransaction', [
        txid,
        true,
      ]);
      let total = 0n;
      for (const vin of tx.vin) {
        // The amount from the raw transaction's bytes: the node's JSON would give it as a float.
        const prev = Transaction.fromRaw(
          hexToBytes(await node.rpc<string>('getrawtransaction', [vin.txid, false])),
          {
            allowUnknownOutputs: true,
          },
        );
        total += prev.getOutput(vin.vout).amount ?? 0n;
      }
      const back = await node.rpc<string>('getnewaddress', ['', 'bech32'], { wallet: node.wallet });
      const keep = total - 200_000n;
      const raw = await node.rpc<string>('createrawtransaction', [
        tx.vin.map((vin) => ({ txid: vin.txid, vout: vin.vout, sequence: 0xfffffffd })),
        { [back]: `${keep / 100_000_000n}.${(keep % 100_000_000n).toString().padStart(8, '0')}` },
      ]);
      const signed = await node.rpc<{ hex: string }>('signrawtransactionwithwallet', [raw], {
        wallet: node.wallet,
      });
      return node.rpc<string>('sendrawtransaction', [signed.hex]);
    }

    it('paid: confirming from the mempool, completed, swept with payment.completed', async () => {
      const m = await merchant();
      const p = await create(m.key, '0.5');
      expect(p.address).toMatch(/^ltc1q/);
      const txid = await pay(p.address, p.expected_amount_native);
      // No block is mined until the test mines one: confirming here can only come from the mempool.
      const confirming = await until(m.key, p.payment_id, 'confirming', (x) => x.status === 'confirming');
      expect(confirming.deposits).toMatchObject([{ tx_hash: txid, state: 'mempool' }]);
      await node.mine(2);
      const completed = await until(m.key, p.payment_id, 'completed', (x) => x.status === 'completed');
      expect(completed.deposits).toMatchObject([{ tx_hash: txid, state: 'final' }]);
      expect(types(completed)).toContain('payment.confirmed');
      const done = await swept(m.key, completed);
      const fee = coinsToBaseUnits(done.forward_fee_native ?? '0');
      expect(fee).toBeGreaterThan(0n);
      await node.mine(1);
      const received = await node.rpc<number>('getreceivedbyaddress', [m.payoutRegtest, 1], {
        wallet: node.wallet,
      });
      expect(coinsToBaseUnits(String(received))).toBe(coinsToBaseUnits(done.received_amount_native) - fee);
    });

    it('underpaid, then topped up; and overpaid', async () => {
      const m = await merchant();
      const p = await create(m.key, '0.2');
      await pay(p.address, '0.1');
      await node.mine(2);
      await until(m.key, p.payment_id, 'underpaid', (x) => x.status === 'underpaid');
      await pay(p.address, '0.1');
      await node.mine(2);
      const completed = await until(m.key, p.payment_id, 'completed', (x) => x.status === 'completed');
      expect(completed.deposits).toHaveLength(2);
      expect(types(completed)).toEqual(expect.arrayContaining(['payment.underpaid', 'payment.confirmed']));
      const over = await create(m.key, '0.1');
      await pay(over.address, '0.3');
      await node.mine(2);
      const overpaid = await until(m.key, over.payment_id, 'overpaid', (x) => x.status === 'overpaid');
      expect(overpaid.received_amount_native).toBe('0.3');
    });

    it('one transaction pays two payments (and one of them twice): each output credited once', async () => {
      const m = await merchant();
      const a = await create(m.key, '0.3');
      const b = await create(m.key, '0.4');
      const outputs = {
        [respell(a.address, live, regtest)]: '0.3',
        [respell(b.address, live, regtest)]: '0.4',
      };
      const txid = await node.rpc<string>('sendmany', ['', outputs, 1, '', [], true], {
        wallet: node.wallet,
      });
      await node.mine(2);
      const doneA = await until(m.key, a.payment_id, 'completed', (x) => x.status === 'completed');
      const doneB = await until(m.key, b.payment_id, 'completed', (x) => x.status === 'completed');
      expect(doneA.deposits).toMatchObject([{ tx_hash: txid }]);
      expect(doneB.deposits).toMatchObject([{ tx_hash: txid }]);
      expect([doneA.received_amount_native, doneB.received_amount_native]).toEqual(['0.3', '0.4']);
      const sweptA = await swept(m.key, doneA);
      const sweptB = await swept(m.key, doneB);
      // Both in one batched sweep.
      expect(sweptA.forward_tx_hash).toBe(sweptB.forward_tx_hash);
    });

    it('a mempool payment replaced (BIP125) by one paying elsewhere: back to pending at once', async () => {
      const m = await merchant();
      const p = await create(m.key, '0.25');
      const txid = await pay(p.address, p.expected_amount_native);
      await until(m.key, p.payment_id, 'confirming', (x) => x.status === 'confirming', 15_000);
      // The payer double-spends the same inputs to itself with a higher fee.
      await doubleSpend(txid);
      const pending = await until(
        m.key,
        p.payment_id,
        'pending again',
        (x) => x.status === 'pending',
        15_000,
      );
      expect(pending.deposits).toMatchObject([{ tx_hash: txid, state: 'reverted' }]);
      await node.mine(3);
      expect((await get(m.key, p.payment_id)).status).toBe('pending');
    });

    it('a confirmed deposit reorganised away (invalidateblock) before it is final: back to pending', async () => {
      const m = await merchant();
      const p = await create(m.key, '0.15');
      const txid = await pay(p.address, p.expected_amount_native);
      const [hash] = await node.mine(1);
      // The status is part of the condition: GET /v1/payments/{id} reads the payment and its deposits in two
      // statements, so a read racing the watcher's commit may list the deposit beside the status from before it.
      await until(
        m.key,
        p.payment_id,
        'seen in a block, confirming',
        (x) => x.deposits[0]?.state === 'seen' && x.status === 'confirming',
      );
      // Take the block away; the transaction goes back to the mempool, where the payer double-spends it; the new chain
      // grows past the old one without it.
      await node.rpc('invalidateblock', [hash]);
      await doubleSpend(txid);
      await node.mine(2);
      const back = await until(m.key, p.payment_id, 'pending again', (x) => x.status === 'pending');
      expect(back.deposits).toMatchObject([{ tx_hash: txid, state: 'reverted' }]);
      expect(back.received_amount_native).toBe('0');
      await node.mine(2);
      expect(types(await get(m.key, p.payment_id))).not.toContain('payment.confirmed');
    });

    it('a block reorganised away while its transaction comes back in another block: counted once', async () => {
      const m = await merchant();
      const p = await create(m.key, '0.12');
      const txid = await pay(p.address, p.expected_amount_native);
      const [hash] = await node.mine(1);
      await until(m.key, p.payment_id, 'seen in a block', (x) => x.deposits[0]?.state === 'seen');
      await node.rpc('invalidateblock', [hash]);
      // To another address: the same coinbase in the same second would be the very block that was invalidated.
      const other = await node.rpc<string>('getnewaddress', ['', 'bech32'], { wallet: node.wallet });
      await node.rpc('generatetoaddress', [3, other]);
      const completed = await until(m.key, p.payment_id, 'completed', (x) => x.status === 'completed');
      expect(completed.deposits).toMatchObject([{ tx_hash: txid, state: 'final' }]);
      expect(completed.received_amount_native).toBe('0.12');
    });

    it('a stuck sweep is replaced with a higher fee on the same inputs; the version mined is the one counted', async () => {
      const m = await merchant();
      const p = await create(m.key, '0.45');
      const txid = await pay(p.address, p.expected_amount_native);
      await node.mine(2);
      await until(m.key, p.payment_id, 'completed', (x) => x.status === 'completed');
      /** The mempool transaction that spends the deposit, other than `except`. */
      const spender = (except?: string) =>
        waitFor(
          'a sweep of the deposit in the mempool',
          async () => {
            for (const candidate of await node.rpc<string[]>('getrawmempool')) {
              if (candidate === except) continue;
              const tx = await node.rpc<{ vin: Array<{ txid: string }> }>('getrawtransaction', [
                candidate,
                true,
              ]);
              if (tx.vin.some((vin) => vin.txid === txid)) return candidate;
            }
            return undefined;
          },
          15_000,
        );
      const stuck = await spender();
      // Miners here ignore it from now on: it pays (as far as block templates go) less than nothing.
      await node.rpc('prioritisetransaction', [stuck, 0, -10_000_000]);
      await node.mine(1);
      expect(await node.rpc<string[]>('getrawmempool')).toContain(stuck);
      const replacement = await spender(stuck);
      expect(await node.rpc<string[]>('getrawmempool')).not.toContain(stuck);
      const done = await swept(m.key, p);
      expect(done.forward_tx_hash).toBe(replacement);
      expect(done.deposits).toHaveLength(1);
    });

    it("50 deposits swept in one batched transaction at the node's fee estimate", async () => {
      // A fee history first (blocks of wallet transactions at 25 sat/vB), so that estimatesmartfee has an answer and
      // the sweep is priced from it rather than from the floor a fresh regtest node falls back to.
      for (let block = 0; block < 6; block++) {
        for (let i = 0; i < 12; i++) {
          const to = await node.rpc<string>('getnewaddress', [], { wallet: node.wallet });
          // sendtoaddress address amount comment comment_to subtractfee replaceable conf_target mode avoid_reuse fee_rate
          await node.rpc('sendtoaddress', [to, '0.01', '', '', false, true, null, 'unset', false, 25], {
            wallet: node.wallet,
          });
        }
        await node.mine(1);
      }
      const m = await merchant();
      const payments = await Promise.all(Array.from({ length: 50 }, (_, i) => create(m.key, `0.0${10 + i}`)));
      const outputs = Object.fromEntries(
        payments.map((p) => [respell(p.address, live, regtest), p.expected_amount_native]),
      );
      await node.rpc<string>('sendmany', ['', outputs, 1, '', [], true], { wallet: node.wallet });
      await node.mine(2);
      for (const p of payments) {
        await until(m.key, p.payment_id, 'completed', (x) => x.status === 'completed');
      }
      // What the node says now, before any further block: the sweep is priced from the same answers.
      const estimate = await node.rpc<{ feerate?: number }>('estimatesmartfee', [6]);
      expect(estimate.feerate).toBeDefined();
      const info = await node.rpc<{ mempoolminfee: number }>('getmempoolinfo');
      const perVbyte = (coinsPerKvB: number) => (coinsToBaseUnits(String(coinsPerKvB)) + 999n) / 1000n;
      const floor = perVbyte(info.mempoolminfee) > 1n ? perVbyte(info.mempoolminfee) : 1n;
      const estimated = estimate.feerate === undefined ? 0n : perVbyte(estimate.feerate);
      const rate = estimated > floor ? estimated : floor;
      await waitFor(
        'the batched sweep in the mempool',
        async () => {
          for (const candidate of await node.rpc<string[]>('getrawmempool')) {
            const tx = await node.rpc<{ vin: unknown[] }>('getrawtransaction', [candidate, true]);
            if (tx.vin.length === 50) return true;
          }
          return undefined;
        },
        15_000,
      );
      const last = payments.at(-1) as Payment;
      const done = await swept(m.key, last);
      const sweep = await node.rpc<{ vin: unknown[]; vout: unknown[]; vsize: number }>('getrawtransaction', [
        done.forward_tx_hash,
        true,
      ]);
      expect(sweep.vin).toHaveLength(50);
      expect(sweep.vout).toHaveLength(1);
      // Every payment is in it, each with its share of the one fee.
      const all = await Promise.all(payments.map((p) => get(m.key, p.payment_id)));
      expect(new Set(all.map((p) => p.forward_tx_hash))).toEqual(new Set([done.forward_tx_hash]));
      const fee = all.reduce((sum, p) => sum + coinsToBaseUnits(p.forward_fee_native ?? '0'), 0n);
      // estimatesmartfee (raised to the floor, max(MIN_FEE_RATE 1, the mempool minimum)) times the size bound
      // 11 + 50 × 68 + 31 vB, which the signed transaction does not exceed.
      expect({ fee, estimate: estimate.feerate ?? null }).toEqual({
        fee: (11n + 50n * 68n + 31n) * rate,
        estimate: estimate.feerate ?? null,
      });
      expect(sweep.vsize).toBeLessThanOrEqual(11 + 50 * 68 + 31);
    });

    /** A merchant with a test key whose test-mode payout wallet is the node wallet's own rltc1… address, as it is. */
    async function testMerchant(): Promise<{ testKey: string; payoutRegtest: string }> {
      const signup = await fetch(`${base}/v1/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: uniqueEmail(), password: strongPassword }),
      });
      const { token } = (await signup.json()) as { token: string };
      const pair = (await (
        await fetch(`${base}/v1/keypairs`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
      ).json()) as { test: { full_key: string } };
      const payoutRegtest = await node.rpc<string>('getnewaddress', ['', 'bech32'], { wallet: node.wallet });
      expect(payoutRegtest).toMatch(/^rltc1q/);
      const wallets = await fetch(`${base}/v1/settings/payout-wallets?is_test=true`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ litecoin: payoutRegtest }),
      });
      expect(wallets.status).toBe(200);
      return { testKey: pair.test.full_key, payoutRegtest };
    }

    it('test mode on a regtest node: a test key pays on the node, at the rltc1… address the checkout shows, as it is', async () => {
      const { testKey, payoutRegtest } = await testMerchant();
      const p = await api<Payment>('POST', '/payments', testKey, {
        chain: 'litecoin',
        amount: '0.2',
        currency: 'LTC',
      });
      expect(p.address).toMatch(/^rltc1q/);
      // The hosted checkout shows the same address; the payer's regtest wallet pays exactly what it shows.
      const page = await (await fetch(`${base}/pay/${p.payment_id}`)).text();
      const shown = page.match(/rltc1q[02-9ac-hj-np-z]{38}/)?.[0];
      expect(shown).toBe(p.address);
      const txid = await node.rpc<string>('sendtoaddress', [shown, '0.2', '', '', false, true], {
        wallet: node.wallet,
      });
      await until(testKey, p.payment_id, 'confirming', (x) => x.status === 'confirming', 5000);
      await node.mine(1);
      const completed = await until(testKey, p.payment_id, 'completed', (x) => x.status === 'completed');
      expect(completed.deposits).toMatchObject([{ tx_hash: txid, state: 'final', simulated: false }]);
      const done = await swept(testKey, completed);
      // Swept to the rltc1… payout wallet: the node's wallet received it, less the fee.
      const fee = coinsToBaseUnits(done.forward_fee_native ?? '0');
      await node.mine(1);
      const received = await node.rpc<number>('getreceivedbyaddress', [payoutRegtest, 1], {
        wallet: node.wallet,
      });
      expect(coinsToBaseUnits(String(received))).toBe(coinsToBaseUnits(done.received_amount_native) - fee);
    });

    it('a deposit worth less than the fee to spend it is left in place and shown on the payment, never swept at a loss', async () => {
      const { testKey } = await testMerchant();
      // 5,000 litoshis: enough for the node's wallet to send, below the 6,800 its input costs at 100 sat/vB.
      const p = await api<Payment>('POST', '/payments', testKey, {
        chain: 'litecoin',
        amount: '0.00005',
        currency: 'LTC',
      });
      await node.rpc<string>('sendtoaddress', [p.address, '0.00005', '', '', false, true], {
        wallet: node.wallet,
      });
      await node.mine(1);
      const left = await until(
        testKey,
        p.payment_id,
        'left as dust',
        (x) => x.status === 'completed' && x.deposits[0]?.left_as_dust_at != null,
      );
      expect(left.deposits).toMatchObject([{ state: 'final', amount_native: '0.00005' }]);
      // Blocks go by: still unswept (the forwarder prices it again later), and no sweep is recorded.
      await node.mine(2);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const later = await get(testKey, p.payment_id);
      expect({ forwarded_at: later.forwarded_at, forward_tx_hash: later.forward_tx_hash }).toEqual({
        forwarded_at: null,
        forward_tx_hash: null,
      });
      expect(types(later)).not.toContain('payment.completed');
      expect(output()).toMatch(/left in place \(dust\)/);
    });

    it('expiry and late funds: a payment first seen in the mempool in time is honoured when its block comes after the window', async () => {
      const { key, inTime, unpaid, txid } = expiring;
      const expired = await until(key, unpaid.payment_id, 'expired', (x) => x.status === 'expired', 70_000);
      expect(types(expired)).toContain('payment.expired');
      // The window has ended: the held transaction is still only in the mempool, and its payment still confirming.
      const waiting = await until(key, inTime.payment_id, 'in the mempool', (x) =>
        x.deposits.some((d) => d.state === 'mempool'),
      );
      expect(waiting.status).toBe('confirming');
      expect(waiting.deposits).toMatchObject([{ tx_hash: txid, state: 'mempool' }]);
      await node.rpc('prioritisetransaction', [txid, 0, 10_000_000]);
      await node.mine(2);
      const honoured = await until(key, inTime.payment_id, 'completed', (x) => x.status === 'completed');
      expect(types(honoured)).toContain('payment.confirmed');
      // Late funds to the expired payment: recorded, counted in received, swept, the status unchanged.
      await pay(unpaid.address, '0.06');
      await node.mine(2);
      const late = await until(
        key,
        unpaid.payment_id,
        'late funds final',
        (x) => x.received_amount_native === '0.06',
      );
      expect(late.status).toBe('expired');
      const done = await swept(key, late);
      expect(done.status).toBe('expired');
      // Up to the 60 s window of payments made in beforeAll, then two confirmations and a sweep.
    }, 120_000);

    it('the node is stopped mid-scan and restarted: nothing missed, nothing counted twice', async () => {
      const m = await merchant();
      const p = await create(m.key, '0.35');
      const txid = await pay(p.address, p.expected_amount_native);
      await node.mine(1);
      const restarted = node.restart({ downMs: 2500 });
      await waitFor(
        'readyz to report the node down',
        async () => {
          const ready = await fetch(`${base}/readyz`);
          if (ready.status !== 503) return undefined;
          const body = (await ready.json()) as { problems?: string[] };
          return /litecoin \(live\)/.test(JSON.stringify(body)) ? true : undefined;
        },
        10_000,
      );
      await restarted;
      await node.mine(1);
      const completed = await until(m.key, p.payment_id, 'completed', (x) => x.status === 'completed');
      expect(completed.deposits).toHaveLength(1);
      expect(completed.deposits[0]?.tx_hash).toBe(txid);
      expect(completed.received_amount_native).toBe('0.35');
      await waitFor('ready again', async () => (await fetch(`${base}/readyz`)).status === 200, 10_000);
    });
  },
);

if (!runLitecoindTests) it.skip(litecoindSkipReason, () => {});
