import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIsolatedServe } from './support/live-program.ts';
import { keyedApi } from './support/program.ts';
import { newWallet, send, solanaMerchant, solTransfer, type TestWallet } from './support/solana.ts';
import { type SolanaTestRpc, startSolanaTestRpc } from './support/solana-rpc.ts';
import { waitFor } from './support/webhooks.ts';

/**
 * The node's slot notifications through the running program (`svc serve`, spawned): live mode against the LiteSVM
 * test RPC (test/support/solana-rpc.ts), a slot every 200 ms, whose PubSub WebSocket serves `slotSubscribe`
 * (SVC_CHAIN_SOLANA_WS_URL). While the socket delivers, the timed poll is a minute away (WS_POLL_MS): a payment that
 * shows `confirming` within a second of its slot was found because a notification woke the scan. Then the WebSocket
 * goes away: the log says so once however often the reconnection fails, and the regular polls (POLL_MS, 2 s) still
 * find a payment; it comes back, the log says so once, and wake-ups resume.
 */

const LAMPORTS = 1_000_000_000n;
const POLL_MS = 2000;
const WS_POLL_MS = 60_000;

interface Payment {
  payment_id: string;
  status: string;
  address: string;
  deposits: Array<{ tx_hash: string; state: string; seen_at: string }>;
}

describe('Solana slot notifications through the running program', { timeout: 120_000 }, () => {
  let node: SolanaTestRpc;
  let program: ChildProcess;
  let base = '';
  let output = (): string => '';
  let stop: () => Promise<void> = async () => {};
  let payer: TestWallet;
  let key = '';
  /** Every line the program logged about its WebSocket, kept whole (output() keeps only the last 16 KB). */
  const socketLines: string[] = [];
  const said = (text: string) => socketLines.filter((line) => line.includes(text)).length;

  beforeAll(async () => {
    node = await startSolanaTestRpc({ slotMs: 200, finalizedLag: 3, blockhashLifetime: 50 });
    payer = await newWallet(node, 100n);
    const feePayerSeed = new Uint8Array(randomBytes(32));
    const feePayerPublic = ed25519.getPublicKey(feePayerSeed);
    node.airdrop(base58.encode(feePayerPublic) as never, 10n * LAMPORTS);
    const started = await startIsolatedServe({
      dataDirPrefix: 'svc-sol-ws-',
      env: {
        SVC_CHAIN_SOLANA_RPC_URL: node.url,
        SVC_CHAIN_SOLANA_WS_URL: node.wsUrl,
        SVC_CHAIN_SOLANA_GENESIS_HASH: node.genesisHash,
        SVC_CHAIN_SOLANA_POLL_MS: String(POLL_MS),
        SVC_CHAIN_SOLANA_WS_POLL_MS: String(WS_POLL_MS),
        SVC_CHAIN_SOLANA_CONFIRMATIONS: '2',
        SVC_CHAIN_SOLANA_FEE_PAYER_KEY: base58.encode(new Uint8Array([...feePayerSeed, ...feePayerPublic])),
        SVC_RATE_LIMIT_PER_KEY: '0',
        SVC_RATE_LIMIT_PER_IP: '0',
        LOG_LEVEL: 'info',
      },
    });
    stop = started.stop;
    base = started.base;
    const served = started.program;
    program = served.process;
    output = served.output;
    // What it said before it was ready (its first subscription) is still in output(); from here on, every line.
    const earlier = output();
    socketLines.push(
      ...earlier
        .slice(0, earlier.lastIndexOf('\n'))
        .split('\n')
        .filter((line) => line.includes('Solana WebSocket')),
    );
    let partial = earlier.slice(earlier.lastIndexOf('\n') + 1);
    program.stdout?.on('data', (chunk: Buffer) => {
      const lines = (partial + chunk.toString('utf8')).split('\n');
      partial = lines.pop() ?? '';
      socketLines.push(...lines.filter((line) => line.includes('Solana WebSocket')));
    });
    await waitFor('subscribed to slots', () => said('Solana WebSocket subscribed to slots') === 1, 30_000);
    ({ key } = await solanaMerchant(base));
  }, 120_000);

  afterAll(async () => {
    await stop();
    await node?.close();
  });

  const api = keyedApi(() => base);
  const create = (amount: string) =>
    api<Payment>('POST', '/payments', key, { chain: 'solana', amount, currency: 'SOL', asset: 'SOL' });

  /** Waits until `check` holds for the payment; returns it. */
  async function until(p: Payment, what: string, check: (x: Payment) => boolean, timeoutMs: number) {
    let last: Payment | undefined;
    return waitFor(
      `${what} (payment ${p.payment_id})`,
      async () => {
        last = await api<Payment>('GET', `/payments/${p.payment_id}`, key);
        return check(last) ? last : undefined;
      },
      timeoutMs,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nlast seen: ${JSON.stringify(last)}\n${output().slice(-3000)}`);
    });
  }

  /**
   * How long after its slot was made the program recorded the payment's deposit (its own clock, on this machine): the
   * time to detection, without the test's own polling of the API. By then its block may already have its two
   * confirmations (completed at once) when detection was slow; the time says so.
   */
  async function seenAfter(p: Payment, slotAt: number, timeoutMs: number): Promise<number> {
    // The status is part of the condition: GET /v1/payments/{id} reads the payment and its deposits in two
    // statements, so a read racing the scan's commit may list the deposit beside the status from just before it.
    const seen = await until(
      p,
      'deposit seen',
      (x) => x.deposits.length > 0 && ['confirming', 'completed'].includes(x.status),
      timeoutMs,
    );
    return Date.parse(seen.deposits[0]?.seen_at ?? '') - slotAt;
  }

  /** Pays `p` in full; returns when the slot holding the payment was made (ms since epoch). */
  async function pay(p: Payment, lamports: bigint): Promise<number> {
    const paid = await send(node, payer.signer, [solTransfer(payer.signer, p.address, lamports)]);
    expect(paid.err).toBeNull();
    return waitFor('the payment in a block', () => node.landedAt(paid.signature), 5000);
  }

  it('a payment shows confirming within a second of its slot, and completes, though the timed poll is a minute away', async () => {
    const p = await create('0.25');
    const slotAt = await pay(p, LAMPORTS / 4n);
    const confirming = await seenAfter(p, slotAt, 10_000);
    expect(confirming).toBeLessThan(1000);
    // Two confirmed blocks and the re-check at finalized (3 blocks behind): each of those slots wakes the scan too.
    await until(p, 'completed', (x) => x.status === 'completed', 10_000);
    const completed = Date.now() - slotAt;
    console.info(
      `through slot notifications: confirming ${confirming} ms, completed ${completed} ms after the slot`,
    );
  });

  it('the WebSocket gone: said once, the regular polls still find a payment; back: said once, waking the scan again', async () => {
    const { refused } = node.wsConnections();
    node.websocket(false);
    await waitFor('down in the log', () => said('Solana WebSocket down') === 1, 10_000);
    const p = await create('0.3');
    const slotAt = await pay(p, (3n * LAMPORTS) / 10n);
    // No wake-up reaches the program now: the timed poll, every POLL_MS while the socket is down, finds it.
    const found = await seenAfter(p, slotAt, POLL_MS + 10_000);
    await waitFor('reconnections refused', () => node.wsConnections().refused >= refused + 3, 20_000);
    expect(said('Solana WebSocket down')).toBe(1);
    node.websocket(true);
    await waitFor('back in the log', () => said('Solana WebSocket back') === 1, 30_000);
    const q = await create('0.35');
    const againAt = await pay(q, (35n * LAMPORTS) / 100n);
    const woken = await seenAfter(q, againAt, 10_000);
    expect(woken).toBeLessThan(1000);
    expect(said('Solana WebSocket down')).toBe(1);
    console.info(
      `socket down: found by polling after ${found} ms; back: confirming ${woken} ms after the slot`,
    );
  });
});
