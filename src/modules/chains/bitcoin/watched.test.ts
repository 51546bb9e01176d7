import { describe, expect, it } from 'vitest';
import { BITCOIN_NETWORKS, p2wpkhScript, scriptToAddress } from './network.ts';
import { createScriptKeys } from './watched.ts';

const main = BITCOIN_NETWORKS['litecoin-main'];
const test = BITCOIN_NETWORKS['litecoin-test'];
const regtest = BITCOIN_NETWORKS['litecoin-regtest'];
const scriptOf = (byte: number) => p2wpkhScript(new Uint8Array(20).fill(byte));
const spell = (network: typeof main, byte: number) => scriptToAddress(network, scriptOf(byte)) as string;

describe('script keys', () => {
  it('keys an address by the script that pays it, whatever its case', () => {
    const keys = createScriptKeys(main);
    expect(keys.keyOf(spell(main, 1))).toBe(scriptOf(1));
    expect(keys.keyOf(spell(main, 1).toUpperCase())).toBe(scriptOf(1));
    expect(keys.addressOf(scriptOf(1))).toBe(spell(main, 1));
  });

  it('gives one key to the test and regtest spellings of one script, and spells it the svc way', () => {
    const keys = createScriptKeys(test, [test, regtest]);
    expect(keys.keyOf(spell(regtest, 2))).toBe(scriptOf(2));
    expect(keys.keyOf(spell(test, 2))).toBe(scriptOf(2));
    expect(keys.addressOf(scriptOf(2))).toBe(spell(test, 2));
  });

  it('gives what is no address of the accepted networks a key no script equals', () => {
    const keys = createScriptKeys(main);
    for (const other of ['not-an-address', spell(test, 3), spell(main, 3).slice(0, -1), '']) {
      const key = keys.keyOf(other);
      expect(key).not.toMatch(/^[0-9a-f]*$/);
      expect(keys.keyOf(other)).toBe(key);
    }
    expect(keys.keyOf(spell(test, 3))).not.toBe(keys.keyOf(spell(test, 4)));
  });
});
