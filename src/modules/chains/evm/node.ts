import type { Logger } from 'pino';
import type { ChainInfo } from '../registry.ts';
import { createReconciler, type Reconciler } from './reconcile.ts';
import type { EvmRpc } from './rpc.ts';
import type { RpcBlock, RpcReceipt } from './scan.ts';
import type { EvmChainSettings, EvmSettings } from './settings.ts';

/**
 * Node access of one EVM chain in one mode: the node's chain id and what it can trace (checked once, before any
 * scan), the finality it reports, receipts, and the /readyz detail of the node (down, wrong chain, lagging).
 */

export const hex = (n: number | bigint): `0x${string}` => `0x${n.toString(16)}`;

const RECONCILE_WARNING =
  'node has neither debug_traceBlockByHash nor trace_block: ether sent to deposit addresses by contracts (internal transfers) is found by balance reconciliation only';

export function createEvmNode(deps: {
  rpc: EvmRpc;
  info: ChainInfo;
  isTest: boolean;
  settings: EvmChainSettings;
  shared: EvmSettings;
  expectedChainId: number | undefined;
  requiredConfirmations: number;
  logger: Logger;
}) {
  const { rpc, settings, shared, logger, expectedChainId, isTest } = deps;
  const chainId = deps.info.id;
  const nativeCode = deps.info.nativeAsset.code;
  let traceMode: 'debug' | 'trace' | 'none' | undefined =
    settings.trace === 'debug'
      ? 'debug'
      : settings.trace === 'trace'
        ? 'trace'
        : settings.trace === 'reconcile'
          ? 'none'
          : undefined;
  let chainIdProblem: string | null = null;
  /** Set once probing finds no trace API (or TRACE=reconcile): then balances are reconciled instead. */
  let reconciler: Reconciler | null = null;
  let lastHead: { number: number; timestamp: Date; seenAt: Date } | null = null;

  async function probeTrace(): Promise<void> {
    if (traceMode !== undefined) return;
    const head = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', ['latest', false]);
    if (head === null) return;
    try {
      await rpc.request('debug_traceBlockByHash', [head.hash, { tracer: 'callTracer' }]);
      traceMode = 'debug';
    } catch {
      try {
        await rpc.request('trace_block', [head.number]);
        traceMode = 'trace';
      } catch {
        traceMode = 'none';
      }
    }
    logger.info({ traceMode }, 'EVM node tracing');
  }

  async function ensureChainId(): Promise<void> {
    if (expectedChainId === undefined) return;
    const reported = Number(await rpc.request<string>('eth_chainId'));
    if (reported !== expectedChainId) {
      chainIdProblem = `node reports chain id ${reported}, expected ${expectedChainId} (set SVC_${isTest ? 'TEST_' : ''}CHAIN_${chainId.toUpperCase()}_CHAIN_ID for a local node)`;
      logger.error(chainIdProblem);
      throw new Error(chainIdProblem);
    }
    chainIdProblem = null;
  }

  let started: Promise<void> | null = null;
  function ensureStarted(): Promise<void> {
    started ??= (async () => {
      await ensureChainId();
      await probeTrace();
      if (traceMode === 'none' && reconciler === null) {
        logger.warn({ everyBlocks: shared.reconcileEveryBlocks }, RECONCILE_WARNING);
        reconciler = createReconciler({
          every: shared.reconcileEveryBlocks,
          confirmations: () => confirmations,
          asset: nativeCode,
          balances: (addresses, blockHash) =>
            Promise.all(
              addresses.map(async (address) =>
                BigInt(await rpc.request<string>('eth_getBalance', [address, { blockHash }])),
              ),
            ),
          hashAt: async (number) =>
            (await rpc.request<RpcBlock | null>('eth_getBlockByNumber', [hex(number), false]))?.hash ?? null,
          logger,
        });
      }
    })().catch((error: unknown) => {
      started = null;
      throw error;
    });
    return started;
  }

  // FINALITY=finalized: a block is final once it is both `requiredConfirmations` deep and covered by the node's
  // finalized block, expressed to the generic watcher as a confirmation count that follows the finalized head.
  let confirmations = deps.requiredConfirmations;
  async function followFinalized(head: number): Promise<void> {
    if (settings.finality !== 'finalized') return;
    const finalized = await finalizedBlock();
    const depth = finalized === null ? deps.requiredConfirmations : head - finalized + 1;
    confirmations = Math.max(deps.requiredConfirmations, depth);
  }

  async function finalizedBlock(): Promise<number | null> {
    try {
      const block = await rpc.request<RpcBlock | null>('eth_getBlockByNumber', ['finalized', false]);
      return block === null ? null : Number(block.number);
    } catch {
      return null;
    }
  }

  async function receipt(hash: string): Promise<RpcReceipt | null> {
    return rpc.request<RpcReceipt | null>('eth_getTransactionReceipt', [hash]);
  }

  return {
    start: ensureStarted,
    traceMode: () => traceMode,
    reconciler: () => reconciler,
    confirmations: () => confirmations,
    lastHead: () => lastHead,
    /** Records the head just read (its age is what /readyz reports) and follows the finalized block. */
    async noteHead(ref: { number: number; timestamp: Date }): Promise<void> {
      lastHead = { number: ref.number, timestamp: ref.timestamp, seenAt: new Date() };
      await followFinalized(ref.number);
    },
    finalizedBlock,
    receipt,
    async readiness() {
      const name = `${chainId} (${isTest ? 'test' : 'live'})`;
      if (chainIdProblem !== null) return `${name}: ${chainIdProblem}`;
      const health = rpc.health();
      if (health.down !== null) {
        return `${name}: ${health.down.reason} since ${health.down.since.toISOString()}`;
      }
      const maxAge = shared.maxHeadAgeSeconds ?? Math.max(60, deps.info.blockTimeSeconds * 10);
      if (maxAge > 0 && lastHead !== null) {
        const age = (lastHead.seenAt.getTime() - lastHead.timestamp.getTime()) / 1000;
        if (age > maxAge)
          return `${name}: node lagging: head block ${lastHead.number} is ${Math.round(age)} s old`;
      }
      return null;
    },
  };
}

export type EvmNode = ReturnType<typeof createEvmNode>;
