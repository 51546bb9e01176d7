import type { Logger } from 'pino';
import { redactUrl } from './rpc-url.ts';

/** One chain's node variables in one mode: `SVC_CHAIN_<NAME>_*` (live) or `SVC_TEST_CHAIN_<NAME>_*` (test). */
export interface ChainNodeEnv {
  /** The variables' common prefix, for error messages (e.g. `SVC_CHAIN_ETHEREUM_`). */
  prefix: string;
  /** A variable of this chain and mode, trimmed; undefined when unset or empty. */
  get(name: string): string | undefined;
  /** `<prefix>RPC_URL`: one or more http(s) URLs separated by commas, the first that answers used. */
  rpcUrls: string[];
}

/**
 * The node variables of `chain` in one mode, or undefined when its RPC_URL is not set (the chain is then not
 * connected in that mode). Every chain family reads its node the same way; the family adds its own variables.
 * Throws an Error naming the variable when a URL is not http(s) (the URL redacted: providers put keys in them).
 */
export function chainNodeEnv(
  env: Record<string, string | undefined>,
  chain: string,
  isTest: boolean,
): ChainNodeEnv | undefined {
  const prefix = `${isTest ? 'SVC_TEST_CHAIN' : 'SVC_CHAIN'}_${chain.toUpperCase()}_`;
  const get = (name: string): string | undefined => {
    const value = env[`${prefix}${name}`]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const urlText = get('RPC_URL');
  if (urlText === undefined) return undefined;
  const rpcUrls = urlText
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  for (const url of rpcUrls) {
    if (!/^https?:\/\/[^\s]+$/.test(url)) {
      throw new Error(`${prefix}RPC_URL: "${redactUrl(url)}" is not an http:// or https:// URL`);
    }
  }
  return { prefix, get, rpcUrls };
}

/**
 * Whether a chain's node is configured for live mode while no live seed is: its adapter is then not built (no
 * deposit address could be derived), and the log says why.
 */
export function liveNodeWithoutSeed(
  settings: { chain: string; isTest: boolean },
  liveMnemonic: string | undefined,
  logger: Pick<Logger, 'warn'>,
): boolean {
  if (settings.isTest || liveMnemonic !== undefined) return false;
  logger.warn(
    { chain: settings.chain },
    'RPC URL set but SVC_MNEMONIC is not: live payments on this chain are off',
  );
  return true;
}
