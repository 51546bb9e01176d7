import { describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/support/harness.ts';
import { ConfigError } from '../../config.ts';
import { parseConfirmations } from './settings.ts';

describe('SVC_CONFIRMATIONS', () => {
  it('parses CHAIN=COUNT pairs', () => {
    expect(parseConfirmations('ethereum=6,bitcoin=1')).toEqual({ ethereum: 6, bitcoin: 1 });
    expect(parseConfirmations(' Solana = 40 , ,tron=20 ')).toEqual({ solana: 40, tron: 20 });
    expect(parseConfirmations('')).toEqual({});
    expect(parseConfirmations(undefined)).toEqual({});
  });

  it('rejects unknown chains, bad counts, duplicates and junk', () => {
    expect(() => parseConfirmations('dogecoin=3')).toThrow(/unknown chain "dogecoin" \(known: ethereum, /);
    for (const bad of [
      'ethereum=0',
      'ethereum=-1',
      'ethereum=1.5',
      'ethereum=',
      'ethereum=abc',
      'ethereum=100001',
    ]) {
      expect(() => parseConfirmations(bad)).toThrow(/ethereum must be a whole number/);
    }
    expect(() => parseConfirmations('ethereum=6,ethereum=7')).toThrow(/set twice/);
    expect(() => parseConfirmations('ethereum')).toThrow(/is not CHAIN=COUNT/);
  });

  it('reaches the config, and a bad value stops the boot naming the variable', () => {
    expect(testConfig().confirmations).toEqual({});
    expect(testConfig({ SVC_CONFIRMATIONS: 'ethereum=6,bitcoin=1' }).confirmations).toEqual({
      ethereum: 6,
      bitcoin: 1,
    });
    let thrown: unknown;
    try {
      testConfig({ SVC_CONFIRMATIONS: 'foo=1' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems).toEqual([
      expect.stringMatching(/^SVC_CONFIRMATIONS: unknown chain "foo"/),
    ]);
  });
});
