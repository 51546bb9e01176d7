import type { Logger } from 'pino';
import type { BitcoinNetwork } from './network.ts';
import type { BitcoinRpc } from './rpc.ts';

/**
 * What svc knows of one Bitcoin-family node, for /readyz in the shape the EVM adapter reports (null when ready, else
 * one line saying why not): down (every RPC URL failed), on another network, still syncing (initial block download,
 * or headers known beyond the blocks it has validated), or lagging (its best block is older than it should be).
 *
 * `refresh()` asks the node (`getblockchaininfo`, and `getblockheader` of a new best block for its time); the poll
 * loop that scans blocks calls it each round, so /readyz itself never waits on a node.
 */

interface ChainInfoAnswer {
  chain: string;
  blocks: number;
  headers: number;
  bestblockhash: string;
  initialblockdownload: boolean;
  /** Decimal text (read with callExact): only shown, never computed with. */
  verificationprogress: string | number;
  pruned: boolean;
  pruneheight?: number;
}

export interface BitcoinNodeState {
  chain: string;
  blocks: number;
  headers: number;
  bestBlockHash: string;
  /** The best block's own time (its header's `time`). */
  bestBlockTime: Date;
  initialBlockDownload: boolean;
  verificationProgress: string;
  pruned: boolean;
  /** When this was read. */
  checkedAt: Date;
}

export function createBitcoinNode(deps: {
  rpc: BitcoinRpc;
  network: BitcoinNetwork;
  /** The registry chain id (bitcoin, litecoin): what /readyz names. */
  chainId: string;
  isTest: boolean;
  blockTimeSeconds: number;
  /** A best block older than this makes /readyz report the node as lagging; 0 turns the check off (regtest). */
  maxHeadAgeSeconds?: number;
  logger: Logger;
  now?: () => Date;
}) {
  const { rpc, network, logger } = deps;
  const now = deps.now ?? (() => new Date());
  const name = `${deps.chainId} (${deps.isTest ? 'test' : 'live'})`;
  // Block times are irregular (an exponential distribution): ten block times without a block is rare enough
  // (e^-10 per block) to mean the node, not the chain, has stopped.
  const maxAge = deps.maxHeadAgeSeconds ?? Math.max(60, deps.blockTimeSeconds * 10);
  let state: BitcoinNodeState | null = null;
  let wrongChainLogged = false;

  async function refresh(): Promise<BitcoinNodeState> {
    const info = await rpc.callExact<ChainInfoAnswer>('getblockchaininfo');
    let bestBlockTime = state?.bestBlockHash === info.bestblockhash ? state.bestBlockTime : undefined;
    if (bestBlockTime === undefined) {
      const header = await rpc.call<{ time: number }>('getblockheader', [info.bestblockhash, true]);
      bestBlockTime = new Date(header.time * 1000);
    }
    state = {
      chain: info.chain,
      blocks: info.blocks,
      headers: info.headers,
      bestBlockHash: info.bestblockhash,
      bestBlockTime,
      initialBlockDownload: info.initialblockdownload,
      verificationProgress: String(info.verificationprogress),
      pruned: info.pruned,
      checkedAt: now(),
    };
    if (info.chain !== network.coreChain && !wrongChainLogged) {
      wrongChainLogged = true;
      logger.error({ chain: info.chain, expected: network.coreChain }, 'Bitcoin node is on another network');
    }
    return state;
  }

  return {
    refresh,
    state: () => state,
    async readiness(): Promise<string | null> {
      const health = rpc.health();
      if (health.down !== null)
        return `${name}: ${health.down.reason} since ${health.down.since.toISOString()}`;
      if (state === null) return null;
      if (state.chain !== network.coreChain) {
        return `${name}: node is on the "${state.chain}" network, expected "${network.coreChain}" (${network.name})`;
      }
      if (state.initialBlockDownload || state.headers > state.blocks + 1) {
        const percent = (Number(state.verificationProgress) * 100).toFixed(2);
        return `${name}: node syncing: block ${state.blocks} of ${state.headers} headers (${percent}% verified)`;
      }
      if (maxAge > 0) {
        const age = (state.checkedAt.getTime() - state.bestBlockTime.getTime()) / 1000;
        if (age > maxAge)
          return `${name}: node lagging: best block ${state.blocks} is ${Math.round(age)} s old`;
      }
      return null;
    },
  };
}
