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

  it('spells a watched script back as the address it was keyed from when that is svc spelling, exactly as encoding it', () => {
    const keys = createScriptKeys(test, [test, regtest]);
    // P2WPKH (bech32) and a version 1 program (bech32m), keyed in svc's spelling.
    const taproot = `5120${'ab'.repeat(32)}`;
    for (const script of [scriptOf(5), taproot]) {
      const address = scriptToAddress(test, script) as string;
      expect(keys.keyOf(address)).toBe(script);
      expect(keys.addressOf(script)).toBe(address);
    }
    // Keyed only in another spelling (upper case, regtest): encoded in svc's spelling, as before.
    expect(keys.keyOf(spell(test, 6).toUpperCase())).toBe(scriptOf(6));
    expect(keys.keyOf(spell(regtest, 7))).toBe(scriptOf(7));
    expect(keys.addressOf(scriptOf(6))).toBe(spell(test, 6));
    expect(keys.addressOf(scriptOf(7))).toBe(spell(test, 7));
    // Never keyed, or not an address: encoded, or none.
    expect(keys.addressOf(scriptOf(8))).toBe(spell(test, 8));
    keys.keyOf(`${spell(test, 9).slice(0, -1)}q`);
    expect(keys.addressOf(`76a914${'00'.repeat(20)}88ac`)).toBeNull();
  });
});
