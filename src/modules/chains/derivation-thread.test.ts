import { afterAll, describe, expect, it } from 'vitest';
import { testMnemonic } from '../../../test/support/harness.ts';
import { createAddressDeriver } from './derivation.ts';
import { createDerivationCheck, DerivationMismatchError } from './derivation-check.ts';
import { createDerivationThread } from './derivation-thread.ts';
import { chainIds } from './registry.ts';

const seeds = { testMnemonic, liveMnemonic: undefined };
const deriver = createAddressDeriver(seeds);
const check = createDerivationCheck(seeds);

describe('derivation thread', () => {
  let mainThreadCalls = 0;
  const counting = {
    ...deriver,
    deriveBatch: (...args: Parameters<typeof deriver.deriveBatch>) => {
      mainThreadCalls += 1;
      return deriver.deriveBatch(...args);
    },
  };
  const thread = createDerivationThread({ seeds, testSpelling: {}, deriver: counting, check });
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
    const gone = createDerivationThread({ seeds, testSpelling: {}, deriver: counting, check });
    await gone.close();
    const before = mainThreadCalls;
    expect(await gone.deriveMany('tron', true, [5])).toEqual([deriver.deriveAddress('tron', true, 5)]);
    expect(mainThreadCalls).toBe(before + 1);
    expect(await gone.ready()).toBe(false);
  });

  it('refuses, on the main thread too, an address that the second derivation does not confirm', async () => {
    const broken = {
      ...deriver,
      // One wrong point in the batch: the address and key of the next index in place of this one's.
      deriveBatch: (
        chain: Parameters<typeof deriver.deriveBatch>[0],
        isTest: boolean,
        indices: readonly number[],
      ) =>
        deriver.deriveBatch(
          chain,
          isTest,
          indices.map((index) => (index === 7 ? 8 : index)),
        ),
    };
    const gone = createDerivationThread({ seeds, testSpelling: {}, deriver: broken, check });
    await gone.close();
    await expect(gone.deriveMany('ethereum', true, [6, 7])).rejects.toBeInstanceOf(DerivationMismatchError);
    await expect(gone.deriveMany('ethereum', true, [6, 7])).rejects.toMatchObject({
      code: 'derivation_mismatch',
      detail: {
        chain: 'ethereum',
        isTest: true,
        index: 7,
        derived: deriver.deriveAddress('ethereum', true, 8),
      },
    });
    expect(await gone.deriveMany('ethereum', true, [6])).toEqual([
      deriver.deriveAddress('ethereum', true, 6),
    ]);
  });

  it('derives with the spelling it is given: regtest prefixes where the test node is regtest, the same keys', async () => {
    const testSpelling = { litecoin: 'regtest', bitcoin: 'regtest' } as const;
    const regtestDeriver = createAddressDeriver(seeds, { testSpelling });
    const regtest = createDerivationThread({
      seeds,
      testSpelling,
      deriver: regtestDeriver,
      check: createDerivationCheck(seeds, { testSpelling }),
    });
    try {
      expect(await regtest.ready()).toBe(true);
      const indices = [0, 1, 77];
      const ltc = await regtest.deriveMany('litecoin', true, indices);
      expect(ltc).toEqual(indices.map((index) => regtestDeriver.deriveAddress('litecoin', true, index)));
      expect(ltc.every((address) => address.startsWith('rltc1q'))).toBe(true);
      const btc = await regtest.deriveMany('bitcoin', true, indices);
      expect(btc.every((address) => address.startsWith('bcrt1q'))).toBe(true);
      // Other families are untouched by the spelling.
      expect(await regtest.deriveMany('ethereum', true, [3])).toEqual([
        deriver.deriveAddress('ethereum', true, 3),
      ]);
    } finally {
      await regtest.close();
    }
  });
});
