import { type ChainId, chainIds, isChainId } from './registry.ts';

/** The most confirmations a chain may be configured to wait for (Arbitrum's default is 1200 blocks). */
const MAX_CONFIRMATIONS = 100_000;

/**
 * Parses SVC_CONFIRMATIONS ("ethereum=6,bitcoin=1"): required confirmations per chain, overriding the registry's
 * defaults. Throws an Error whose message says what is wrong (the config loader prefixes the variable's name).
 */
export function parseConfirmations(text: string | undefined): Partial<Record<ChainId, number>> {
  const overrides: Partial<Record<ChainId, number>> = {};
  if (text === undefined || text.trim() === '') return overrides;
  for (const rawEntry of text.split(',')) {
    const entry = rawEntry.trim();
    if (entry === '') continue;
    const match = /^([A-Za-z0-9_-]+)\s*=\s*(\S*)$/.exec(entry);
    if (match === null) throw new Error(`"${entry}" is not CHAIN=COUNT (e.g. ethereum=6)`);
    const chain = (match[1] ?? '').toLowerCase();
    const count = match[2] ?? '';
    if (!isChainId(chain)) throw new Error(`unknown chain "${chain}" (known: ${chainIds.join(', ')})`);
    if (!/^[1-9]\d{0,5}$/.test(count) || Number(count) > MAX_CONFIRMATIONS) {
      throw new Error(
        `${chain} must be a whole number of confirmations from 1 to ${MAX_CONFIRMATIONS}, got "${count}"`,
      );
    }
    if (overrides[chain] !== undefined) throw new Error(`${chain} is set twice`);
    overrides[chain] = Number(count);
  }
  return overrides;
}
