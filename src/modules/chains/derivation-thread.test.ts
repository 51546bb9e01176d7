import { afterAll, describe, expect, it } from 'vitest';
import { testMnemonic } from '../../../test/support/harness.ts';
import { createAddressDeriver } from './derivation.ts';
import { createDerivationThread } from './derivation-thread.ts';
import { chainIds } from './registry.ts';

const seeds = { testMnemonic, liveMnemonic: undefined };
const deriver = createAddressDeriver(seeds);

describe('derivation thread', () => {
  let mainThreadCalls = 0;
  const counting = {
    ...deriver,
    deriveAddresses: (...args: Parameters<typeof deriver.deriveAddresses>) => {
      mainThreadCalls += 1;
      return deriver.deriveAddresses(...args);
    },
  };
  const thread = createDerivationThread({ seeds, deriver: counting });
  afterAll(() => thread.close());

  it('derives on the worker exactly what the main thread derives, for every chain', async () => {
    expect(await thread.ready()).toBe(true);
    const indices = [0, 1, 2, 1000, 2_147_483_646];
    for (const chain of chainIds) {
      const expected = indices.map((index) => deriver.deriveAddress(chain, true, index));
      expect(await thread.deriveMany(chain, true, indices), chain).toEqual(expected);
    }
    expect(mainThreadCalls).toBe(0);
  });

  it('passes a derivation error on as the main thread raises it (live mode without a seed)', async () => {
    await expect(thread.deriveMany('ethereum', false, [1])).rejects.toMatchObject({
      code: 'live_seed_missing',
    });
  });

  it('derives on the main thread once the worker is gone', async () => {
    const gone = createDerivationThread({ seeds, deriver: counting });
    await gone.close();
    const before = mainThreadCalls;
    expect(await gone.deriveMany('tron', true, [5])).toEqual([deriver.deriveAddress('tron', true, 5)]);
    expect(mainThreadCalls).toBe(before + 1);
    expect(await gone.ready()).toBe(false);
  });
});
