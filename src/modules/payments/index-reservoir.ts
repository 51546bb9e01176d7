/**
 * Derivation indices are fetched from their sequence a few at a time and handed out from memory, so most creations
 * need no round trip for them. A process that dies leaves at most RESERVOIR_SIZE indices unused: fewer than the
 * 20-address gap limit with which wallets restore an HD seed, so a restored wallet still finds every later address.
 */
export const RESERVOIR_SIZE = 10;

export function createIndexReservoir(
  fetch: (space: string, isTest: boolean, count: number) => Promise<number[]>,
  size = RESERVOIR_SIZE,
) {
  const queues = new Map<string, number[]>();
  const refills = new Map<string, Promise<void>>();
  return {
    async take(space: string, isTest: boolean): Promise<number> {
      const key = `${space}:${isTest}`;
      for (;;) {
        const next = queues.get(key)?.shift();
        if (next !== undefined) return next;
        let refill = refills.get(key);
        if (refill === undefined) {
          refill = fetch(space, isTest, size)
            .then((fetched) => {
              queues.set(key, [...(queues.get(key) ?? []), ...fetched]);
            })
            .finally(() => refills.delete(key));
          refills.set(key, refill);
        }
        await refill;
      }
    },
  };
}
