import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { strongPassword, testMnemonic, uniqueEmail } from './support/harness.ts';
import {
  type Litecoind,
  litecoindSkipReason,
  runLitecoindTests,
  startLitecoind,
} from './support/litecoind.ts';
import { freePort } from './support/net.ts';
import { startServe, stopProgram } from './support/program.ts';
import { createIsolatedDatabase, waitFor } from './support/webhooks.ts';
import { startZmqPublisher, type ZmqPublisher } from './support/zmq-publisher.ts';

/**
 * The node's ZMQ notifications through the running program (`svc serve`, spawned), test mode on litecoind in regtest.
 * Debian's litecoind is built without ZMQ, so the test itself runs the ZMQ publisher the node would run
 * (`-zmqpubhashblock`/`-zmqpubrawtx` on one port) and publishes exactly what Core publishes, when Core would: after
 * the test broadcasts a real transaction to the node, [`rawtx`, the transaction's bytes from `getrawtransaction`,
 * sequence]; after it mines a block, [`hashblock`, the block hash (display byte order), sequence].
 *
 * The chain is polled every 15 s (SVC_TEST_CHAIN_LITECOIN_POLL_MS, and so ZMQ_POLL_MS): a payment that shows within a
 * second of its message was found because of the message. Then no message is sent at all, as when ZMQ drops them,
 * and the timed polls still find the payment and its block (the safety net).
 */

const POLL_MS = 15_000;

interface Payment {
  payment_id: string;
  status: string;
  address: string;
  deposits: Array<{ tx_hash: string; state: string }>;
}

describe.skipIf(!runLitecoindTests)(
  'ZMQ wake-ups through the running program against litecoind',
  { timeout: 120_000 },
  () => {
    let node: Litecoind;
    let publisher: ZmqPublisher;
    let program: ChildProcess;
    let base = '';
    let output = (): string => '';
    let key = '';
    let drop: () => Promise<void> = async () => {};

    beforeAll(async () => {
      node = await startLitecoind({ blocks: 110 });
      publisher = await startZmqPublisher(await freePort());
      const isolated = await createIsolatedDatabase();
      drop = isolated.drop;
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      const served = await startServe({
        port,
        dataDirPrefix: 'svc-btc-zmq-',
        env: {
          ...(isolated.url === undefined ? {} : { DATABASE_URL: isolated.url, SVC_SIGNUP: 'open' }),
          SVC_TEST_MNEMONIC: testMnemonic,
          SVC_TEST_CHAIN_LITECOIN_RPC_URL: node.urlWithAuth,
          SVC_TEST_CHAIN_LITECOIN_NETWORK: 'regtest',
          SVC_TEST_CHAIN_LITECOIN_POLL_MS: String(POLL_MS),
          SVC_TEST_CHAIN_LITECOIN_ZMQ_URL: publisher.url,
          SVC_TEST_CHAIN_LITECOIN_CONFIRMATIONS: '1',
          SVC_TEST_CHAIN_LITECOIN_MAX_HEAD_AGE_SECONDS: '0',
          SVC_RATE_LIMIT_PER_KEY: '0',
          SVC_RATE_LIMIT_PER_IP: '0',
          LOG_LEVEL: 'info',
        },
      });
      program = served.process;
      output = served.output;
      // The program subscribes once its loop leads the chain: from then on, what is published reaches it.
      await publisher.subscribed(['hashblock', 'rawtx']);
      await waitFor('ZMQ connected in the log', () => output().includes('ZMQ connected'));
      const signup = await fetch(`${base}/v1/auth/signup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: uniqueEmail(), password: strongPassword }),
      });
      const { token } = (await signup.json()) as { token: string };
      const pair = (await (
        await fetch(`${base}/v1/keypairs`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
      ).json()) as { test: { full_key: string } };
      key = pair.test.full_key;
    }, 120_000);

    afterAll(async () => {
      await stopProgram(program);
      publisher?.close();
      await node?.stop();
      await drop();
    });

    async function create(amount: string): Promise<Payment> {
      const response = await fetch(`${base}/v1/payments`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify({ chain: 'litecoin', amount, currency: 'LTC' }),
      });
      expect(response.status).toBe(201);
      return (await response.json()) as Payment;
    }

    /** Waits for the payment's status; returns how long it took (ms). */
    async function until(p: Payment, status: string, timeoutMs: number): Promise<number> {
      const started = Date.now();
      let last: Payment | undefined;
      await waitFor(
        `${status} (payment ${p.payment_id})`,
        async () => {
          const response = await fetch(`${base}/v1/payments/${p.payment_id}`, {
            headers: { 'x-api-key': key },
          });
          last = (await response.json()) as Payment;
          return last.status === status;
        },
        timeoutMs,
      ).catch((error: unknown) => {
        throw new Error(`${String(error)}\nlast seen: ${JSON.stringify(last)}\n${output().slice(-3000)}`);
      });
      return Date.now() - started;
    }

    /** The payer's wallet pays the address as the checkout shows it (rltc1…); returns the txid. */
    const pay = (p: Payment, coins: string) =>
      node.rpc<string>('sendtoaddress', [p.address, coins, '', '', false, true], { wallet: node.wallet });

    /** What the node's -zmqpubrawtx publishes when the transaction enters its mempool. */
    const publishRawtx = async (txid: string) =>
      publisher.publish('rawtx', Buffer.from(await node.rpc<string>('getrawtransaction', [txid]), 'hex'));

    /** What the node's -zmqpubhashblock publishes when the block connects (the hash as RPC displays it). */
    const publishHashblock = (hash: string) => publisher.publish('hashblock', Buffer.from(hash, 'hex'));

    it('a payment shows confirming within a second of the rawtx message and completed within a second of hashblock, polled every 15 s', async () => {
      const first = await create('0.1');
      const second = await create('0.2');
      // The first payment's message wakes a poll; the timed poll is then 15 s away, so the second payment, its block
      // and its completion below can only be seen through their messages.
      const firstTx = await pay(first, '0.1');
      await publishRawtx(firstTx);
      expect(await until(first, 'confirming', 1000)).toBeLessThan(1000);

      const secondTx = await pay(second, '0.2');
      await publishRawtx(secondTx);
      const seen = await until(second, 'confirming', 1000);
      expect(seen).toBeLessThan(1000);

      const [block] = await node.mine(1);
      if (block === undefined) throw new Error('no block mined');
      await publishHashblock(block);
      const completed = await until(second, 'completed', 1000);
      expect(completed).toBeLessThan(1000);
      expect(await until(first, 'completed', 1000)).toBeLessThan(1000);
      console.info(
        `through ZMQ: confirming ${seen} ms after rawtx, completed ${completed} ms after hashblock`,
      );
      // A wake-up, not a source: what the program recorded came from the node (the block scan).
      const response = await fetch(`${base}/v1/payments/${second.payment_id}`, {
        headers: { 'x-api-key': key },
      });
      expect(((await response.json()) as Payment).deposits).toMatchObject([
        { tx_hash: secondTx, state: 'final' },
      ]);
    });

    it('no message at all (ZMQ dropped them): the timed polls still find the payment, then its block', async () => {
      const p = await create('0.3');
      await pay(p, '0.3');
      // Nothing published: the next timed poll (at most 15 s away) reads the mempool.
      const confirming = await until(p, 'confirming', POLL_MS + 5000);
      const [block] = await node.mine(1);
      if (block === undefined) throw new Error('no block mined');
      const completed = await until(p, 'completed', POLL_MS + 5000);
      // Found by polling: not within the second a message gives, unless a timed poll happened to fall there.
      console.info(`safety net: confirming after ${confirming} ms, completed after ${completed} ms`);
    });
  },
);

if (!runLitecoindTests) it.skip(litecoindSkipReason, () => {});
