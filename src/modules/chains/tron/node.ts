import type { TronHttp } from './http.ts';

/**
 * /readyz detail of one Tron node, in the shape of the other families (null when ready, else one line): down (every
 * URL failed), lagging (its head block is older than MAX_HEAD_AGE_SECONDS: a node that stopped syncing), or its
 * solidity API far behind the head (deposits are then not credited until it catches up). It reads what the scan loop
 * last saw, so /readyz itself never waits on the node.
 */

/** The solidity API normally trails by 19–20 blocks; 100 (5 minutes) means something is stuck. */
const MAX_SOLID_LAG = 100;

export function createTronReadiness(deps: {
  http: TronHttp;
  name: string;
  maxHeadAgeSeconds: number;
  lastHead: () => { number: number; timestamp: Date; solid: number; readAt: Date } | null;
}) {
  return async (): Promise<string | null> => {
    const health = deps.http.health();
    if (health.down !== null)
      return `${deps.name}: ${health.down.reason} since ${health.down.since.toISOString()}`;
    const head = deps.lastHead();
    if (head === null) return null;
    if (deps.maxHeadAgeSeconds > 0) {
      const age = (head.readAt.getTime() - head.timestamp.getTime()) / 1000;
      if (age > deps.maxHeadAgeSeconds) {
        return `${deps.name}: node lagging: head block ${head.number} is ${Math.round(age)} s old`;
      }
    }
    const lag = head.number - head.solid;
    if (lag > MAX_SOLID_LAG) {
      return `${deps.name}: solidified block ${head.solid} is ${lag} blocks behind the head ${head.number}: deposits wait for it`;
    }
    return null;
  };
}
