/**
 * One item at a time in, batches out: a call of `add(item)` goes out at once while fewer than `maxInFlight` batches
 * are running; when that many are, items wait and the next batch to start takes all those waiting (up to
 * `maxBatch`). So nothing waits that could have gone, and under load many items share one round trip to the database
 * instead of each paying its own.
 *
 * Each caller learns the fate of its own item: when a batch fails, its items are tried again one by one, so one bad
 * item fails its own caller only.
 */
export function createCoalescer<Item>(options: {
  run(batch: Item[]): Promise<void>;
  maxInFlight: number;
  maxBatch: number;
}): { add(item: Item): Promise<void> } {
  if (!(options.maxInFlight >= 1 && options.maxBatch >= 1)) throw new RangeError('limits must be at least 1');
  interface Waiting {
    item: Item;
    resolve(): void;
    reject(error: unknown): void;
  }
  const waiting: Waiting[] = [];
  let inFlight = 0;

  async function run(batch: Waiting[]): Promise<void> {
    try {
      await options.run(batch.map((entry) => entry.item));
      for (const entry of batch) entry.resolve();
    } catch (error) {
      if (batch.length === 1) {
        batch[0]?.reject(error);
        return;
      }
      await Promise.all(batch.map((entry) => run([entry])));
    }
  }

  function pump(): void {
    while (inFlight < options.maxInFlight && waiting.length > 0) {
      const batch = waiting.splice(0, options.maxBatch);
      inFlight += 1;
      void run(batch).finally(() => {
        inFlight -= 1;
        pump();
      });
    }
  }

  return {
    add(item) {
      return new Promise<void>((resolve, reject) => {
        waiting.push({ item, resolve, reject });
        pump();
      });
    },
  };
}
