import { addressToScript, type BitcoinNetwork } from './network.ts';

/**
 * The watched deposit addresses as output scripts. The watcher hands over address keys (lower-case bech32 in svc's
 * spelling); each is turned into its script once and remembered both ways, so a poll with 100,000 watched addresses
 * costs map lookups, not bech32 decoding. An address that is not a segwit address of the network is skipped (and
 * remembered as such): it cannot be a deposit address of this chain.
 */
/** What the scans ask of the watched scripts. */
export interface WatchedScriptSet {
  readonly size: number;
  has(script: string): boolean;
}

export function createWatchedScripts(network: BitcoinNetwork) {
  const scriptOfKey = new Map<string, string | null>();
  const keyOfScript = new Map<string, string>();
  return {
    /**
     * The watched scripts as a set to test outputs against. Not a new Set of 100,000 scripts each poll (that took
     * as long as decoding a 2,000-transaction block): the scripts' own map, filtered by the watched keys.
     */
    scriptsOf(watched: ReadonlySet<string>): WatchedScriptSet {
      let size = 0;
      for (const key of watched) {
        let script = scriptOfKey.get(key);
        if (script === undefined) {
          try {
            script = addressToScript(network, key);
            keyOfScript.set(script, key);
          } catch {
            script = null;
          }
          scriptOfKey.set(key, script);
        }
        if (script !== null) size += 1;
      }
      return {
        size,
        has(script) {
          const key = keyOfScript.get(script);
          return key !== undefined && watched.has(key);
        },
      };
    },
    /** The watched address key of a script seen in `scriptsOf`. */
    addressOf(script: string): string | undefined {
      return keyOfScript.get(script);
    },
  };
}
