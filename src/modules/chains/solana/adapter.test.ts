import { ed25519 } from '@noble/curves/ed25519.js';
import { base58 } from '@scure/base';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ata,
  balance,
  createAta,
  installMint,
  mintTo,
  newWallet,
  send,
  solTransfer,
  TEST_USDC_MINT,
  type TestWallet,
  tokenBalance,
  tokenTransfer,
} from '../../../../test/support/solana.ts';
import { solanaTestKeys, solanaTestSettings } from '../../../../test/support/solana-adapter.ts';
import { type SolanaTestRpc, startSolanaTestRpc } from '../../../../test/support/solana-rpc.ts';
import { waitFor } from '../../../../test/support/webhooks.ts';
import type { BlockRef, Transfer } from '../adapter.ts';
import { createSolanaAdapter, type SolanaAdapter } from './adapter.ts';
import type { SolanaChainSettings } from './settings.ts';
import { createSlotWatch } from './slots.ts';

/**
 * The solana adapter against the real SVM (LiteSVM behind the test RPC): blocks by height over skipped slots, SOL and
 * USDC payments read from balances (an ATA created in the payment, two payments in one transaction, a failed
 * transaction), the finalized re-check, SOL and token sweeps with a fee payer (balances and rent), a sweep whose
 * blockhash expired unseen signed again, the RPC gone and back, forks (a confirmed block abandoned, its slot skipped
 * after), and the node's slot notifications with the polling interval they allow. The whole program runs against it in
 * test/solana-live.test.ts and test/solana-ws.test.ts.
 */

const { deriver, signingKeys, feePayerSeed, feePayer } = solanaTestKeys();
const logger = pino({ level: 'silent' });
const deposit = (index: number) => deriver.deriveAddress('solana', true, index);

function settings(url: string, genesisHash: string): SolanaChainSettings {
  return solanaTestSettings({ url, genesisHash }, feePayerSeed, { confirmations: 2, maxPriorityFee: 1000n });
}

describe('solana adapter against LiteSVM', () => {
  let node: SolanaTestRpc;
  let adapter: SolanaAdapter;
  let payer: TestWallet;
  let scanned = -1;

  /** Every new confirmed block's transfers to `watched`, as the watcher reads them. */
  async function scan(watched: string[]): Promise<Array<Transfer & { block: BlockRef }>> {
    const head = await adapter.head();
    const out: Array<Transfer & { block: BlockRef }> = [];
    if (head === null) return out;
    for (let height = scanned + 1; height <= head.number; height++) {
      const block = await adapter.block(height);
      if (block === null) break;
      for (const transfer of await adapter.transfers(block, new Set(watched)))
        out.push({ ...transfer, block });
      scanned = height;
    }
    return out;
  }

  beforeAll(async () => {
    node = await startSolanaTestRpc({
      finalizedLag: 3,
      blockhashLifetime: 10,
      prioritizationFees: [0, 200, 500, 5000],
    });
    adapter = createSolanaAdapter({
      settings: settings(node.url, node.genesisHash),
      requiredConfirmations: 2,
      signingKeys,
      logger,
    });
    await adapter.start();
    payer = await newWallet(node);
    node.airdrop(feePayer as never, 10_000_000_000n);
    installMint(node, TEST_USDC_MINT, 6, payer.address);
    await send(node, payer.signer, [
      await createAta(payer.signer, payer.address, TEST_USDC_MINT),
      await mintTo(payer.signer, payer.address, TEST_USDC_MINT, 1_000_000_000n),
    ]);
    node.tick();
    scanned = (await adapter.head())?.number ?? 0;
  });

  afterAll(async () => {
    await node?.close();
  });

  it('refuses a node on another cluster (genesis hash)', async () => {
    const other = createSolanaAdapter({
      settings: settings(node.url, '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d'),
      requiredConfirmations: 2,
      signingKeys,
      logger,
    });
    await expect(other.start()).rejects.toThrow(/genesis hash/);
    expect(await other.readiness()).toMatch(/genesis hash/);
  });

  it('reads SOL and USDC payments from balances, over skipped slots, each once', async () => {
    const [a, b, c] = [deposit(1), deposit(2), deposit(3)];
    node.skipSlots(2);
    node.tick();
    node.tick();
    // One transaction: SOL to a, USDC to b creating b's token account, SOL to c.
    const paid = await send(node, payer.signer, [
      solTransfer(payer.signer, a, 1_500_000_000n),
      await createAta(payer.signer, b, TEST_USDC_MINT),
      await tokenTransfer(payer.signer, b, TEST_USDC_MINT, 12_340_000n),
      solTransfer(payer.signer, c, 7n * 10n ** 8n),
    ]);
    expect(paid.err).toBeNull();
    // A failed transaction (its second transfer overdraws) pays nobody.
    const failed = await send(node, payer.signer, [
      solTransfer(payer.signer, a, 5n),
      solTransfer(payer.signer, a, 10n ** 15n),
    ]);
    expect(failed.err).not.toBeNull();
    node.skipSlots(1);
    node.tick();
    node.tick();
    const found = await scan([a, b, c]);
    // In the transaction's account order (the message orders keys by role, not by instruction).
    expect(found).toHaveLength(3);
    expect(found.map(({ block: _b, ...t }) => t)).toEqual(
      expect.arrayContaining([
        {
          txHash: paid.signature,
          outputIndex: expect.any(Number),
          to: a,
          asset: 'SOL',
          amount: 1_500_000_000n,
        },
        {
          txHash: paid.signature,
          outputIndex: expect.any(Number),
          to: c,
          asset: 'SOL',
          amount: 700_000_000n,
        },
        {
          txHash: paid.signature,
          outputIndex: expect.any(Number),
          to: b,
          asset: 'USDC',
          amount: 12_340_000n,
        },
      ]),
    );
    expect(new Set(found.map((t) => t.outputIndex)).size).toBe(3);
    const usdc = found.find((t) => t.asset === 'USDC');
    expect(usdc?.outputIndex).toBeGreaterThanOrEqual(256);
    // Heights have no gaps although slots do.
    const heights = found.map((t) => t.block.number);
    expect(new Set(heights).size).toBe(1);
  });

  it('credits only at finalized, in the block it was seen in', async () => {
    const to = deposit(4);
    const paid = await send(node, payer.signer, [solTransfer(payer.signer, to, 2_000_000n)]);
    node.tick();
    const [seen] = await scan([to]);
    if (seen === undefined) throw new Error('not seen');
    const facts = [{ txHash: seen.txHash, blockNumber: seen.block.number, blockHash: seen.block.hash }];
    expect(paid.signature).toBe(seen.txHash);
    expect(await adapter.recheck(facts)).toEqual(new Set());
    node.ticks(4);
    expect(await adapter.recheck(facts)).toEqual(new Set([paid.signature]));
    expect(await adapter.recheck([{ ...facts[0], blockHash: 'x' } as never])).toEqual(new Set());
  });

  it('sweeps SOL to zero with the fee payer paying', async () => {
    const index = 5;
    const from = deposit(index);
    const payout = (await newWallet(node, 1n)).address;
    await send(node, payer.signer, [solTransfer(payer.signer, from, 3_000_000_000n)]);
    node.tick();
    const payerBefore = balance(node, feePayer);
    const payoutBefore = balance(node, payout);
    const built = await adapter.buildForward({
      id: 'fwd_sol',
      asset: 'SOL',
      inputs: [{ address: from, derivationIndex: index, amount: 3_000_000_000n }],
      to: payout,
    });
    expect(built.amount).toBe(3_000_000_000n);
    // Two signatures, and the 75th percentile of recent priority fees (5,000) capped at 1,000 micro-lamports per
    // compute unit over the 3,000 units asked: 3 lamports.
    expect(built.fee).toBe(10_003n);
    await adapter.broadcast(built.rawTx);
    await adapter.broadcast(built.rawTx); // again: harmless
    expect((await adapter.forwardStatus(built.txHash)).state).toBe('pending');
    node.ticks(5);
    const status = await adapter.forwardStatus(built.txHash);
    expect(status).toMatchObject({ state: 'included' });
    expect(status.state === 'included' && status.reverted).toBeFalsy();
    expect(balance(node, from)).toBe(0n);
    expect(balance(node, payout) - payoutBefore).toBe(3_000_000_000n);
    expect(payerBefore - balance(node, feePayer)).toBe(built.fee);
  });

  it('sweeps USDC to the payout ATA (created), closes the deposit ATA with its rent to the fee payer', async () => {
    const index = 6;
    const from = deposit(index);
    const payout = (await newWallet(node, 1n)).address;
    await send(node, payer.signer, [
      await createAta(payer.signer, from, TEST_USDC_MINT),
      await tokenTransfer(payer.signer, from, TEST_USDC_MINT, 25_000_000n),
    ]);
    node.tick();
    const payerBefore = balance(node, feePayer);
    const built = await adapter.buildForward({
      id: 'fwd_usdc',
      asset: 'USDC',
      inputs: [{ address: from, derivationIndex: index, amount: 25_000_000n }],
      to: payout,
    });
    expect(built.fee).toBe(10_061n); // 61,000 compute units at 1,000 micro-lamports
    await adapter.broadcast(built.rawTx);
    node.ticks(5);
    expect(await adapter.forwardStatus(built.txHash)).toMatchObject({ state: 'included' });
    expect(await tokenBalance(node, payout, TEST_USDC_MINT)).toBe(25_000_000n);
    expect(node.svm.getAccount(await ata(from, TEST_USDC_MINT)).exists).toBe(false);
    // The fee payer paid the payout ATA's rent and got the deposit ATA's back: net, the fee.
    expect(payerBefore - balance(node, feePayer)).toBe(built.fee);
    // A second sweep to the same payout (its ATA now exists) works the same.
    const index2 = 7;
    const from2 = deposit(index2);
    await send(node, payer.signer, [
      await createAta(payer.signer, from2, TEST_USDC_MINT),
      await tokenTransfer(payer.signer, from2, TEST_USDC_MINT, 1_000_000n),
    ]);
    node.tick();
    const before2 = balance(node, feePayer);
    const built2 = await adapter.buildForward({
      id: 'fwd_usdc2',
      asset: 'USDC',
      inputs: [{ address: from2, derivationIndex: index2, amount: 1_000_000n }],
      to: payout,
    });
    await adapter.broadcast(built2.rawTx);
    node.ticks(5);
    expect(await adapter.forwardStatus(built2.txHash)).toMatchObject({ state: 'included' });
    expect(await tokenBalance(node, payout, TEST_USDC_MINT)).toBe(26_000_000n);
    // Closing the deposit ATA returned its rent: the fee payer gained rent − fee.
    expect(balance(node, feePayer) - before2).toBe(2_039_280n - built2.fee);
  });

  it('re-sends a sweep as is until its blockhash expires unseen, then signs a new version that lands', async () => {
    const index = 8;
    const from = deposit(index);
    const payout = (await newWallet(node, 1n)).address;
    await send(node, payer.signer, [solTransfer(payer.signer, from, 1_000_000_000n)]);
    node.tick();
    const intent = {
      id: 'fwd_expiring',
      asset: 'SOL',
      inputs: [{ address: from, derivationIndex: index, amount: 1_000_000_000n }],
      to: payout,
    };
    const first = await adapter.buildForward(intent);
    node.dropSends(1);
    await adapter.broadcast(first.rawTx);
    node.tick();
    expect((await adapter.forwardStatus(first.txHash)).state).toBe('unknown');
    // Not expired yet: no new version.
    expect(await adapter.bumpForward?.(intent, { fee: first.fee, txHash: first.txHash })).toBeNull();
    node.ticks(16); // past the blockhash's 10 blocks, and finalized past them
    expect((await adapter.forwardStatus(first.txHash)).state).toBe('expired');
    const second = await adapter.bumpForward?.(intent, { fee: first.fee, txHash: first.txHash });
    if (second === null || second === undefined) throw new Error('no new version');
    expect(second.txHash).not.toBe(first.txHash);
    await adapter.broadcast(second.rawTx);
    node.ticks(5);
    expect(await adapter.forwardStatus(second.txHash)).toMatchObject({ state: 'included' });
    expect((await adapter.forwardStatus(first.txHash)).state).toBe('expired');
    expect(balance(node, payout) - 1_000_000_000n).toBe(1_000_000_000n);
  });

  it('after a restart, a stored sweep is re-sent and called expired only past an upper bound of its life', async () => {
    const index = 11;
    const from = deposit(index);
    await send(node, payer.signer, [solTransfer(payer.signer, from, 10n ** 9n)]);
    node.tick();
    const stored = await adapter.buildForward({
      id: 'fwd_restart',
      asset: 'SOL',
      inputs: [{ address: from, derivationIndex: index, amount: 10n ** 9n }],
      to: feePayer,
    });
    node.dropSends(1);
    await adapter.broadcast(stored.rawTx);
    // A new process knows the version only from its stored text.
    const restarted = createSolanaAdapter({
      settings: settings(node.url, node.genesisHash),
      requiredConfirmations: 2,
      signingKeys,
      logger,
    });
    await restarted.start();
    expect((await restarted.forwardStatus(stored.txHash)).state).toBe('unknown');
    await restarted.broadcast(stored.rawTx); // what the forwarder does with an unknown version
    expect((await restarted.forwardStatus(stored.txHash)).state).toBe('unknown');
    node.ticks(16);
    // The process that signed it knows its last valid height; the restarted one waits for its bound (+150 blocks).
    expect((await adapter.forwardStatus(stored.txHash)).state).toBe('expired');
    expect((await restarted.forwardStatus(stored.txHash)).state).toBe('unknown');
    node.ticks(160);
    expect((await restarted.forwardStatus(stored.txHash)).state).toBe('expired');
    expect(balance(node, from)).toBe(10n ** 9n);
  });

  it('a sweep sent after its blockhash expired is refused by the cluster (it can never land)', async () => {
    const index = 10;
    const from = deposit(index);
    await send(node, payer.signer, [solTransfer(payer.signer, from, 10n ** 9n)]);
    node.tick();
    const stale = await adapter.buildForward({
      id: 'fwd_stale',
      asset: 'SOL',
      inputs: [{ address: from, derivationIndex: index, amount: 10n ** 9n }],
      to: feePayer,
    });
    node.ticks(16);
    await expect(adapter.broadcast(stale.rawTx)).rejects.toThrow(/simulation failed/);
    expect((await adapter.forwardStatus(stale.txHash)).state).toBe('expired');
    expect(balance(node, from)).toBe(10n ** 9n);
  });

  it('derives the fee payer from the mnemonic when no key is given, and reports a node behind on /readyz', async () => {
    const derived = createSolanaAdapter({
      settings: { ...settings(node.url, node.genesisHash), feePayerKey: undefined },
      requiredConfirmations: 2,
      signingKeys,
      deriver,
      logger,
      healthEveryMs: 0,
    });
    await derived.start();
    const expected = base58.encode(
      ed25519.getPublicKey(deriver.derivePrivateKey('solana', true, 0x7fffffff)),
    );
    expect(derived.feePayer()).toEqual({ address: expected, lamports: 0n });
    node.behind(500);
    await derived.head();
    expect(await derived.readiness()).toMatch(/solana \(test\): node unhealthy: .*behind by 500 slots/);
    node.behind(20); // within MAX_SLOTS_BEHIND
    await derived.head();
    expect(await derived.readiness()).toBeNull();
    node.behind(0);
  });

  it('reads a height asked for again afresh: a block replaced under the cache is seen as the watcher walks back', async () => {
    node.tick();
    await scan([]);
    const head = await adapter.head();
    if (head === null) throw new Error('no head');
    const before = await adapter.block(head.number);
    const replaced = node.replaceNewestBlock();
    node.tick();
    await adapter.head();
    const next = await adapter.block(head.number + 1);
    // The new block's parent is not the block the watcher holds: it walks back and asks for that height again.
    expect(next?.parentHash).toBe(replaced);
    expect(next?.parentHash).not.toBe(before?.hash);
    const again = await adapter.block(head.number);
    expect(again?.hash).toBe(replaced);
    expect((await adapter.block(head.number + 1))?.parentHash).toBe(again?.hash);
    scanned = head.number + 1;
  });

  it('a fork abandons the block of two payments: the new fork is read, one transaction dropped, the other landing again once', async () => {
    const [a, b] = [deposit(20), deposit(21)];
    const [payerA, payerB] = [await newWallet(node, 1n), await newWallet(node, 1n)];
    node.tick();
    await scan([]);
    /** The watcher's record: the block it scanned at each height. */
    const recorded = new Map<number, BlockRef>();
    const start = await adapter.block(scanned);
    if (start === null) throw new Error('no block');
    recorded.set(start.number, start);
    /** What the watcher does: each next block must be the child of the one recorded under it, else walk back. */
    async function follow() {
      const found: Array<Transfer & { block: BlockRef }> = [];
      let ancestor: number | null = null;
      const head = await adapter.head();
      let height = Math.max(...recorded.keys()) + 1;
      while (head !== null && height <= head.number) {
        const block = await adapter.block(height);
        if (block === null) throw new Error(`block ${height} missing under the head ${head.number}`);
        if (block.parentHash !== recorded.get(height - 1)?.hash) {
          let back = height - 1;
          while ((await adapter.block(back))?.hash !== recorded.get(back)?.hash) back -= 1;
          for (const key of [...recorded.keys()]) if (key > back) recorded.delete(key);
          ancestor = back;
          height = back + 1;
          continue;
        }
        recorded.set(height, block);
        for (const transfer of await adapter.transfers(block, new Set([a, b])))
          found.push({ ...transfer, block });
        height += 1;
      }
      scanned = height - 1;
      return { found, ancestor };
    }
    const paidA = await send(node, payerA.signer, [solTransfer(payerA.signer, a, 3n * 10n ** 8n)]);
    const paidB = await send(node, payerB.signer, [solTransfer(payerB.signer, b, 4n * 10n ** 8n)]);
    node.tick();
    node.tick();
    const before = await follow();
    const paidIn = (t: Transfer) => [t.txHash, t.to, t.amount];
    expect(before.found.map(paidIn)).toEqual([
      [paidA.signature, a, 3n * 10n ** 8n],
      [paidB.signature, b, 4n * 10n ** 8n],
    ]);
    const seenIn = before.found[0]?.block as BlockRef;
    // The block of both payments and the one on top are abandoned; B's transaction lands again in the new fork.
    const abandoned = node.fork(2, { reland: [paidB.signature] });
    node.ticks(3);
    const after = await follow();
    expect(after.ancestor).toBe(seenIn.number - 1);
    expect(after.found.map(paidIn)).toEqual([[paidB.signature, b, 4n * 10n ** 8n]]);
    const relandedIn = after.found[0]?.block as BlockRef;
    expect(relandedIn.number).toBe(seenIn.number);
    expect(relandedIn.hash).not.toBe(seenIn.hash);
    // The cluster as it is now: A never happened, B once; the abandoned slots are skipped.
    expect(balance(node, a)).toBe(0n);
    expect(balance(node, b)).toBe(4n * 10n ** 8n);
    const skipped = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'getBlock',
        params: [abandoned[0], { commitment: 'confirmed' }],
      }),
    });
    expect(((await skipped.json()) as { error?: { code: number } }).error?.code).toBe(-32007);
    // Where they were first seen neither stands, ever; B stands in its new block once that is finalized.
    const at = (txHash: string, block: BlockRef) => ({
      txHash,
      blockNumber: block.number,
      blockHash: block.hash,
    });
    node.ticks(4);
    expect(await adapter.recheck([at(paidA.signature, seenIn), at(paidB.signature, seenIn)])).toEqual(
      new Set(),
    );
    expect(await adapter.recheck([at(paidB.signature, relandedIn)])).toEqual(new Set([paidB.signature]));
    await scan([]);
  });

  it('slots learnt before a fork are not trusted after it: a height whose slot was abandoned is read on the new fork', async () => {
    node.tick();
    await scan([]);
    const base = scanned;
    node.ticks(3);
    // The head is read, and the next height learns the slots of the three new blocks (one getBlocks).
    await adapter.head();
    const next = await adapter.block(base + 1);
    node.fork(2);
    node.ticks(3);
    await adapter.head();
    // The slot it learnt for base + 2 is skipped now: the height is found on the new fork, not left missing.
    const moved = await adapter.block(base + 2);
    expect(moved?.parentHash).toBe(next?.hash);
    const top = await adapter.block(base + 3);
    expect(top?.parentHash).toBe(moved?.hash);
    expect((await adapter.block(base + 4))?.parentHash).toBe(top?.hash);
    scanned = base + 4;
  });

  it("the node's slot notifications wake the loop and slow its polling; with the socket down it polls, and finds payments", async () => {
    const slots = createSlotWatch({
      url: node.wsUrl,
      logger,
      // Slots come only when the test ticks here: no silence is taken as an outage.
      staleAfterMs: 60_000,
      backoffMs: { first: 20, max: 100 },
    });
    const watching = createSolanaAdapter({
      settings: { ...settings(node.url, node.genesisHash), wsUrl: node.wsUrl, wsPollIntervalMs: 30_000 },
      requiredConfirmations: 2,
      signingKeys,
      logger,
      slots,
    });
    await watching.start();
    expect(watching.pollIntervalMs).toBe(100);
    let wakes = 0;
    const leave = watching.onActivity?.(() => {
      wakes += 1;
    });
    try {
      await waitFor('subscribed', () => watching.pollIntervalMs === 30_000);
      const woken = wakes;
      node.ticks(2);
      await waitFor('a wake-up per slot', () => wakes === woken + 2);
      // The node's PubSub goes away: polling at POLL_MS again, and a payment made meanwhile is found by it.
      node.websocket(false);
      await waitFor('polling again', () => watching.pollIntervalMs === 100);
      const quiet = wakes;
      const to = deposit(22);
      const paid = await send(node, payer.signer, [solTransfer(payer.signer, to, 5n * 10n ** 6n)]);
      node.ticks(2);
      const found = await scan([to]);
      expect(found.map((t) => [t.txHash, t.amount])).toEqual([[paid.signature, 5_000_000n]]);
      expect(wakes).toBe(quiet);
      node.websocket(true);
      await waitFor('subscribed again', () => watching.pollIntervalMs === 30_000);
      expect(slots.stats()).toMatchObject({ connections: 2, outages: 1 });
    } finally {
      leave?.();
      await watching.close();
      node.websocket(true);
    }
  });

  it('a node on another cluster: its slots wake nothing (start() is retried at the polling interval, not per slot)', async () => {
    const slots = createSlotWatch({ url: node.wsUrl, logger, staleAfterMs: 60_000 });
    const wrong = createSolanaAdapter({
      settings: {
        ...settings(node.url, '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d'),
        wsUrl: node.wsUrl,
      },
      requiredConfirmations: 2,
      signingKeys,
      logger,
      slots,
    });
    let wakes = 0;
    const leave = wrong.onActivity?.(() => {
      wakes += 1;
    });
    try {
      await expect(wrong.start()).rejects.toThrow(/genesis hash/);
      await waitFor('subscribed', () => slots.connected());
      node.ticks(2);
      await waitFor('two slots announced', () => slots.stats().received >= 2);
      expect(wakes).toBe(0);
    } finally {
      leave?.();
      await wrong.close();
    }
  });

  it('a new process finds the slot of an old block height by reading back from the head (no block known)', async () => {
    node.skipSlots(3);
    node.ticks(6);
    const fresh = createSolanaAdapter({
      settings: settings(node.url, node.genesisHash),
      requiredConfirmations: 2,
      signingKeys,
      logger,
    });
    await fresh.start();
    const head = await fresh.head();
    if (head === null) throw new Error('no head');
    await adapter.head(); // as the watcher does at each poll
    for (const height of [head.number - 1, head.number - 30, 1]) {
      const ours = await fresh.block(height);
      const theirs = await adapter.block(height);
      expect(ours?.number).toBe(height);
      expect(ours?.hash).toBe(theirs?.hash);
    }
    // And on from there, block by block, each child of the one before.
    let parent = await fresh.block(head.number - 10);
    for (let height = head.number - 9; height <= head.number; height++) {
      const block = await fresh.block(height);
      expect(block?.parentHash).toBe(parent?.hash);
      parent = block;
    }
  });

  it('reports the RPC down on /readyz and resumes where it was', async () => {
    node.down(true);
    await expect(adapter.head()).rejects.toThrow();
    expect(await adapter.readiness()).toMatch(/solana \(test\): RPC unreachable: HTTP 503/);
    const to = deposit(9);
    node.down(false);
    const paid = await send(node, payer.signer, [solTransfer(payer.signer, to, 42n * 10n ** 6n)]);
    node.tick();
    node.down(true);
    await expect(scan([to])).rejects.toThrow();
    node.down(false);
    const found = await scan([to]);
    expect(found.map((t) => [t.txHash, t.amount])).toEqual([[paid.signature, 42_000_000n]]);
    expect(await adapter.readiness()).toBeNull();
  });
});
