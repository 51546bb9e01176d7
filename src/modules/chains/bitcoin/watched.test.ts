import { describe, expect, it } from 'vitest';
import { BITCOIN_NETWORKS, p2wpkhScript, scriptToAddress } from './network.ts';
import { createWatchedScripts } from './watched.ts';

const network = BITCOIN_NETWORKS['bitcoin-main'];
const scriptOf = (byte: number) => p2wpkhScript(new Uint8Array(20).fill(byte));
const addressOf = (byte: number) => scriptToAddress(network, scriptOf(byte)) as string;

describe('watched scripts', () => {
  it('answers for the watched keys of this poll only, skipping what is no address of the network', () => {
    const scripts = createWatchedScripts(network);
    const watched = new Set([addressOf(1), addressOf(2), 'not-an-address']);
    const set = scripts.scriptsOf(watched);
    expect(set.size).toBe(2);
    expect(set.has(scriptOf(1))).toBe(true);
    expect(set.has(scriptOf(2))).toBe(true);
    expect(set.has(scriptOf(3))).toBe(false);
    expect(scripts.addressOf(scriptOf(2))).toBe(addressOf(2));

    // A key no longer watched stops matching, although its script is still remembered; a new one matches at once.
    const next = scripts.scriptsOf(new Set([addressOf(2), addressOf(3)]));
    expect(next.has(scriptOf(1))).toBe(false);
    expect(next.has(scriptOf(3))).toBe(true);
    expect(next.size).toBe(2);
  });
});
