import { type ChainId, indexSpace } from '../chains/registry.ts';

/**
 * Deposit addresses ready before they are asked for: derivation indices are taken from their counter row
 * (db/schema/deposit-indices.ts) RESERVOIR_SIZE at a time, their addresses derived as a batch (on the derivation thread when there is one), and
 * handed out from memory; a new batch is prepared when only LOW_WATER are left, so a steady stream of creations
 * seldom waits for either. A process that dies leaves at most LOW_WATER + RESERVOIR_SIZE indices of a space unused:
 * fewer than the 20-address gap limit with which wallets restore an HD seed, so a restored wallet still finds every
 * later address. Each batch costs a round trip to the database and a message to the derivation thread (waking a
 * thread or a process costs far more than a derivation here): 15 at a time made creations ~15% faster than 10.
 *
 * The derivation (two of them: every address is confirmed by the second, independent derivation) costs far more than
 * the reservation, and only one refill of a space runs at a time, so a refill that derived after it reserved would
 * keep a busy stream of creations waiting. So refills also derive, in the background, the range that the next
 * reservation will most likely return: the counter hands out contiguous ranges, and unless another process took some
 * meanwhile the next range starts where this one ended. Deriving an index reserves nothing (no gap if the process
 * dies); an address is handed out only for an index its own reservation returned, and a guess that missed is dropped
 * and the reserved indices derived as before.
 *
 * Pools are per index space (all EVM chains share one): every chain of a space derives the same address at an index.
 */
export const RESERVOIR_SIZE = 15;
export const LOW_WATER = 4;
/**
 * Reservations' worth of addresses derived ahead in one batch. Two would share the derivation thread's fixed costs
 * (a message each way, the second derivation's one multiplication a batch) by twice as many addresses, but the next
 * refill then waits for twice as long a batch: the bench measured creations ~10% slower with two.
 */
const AHEAD_RANGES = 1;
/** Consecutive unused addresses after which wallets stop looking (BIP-44). */
export const GAP_LIMIT = 20;

export interface PooledAddress {
  index: number;
  address: string;
}

export function createAddressPool(deps: {
  fetchIndices: (space: string, isTest: boolean, count: number) => Promise<number[]>;
  deriveMany: (chain: ChainId, isTest: boolean, indices: readonly number[]) => Promise<string[]>;
  size?: number;
}) {
  const size = deps.size ?? RESERVOIR_SIZE;
  const ready = new Map<string, PooledAddress[]>();
  const refills = new Map<string, Promise<void>>();
  /** Per space and mode: the addresses being derived for the next range(s) the counter should hand out. */
  const ahead = new Map<string, { first: number; count: number; addresses: Promise<string[] | undefined> }>();

  /** The addresses of `indices` (just reserved, contiguous): from the guess derived ahead when it holds them. */
  async function addressesOf(
    key: string,
    chain: ChainId,
    isTest: boolean,
    indices: number[],
  ): Promise<string[]> {
    const guess = ahead.get(key);
    const first = indices[0];
    if (guess !== undefined && first !== undefined && first >= guess.first) {
      const offset = first - guess.first;
      if (offset + indices.length <= guess.count) {
        const addresses = await guess.addresses;
        if (addresses !== undefined) return addresses.slice(offset, offset + indices.length);
      }
    }
    return deps.deriveMany(chain, isTest, indices);
  }

  /** Makes sure the range after `last` is derived or being derived. */
  function deriveAhead(key: string, chain: ChainId, isTest: boolean, last: number): void {
    const first = last + 1;
    const guess = ahead.get(key);
    if (guess !== undefined && first >= guess.first && first + size <= guess.first + guess.count) return;
    const count = AHEAD_RANGES * size;
    const addresses = deps
      .deriveMany(
        chain,
        isTest,
        Array.from({ length: count }, (_, n) => first + n),
      )
      // Past the last index, or with no live seed, the guess fails; the reservation then fails or derives on its own.
      .catch(() => undefined);
    ahead.set(key, { first, count, addresses });
  }

  function refill(key: string, chain: ChainId, space: string, isTest: boolean): Promise<void> {
    let running = refills.get(key);
    if (running === undefined) {
      running = (async () => {
        const indices = await deps.fetchIndices(space, isTest, size);
        const addresses = await addressesOf(key, chain, isTest, indices);
        const last = indices.at(-1);
        if (last !== undefined) deriveAhead(key, chain, isTest, last);
        const queue = ready.get(key) ?? [];
        indices.forEach((index, i) => {
          const address = addresses[i];
          if (address === undefined) throw new Error('derivation returned fewer addresses than indices');
          queue.push({ index, address });
        });
        ready.set(key, queue);
      })().finally(() => refills.delete(key));
      refills.set(key, running);
    }
    return running;
  }

  return {
    /**
     * Puts back an address taken but never handed out (its payment was not stored), to be taken next: a reserved
     * index left unused would be a gap.
     */
    giveBack(chain: ChainId, isTest: boolean, address: PooledAddress): void {
      const key = `${indexSpace(chain)}:${isTest}`;
      const queue = ready.get(key) ?? [];
      queue.unshift(address);
      ready.set(key, queue);
    },

    /**
     * A fresh index and its address for `chain` in this mode. Take it before opening a transaction: a refill queries
     * the database, which on the single-connection embedded engine would wait forever behind an open transaction.
     */
    async take(chain: ChainId, isTest: boolean): Promise<PooledAddress> {
      const space = indexSpace(chain);
      const key = `${space}:${isTest}`;
      for (;;) {
        const queue = ready.get(key);
        const next = queue?.shift();
        if (next !== undefined) {
          if ((queue?.length ?? 0) <= LOW_WATER && !refills.has(key)) {
            // Ahead of need; a failure here is met again (and thrown) by the take that waits for the next refill.
            refill(key, chain, space, isTest).catch(() => {});
          }
          return next;
        }
        await refill(key, chain, space, isTest);
      }
    },
  };
}

export type AddressPool = ReturnType<typeof createAddressPool>;
