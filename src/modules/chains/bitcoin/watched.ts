import { addressToScriptOn, type BitcoinNetwork, scriptToAddress } from './network.ts';

/**
 * How the bitcoin family keys a watched address: by the output script that pays it (lower-case hex, as the node writes
 * it). The watcher turns each address into its key once, when it starts watching it (adapter.addressKey); a scan then
 * tests each output's script against the watched set itself, so a poll costs nothing per watched address (walking
 * 100,000 keys each poll took half the scanner's time).
 *
 * One script has several spellings, all one key: upper case (QR codes), and in test mode tb1…/tltc1… beside
 * bcrt1…/rltc1… (svc spells new addresses for regtest when the test node is configured as regtest; payments created
 * before keep their testnet spelling, and a regtest wallet writes its own). A string that is no segwit address of the chain's networks in this mode gets a
 * key that no script can equal (scripts are hex; the key has a colon).
 */
export interface ScriptKeys {
  keyOf(address: string): string;
  /** The address of a watched script in svc's spelling (what a deposit records), or null for a non-segwit script. */
  addressOf(script: string): string | null;
}

const NOT_AN_ADDRESS = 'not-an-address:';

/** Remembered decodings before the memo starts over (a full watch list is re-keyed every minute). */
const MEMO_LIMIT = 1_000_000;

export function createScriptKeys(
  spelling: BitcoinNetwork,
  accepted: readonly BitcoinNetwork[] = [spelling],
): ScriptKeys {
  const memo = new Map<string, string>();
  /**
   * Script → address, for the addresses keyed that are in svc's spelling already (lower case, its prefix): a lower-case
   * bech32 address that decodes (strictly: checksum, padding, version) is the one encoding of its script, so addressOf
   * gives it back without encoding it again (a block's deposits, each watched: about 3 µs each otherwise).
   */
  const spelled = new Map<string, string>();
  const prefix = `${spelling.hrp}1`;
  function decode(address: string): string {
    try {
      return addressToScriptOn(accepted, address);
    } catch {
      return `${NOT_AN_ADDRESS}${address}`;
    }
  }
  return {
    keyOf(address) {
      let key = memo.get(address);
      if (key === undefined) {
        key = decode(address);
        if (memo.size >= MEMO_LIMIT) {
          memo.clear();
          spelled.clear();
        }
        memo.set(address, key);
        if (address.startsWith(prefix) && !key.startsWith(NOT_AN_ADDRESS)) spelled.set(key, address);
      }
      return key;
    },
    addressOf: (script) => spelled.get(script) ?? scriptToAddress(spelling, script),
  };
}
