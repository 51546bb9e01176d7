import type { Logger } from 'pino';
import type { Found } from './scan.ts';

/**
 * Balance reconciliation: how ether sent to a deposit address by a contract (an internal transfer) is still found on
 * a node that has neither debug_traceBlockByHash nor trace_block.
 *
 * The adapter tells the reconciler, for every block it scans, the ether movements it can see for watched addresses
 * (transactions paying them, their own outgoing sweeps with the fees). Every `every` blocks it reads the balance of
 * each watched address at that block (by block hash) and compares it with the last balance it read plus those
 * movements. More than expected is a payment nobody could see in the transactions: it is reported as a transfer in
 * the reconciliation block, with that block's hash in place of a transaction hash (the paying transaction is unknown
 * without traces) and an output index derived from the address.
 *
 * Reorganisations: the last balance of an address is kept twice, one that is deep enough to be final and a newer
 * one that is used only while the block it was read at is still on the chain. A block rescanned after a reorg
 * replaces its recorded movements, so expectations follow the chain as it is now.
 *
 * Limits: an address is given its first balance (no report) the first time it is watched in this process, so a
 * contract payment that lands while the program is down, before the next reconciliation after the restart, is
 * taken as the starting balance and not reported.
 */

interface Reading {
  number: number;
  hash: string;
  balance: bigint;
}

export interface Reconciler {
  /** The movements the scan of block `number` saw for watched addresses (positive in, negative out). */
  record(number: number, hash: string, deltas: ReadonlyMap<string, bigint>): void;
  /**
   * On a reconciliation block: transfers nobody could see; on other blocks: nothing. `parent` is the block before,
   * where newly watched addresses take their first balance.
   */
  reconcile(
    block: { number: number; hash: string; parentHash: string },
    watched: ReadonlySet<string>,
  ): Promise<Found[]>;
}

/** Output index of a reconciliation transfer: below every other kind, distinct per address. */
export function reconcileIndex(address: string): number {
  return -1_000_000 - (Number.parseInt(address.slice(2, 8), 16) % 1_000_000);
}

export function createReconciler(deps: {
  every: number;
  confirmations: () => number;
  asset: string;
  /** Balances at a block (by hash), in the order of `addresses`. */
  balances(addresses: string[], blockHash: string): Promise<bigint[]>;
  /** The hash of the block at this height on the chain now, or null. */
  hashAt(number: number): Promise<string | null>;
  logger: Logger;
}): Reconciler {
  const movements = new Map<number, { hash: string; deltas: ReadonlyMap<string, bigint> }>();
  const final = new Map<string, Reading>();
  const recent = new Map<string, Reading>();
  const retention = () => 2 * (deps.every + deps.confirmations()) + 10;

  function movedSince(address: string, after: number, upTo: number): bigint {
    let sum = 0n;
    for (let n = after + 1; n <= upTo; n++) sum += movements.get(n)?.deltas.get(address) ?? 0n;
    return sum;
  }

  return {
    record(number, hash, deltas) {
      movements.set(number, { hash, deltas });
      const oldest = number - retention();
      for (const key of movements.keys()) if (key < oldest) movements.delete(key);
    },

    async reconcile(block, watched) {
      const addresses = [...watched];
      const fresh = addresses.filter((a) => !final.has(a) && !recent.has(a));
      if (fresh.length > 0) {
        // First sight: the balance before this block is where it starts.
        const before = await deps.balances(fresh, block.parentHash);
        fresh.forEach((address, i) => {
          final.set(address, { number: block.number - 1, hash: block.parentHash, balance: before[i] ?? 0n });
        });
      }
      if (block.number % deps.every !== 0) return [];
      const confirmations = deps.confirmations();
      const hashes = new Map<number, string | null>();
      const onChain = async (reading: Reading): Promise<boolean> => {
        if (!hashes.has(reading.number)) hashes.set(reading.number, await deps.hashAt(reading.number));
        return hashes.get(reading.number) === reading.hash;
      };
      const now = await deps.balances(addresses, block.hash);
      const found: Found[] = [];
      const oldestKept = block.number - retention();
      for (let i = 0; i < addresses.length; i++) {
        const address = addresses[i] as string;
        const balance = now[i] ?? 0n;
        let base = final.get(address);
        const newer = recent.get(address);
        if (newer !== undefined && newer.number < block.number) {
          if (await onChain(newer)) {
            if (block.number - newer.number + 1 >= confirmations) {
              final.set(address, newer);
              recent.delete(address);
            }
            base = newer;
          } else {
            recent.delete(address);
          }
        }
        if (base === undefined || base.number < oldestKept) {
          // Too old to account for: start again from here without a report.
          recent.set(address, { number: block.number, hash: block.hash, balance });
          continue;
        }
        const expected = base.balance + movedSince(address, base.number, block.number);
        if (balance > expected) {
          found.push({
            txHash: block.hash,
            outputIndex: reconcileIndex(address),
            to: address,
            asset: deps.asset,
            amount: balance - expected,
            txIndex: Number.MAX_SAFE_INTEGER,
          });
          deps.logger.info(
            { address, block: block.number, amount: (balance - expected).toString() },
            'balance reconciliation found ether no transaction showed (internal transfer)',
          );
        } else if (balance < expected) {
          deps.logger.warn(
            { address, block: block.number, expected: expected.toString(), balance: balance.toString() },
            'balance reconciliation: less ether than the transactions showed',
          );
        }
        recent.set(address, { number: block.number, hash: block.hash, balance });
      }
      return found;
    },
  };
}
