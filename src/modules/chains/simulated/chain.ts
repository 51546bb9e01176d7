import type { Db } from '../../../db/client.ts';
import type { Clock } from '../../../lib/clock.ts';
import type {
  BlockRef,
  BuiltForward,
  BuiltRefund,
  ChainAdapter,
  ForwardIntent,
  ForwardStatus,
  RefundIntent,
  Transfer,
} from '../adapter.ts';
import { addressKey, RefundRefused } from '../adapter.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { type ChainId, getAsset, getChain } from '../registry.ts';
import { simulatedBlockHash, simulatedTxHash, zeroHash } from './hashes.ts';
import { simulatedChainRepo as repo } from './repo.ts';

/**
 * TEST MODE ONLY — the stand-in for a real chain (seed rule 2.1-1: in test mode no real funds move).
 *
 * A simulated chain has blocks (appended by `produceBlock`, which the settlement jobs call every SVC_SIM_BLOCK_MS
 * while the chain has something to carry: transfers in its mempool, unfinal deposits or forwards; at rest it pauses),
 * a mempool, deposits sent by `POST /v1/payments/{id}/simulate`, and the service's own forwarding transactions. Its
 * state lives in the database (sim_blocks, sim_transfers), so it survives restarts and every process sees the same
 * chain. It implements the same ChainAdapter as a real chain, so test payments go through the very watcher,
 * confirmations, reorg handling and forwarding code that live payments do. `reorg` drops the newest blocks, for tests.
 */

/** Network fee of a simulated forwarding transaction, in base units of the chain's native coin. */
function simulatedForwardFee(chainId: ChainId): bigint {
  switch (getChain(chainId)?.family) {
    case 'evm':
      return 21_000n * 1_000_000_000n; // 21,000 gas at 1 gwei
    case 'bitcoin':
      return 1_000n; // satoshis (litoshis)
    case 'solana':
      return 5_000n; // lamports: one signature
    case 'tron':
      return 100_000n; // sun: 0.1 TRX of bandwidth
    default:
      return 0n;
  }
}

/** Where a test-mode forward goes when the merchant set no test payout wallet. */
const SIMULATED_SINK = 'simulated-sink';

/** Where test-mode refunds of swept payments come from: the simulated chain's own wallet (no real funds). */
const SIMULATED_REFUND_WALLET = 'simulated-refund-wallet';

/** Blocks kept below the head; older empty ones are pruned. */
const KEEP_BLOCKS = 10_000;

interface RawForward {
  sim: 1;
  chain: string;
  txHash: string;
  to: string | null;
  asset: string;
  amount: string;
  fee: string;
  inputs: string[];
  /** Set on a refund: it moves `amount` from `inputs[0]` to `to`. */
  kind?: 'refund';
}

export interface SimulatedChain extends ChainAdapter {
  readonly simulated: true;
  /** Appends one block holding every waiting transfer; returns it (or null if another producer took the height). */
  produceBlock(): Promise<BlockRef | null>;
  /** Whether transfers wait in the mempool for the next block. */
  hasPendingTransfers(): Promise<boolean>;
  /** A payer's transfer into the mempool; it lands in the next block. */
  sendDeposit(input: {
    to: string;
    asset: string;
    amount: bigint;
  }): Promise<{ txHash: string; outputIndex: number }>;
  /**
   * Replaces the newest `depth` blocks with as many new empty ones (new hashes): their deposits vanish (a double
   * spend) unless `keepDeposits`, in which case they and every other transfer go back into the mempool.
   */
  reorg(depth: number, options?: { keepDeposits?: boolean }): Promise<void>;
}

export function createSimulatedChain(deps: {
  db: Db;
  clock: Clock;
  chain: ChainId;
  requiredConfirmations: number;
  /**
   * The deposit keys a real sweep would sign with: each is checked against its deposit address here too (test mode
   * moves nothing, but a derivation bug shows in test mode before it costs live funds).
   */
  signingKeys: DepositSigningKeys;
}): SimulatedChain {
  const { db, clock, chain: chainId } = deps;
  const info = getChain(chainId);
  if (info === undefined) throw new Error(`Unknown chain ${chainId}`);
  const family = info.family;

  const toRef = (row: { number: number; hash: string; parentHash: string; timestamp: Date }): BlockRef => ({
    number: row.number,
    hash: row.hash,
    parentHash: row.parentHash,
    timestamp: row.timestamp,
  });

  async function appendOne(tx: Db): Promise<BlockRef | null> {
    const block = await repo.appendBlock(tx, {
      chain: chainId,
      hash: simulatedBlockHash(family),
      genesisParent: zeroHash(family),
      timestamp: clock.now(),
    });
    return block === null ? null : toRef(block);
  }

  return {
    chain: chainId,
    isTest: true,
    simulated: true,
    requiredConfirmations: deps.requiredConfirmations,

    async head() {
      const row = await repo.head(db, chainId);
      return row === null ? null : toRef(row);
    },

    async block(number) {
      const row = await repo.block(db, chainId, number);
      return row === null ? null : toRef(row);
    },

    async transfers(block, watched): Promise<Transfer[]> {
      const rows = await repo.transfersInBlock(db, chainId, block.number, block.hash);
      const out: Transfer[] = [];
      for (const row of rows) {
        if (!watched.has(addressKey(chainId, row.toAddress))) continue;
        out.push({
          txHash: row.txHash,
          outputIndex: row.outputIndex,
          to: row.toAddress,
          asset: row.asset,
          amount: BigInt(row.amount),
        });
      }
      return out;
    },

    addressKey: (address) => addressKey(chainId, address),

    async buildForward(intent: ForwardIntent): Promise<BuiltForward> {
      const asset = getAsset(info, intent.asset);
      if (asset === undefined) throw new Error(`${chainId} has no asset ${intent.asset}`);
      for (const input of intent.inputs) {
        deps.signingKeys.keyFor(chainId, true, input.derivationIndex, input.address);
      }
      const total = intent.inputs.reduce((sum, input) => sum + input.amount, 0n);
      const fee = simulatedForwardFee(chainId);
      // A native-coin sweep pays its fee out of what it moves; a token sweep pays it in the native coin.
      const amount = asset.isNative ? total - fee : total;
      const txHash = simulatedTxHash(family, `forward:${chainId}:${intent.id}`);
      const raw: RawForward = {
        sim: 1,
        chain: chainId,
        txHash,
        to: intent.to,
        asset: asset.code,
        amount: amount.toString(),
        fee: fee.toString(),
        inputs: intent.inputs.map((input) => input.address),
      };
      return { txHash, rawTx: JSON.stringify(raw), amount, fee };
    },

    refundWallet: true,

    async refundFee(assetCode) {
      if (getAsset(info, assetCode) === undefined) throw new Error(`${chainId} has no asset ${assetCode}`);
      return simulatedForwardFee(chainId);
    },

    async buildRefund(intent: RefundIntent): Promise<BuiltRefund> {
      const asset = getAsset(info, intent.asset);
      if (asset === undefined) throw new Error(`${chainId} has no asset ${intent.asset}`);
      if (intent.from !== null) {
        deps.signingKeys.keyFor(chainId, true, intent.from.derivationIndex, intent.from.address);
      }
      const fee = simulatedForwardFee(chainId);
      // As a sweep: a native-coin refund pays its fee out of what it moves; a token refund pays it in the native coin.
      const sent = asset.isNative ? intent.amount - fee : intent.amount;
      if (sent <= 0n) {
        throw new RefundRefused(
          `the refund (${intent.amount} base units) is not worth its network fee (${fee} base units)`,
        );
      }
      const txHash = simulatedTxHash(family, `refund:${chainId}:${intent.id}`);
      const raw: RawForward = {
        sim: 1,
        chain: chainId,
        txHash,
        to: intent.to,
        asset: asset.code,
        amount: sent.toString(),
        fee: fee.toString(),
        inputs: [intent.from?.address ?? SIMULATED_REFUND_WALLET],
        kind: 'refund',
      };
      return { txHash, rawTx: JSON.stringify(raw), sent, fee };
    },

    async broadcast(rawTx) {
      const raw = JSON.parse(rawTx) as RawForward;
      if (raw.sim !== 1 || raw.chain !== chainId)
        throw new Error('Not a transaction of this simulated chain');
      await repo.insertTransfer(db, {
        chain: chainId,
        txHash: raw.txHash,
        outputIndex: 0,
        kind: raw.kind ?? 'forward',
        fromAddress: raw.kind === 'refund' ? (raw.inputs[0] ?? null) : null,
        toAddress: raw.to ?? SIMULATED_SINK,
        asset: raw.asset,
        amount: BigInt(raw.amount),
        createdAt: clock.now(),
      });
    },

    async forwardStatus(txHash): Promise<ForwardStatus> {
      const found = await repo.findTransfer(db, chainId, txHash);
      if (found === null) return { state: 'unknown' };
      if (found.blockNumber === null || found.blockHash === null) return { state: 'pending' };
      return { state: 'included', blockNumber: found.blockNumber, blockHash: found.blockHash };
    },

    hasPendingTransfers: () => repo.hasPending(db, chainId),

    async produceBlock() {
      const block = await db.transaction((tx) => appendOne(tx));
      if (block !== null && block.number % 1000 === 0 && block.number > KEEP_BLOCKS) {
        await repo.pruneBlocksBelow(db, chainId, block.number - KEEP_BLOCKS);
      }
      return block;
    },

    async sendDeposit({ to, asset, amount }) {
      if (amount <= 0n) throw new RangeError('A simulated deposit must be positive');
      const txHash = simulatedTxHash(family);
      await repo.insertTransfer(db, {
        chain: chainId,
        txHash,
        outputIndex: 0,
        kind: 'deposit',
        fromAddress: null,
        toAddress: to,
        asset,
        amount,
        createdAt: clock.now(),
      });
      return { txHash, outputIndex: 0 };
    },

    async reorg(depth, options = {}) {
      if (!Number.isInteger(depth) || depth < 1) throw new RangeError('depth must be a positive integer');
      await db.transaction(async (tx) => {
        const head = await repo.head(tx, chainId);
        if (head === null) return;
        const from = Math.max(0, head.number - depth + 1);
        await repo.dropBlocksFrom(tx, chainId, from, options.keepDeposits ?? false);
        for (let number = from; number <= head.number; number++) await appendOne(tx);
      });
    },
  };
}
