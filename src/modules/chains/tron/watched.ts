import { base58Address, hexAddress } from './tx.ts';

/**
 * How the tron adapter keys a watched address: by its 20 account bytes in lower-case hex, the form a block writes
 * them in (`41` ‖ 20 bytes in a contract, the bare 20 bytes in an event log's topic). The watcher turns each address
 * into its key once, when it starts watching it (adapter.addressKey); a scan then looks each recipient up as the block
 * writes it, and spells only the recipients that are watched in base58 again (a double SHA-256 each: for every
 * transfer of a block, that was half the scanner's time).
 *
 * A string that is no Tron address gets a key that no recipient can equal (keys are hex; this one has a colon).
 */
export interface TronAddressKeys {
  keyOf(address: string): string;
  /** The base58 address (T…) of a key, as svc spells it (what a deposit records). */
  addressOf(key: string): string;
}

/** Remembered keys before the memo starts over (a full watch list is re-keyed every minute). */
const MEMO_LIMIT = 1_000_000;

export function createTronAddressKeys(): TronAddressKeys {
  const keys = new Map<string, string>();
  const addresses = new Map<string, string>();
  return {
    keyOf(address) {
      let key = keys.get(address);
      if (key === undefined) {
        try {
          key = hexAddress(address).slice(2);
          if (address.startsWith('T')) {
            if (addresses.size >= MEMO_LIMIT) addresses.clear();
            addresses.set(key, address);
          }
        } catch {
          key = `not-an-address:${address}`;
        }
        if (keys.size >= MEMO_LIMIT) keys.clear();
        keys.set(address, key);
      }
      return key;
    },
    addressOf: (key) => addresses.get(key) ?? base58Address(key),
  };
}
