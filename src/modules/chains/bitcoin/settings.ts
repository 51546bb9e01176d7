import { chainNodeEnv } from '../node-env.ts';
import { type ChainId, chains } from '../registry.ts';
import { redactUrl } from '../rpc-url.ts';

/**
 * The environment of the Bitcoin-family chains (bitcoin, litecoin). Per chain (NAME = BITCOIN or LITECOIN), for live
 * mode `SVC_CHAIN_<NAME>_…` and for test mode on a real test network (testnet, signet or regtest)
 * `SVC_TEST_CHAIN_<NAME>_…`:
 * - `RPC_URL`           one or more JSON-RPC URLs of Bitcoin Core (or Litecoin Core), comma-separated, with
 *                       `user:password@` or with `RPC_COOKIE_FILE`; the first that answers is used, the others are
 *                       failovers. Live mode on the chain is on only when this is set (and SVC_MNEMONIC); test mode
 *                       uses the simulator unless its test variable is set. The node's own wallet is never used.
 * - `RPC_COOKIE_FILE`   the node's `.cookie` file (`<datadir>/.cookie`, `<datadir>/regtest/.cookie`, …) for URLs
 *                       without credentials; read again when the node rewrites it (after a 401).
 * - `NETWORK`           the network the node must be on: `main`, `test`, `signet` or `regtest` (its `getblockchaininfo`
 *                       chain). Default: live mode `main`; test mode any of test, signet, regtest. Test mode with
 *                       `regtest` spells its addresses for regtest (bcrt1…/rltc1…, what `sendtoaddress` of a regtest
 *                       wallet takes); otherwise test mode spells them for testnet (tb1…/tltc1…). Setting it for live
 *                       mode lets a local regtest node stand in for mainnet (end-to-end tests); live addresses keep
 *                       their bc1…/ltc1… spelling. The output scripts are the same on every network.
 * - `CONFIRMATIONS`     blocks a deposit needs (its own counts as 1); default SVC_CONFIRMATIONS, else the registry's
 *                       (bitcoin 2, litecoin 6).
 * - `POLL_MS`           how often the node's tip and mempool are polled (default 1000: a payment shows `confirming`
 *                       within about a second of reaching the node's mempool).
 * - `ZMQ_URL`           the node's ZMQ publisher(s), e.g. `tcp://127.0.0.1:28332` for a node started with
 *                       `-zmqpubhashblock=tcp://127.0.0.1:28332 -zmqpubrawtx=tcp://127.0.0.1:28332`; comma-separated
 *                       when the topics are on two ports (`tcp://host:port` or `ipc://path`). Each block or
 *                       transaction the node announces makes the scan poll at once; polling goes on as the safety net
 *                       (ZMQ drops messages). Needs the optional `zeromq` package; without it svc polls and says so.
 * - `ZMQ_POLL_MS`       the safety net's interval while ZMQ is connected (default the larger of 10000 and POLL_MS);
 *                       POLL_MS applies while it is not.
 * - `MIN_FEE_RATE`      sat/vB floor of a sweep's fee rate (default 1; the node's mempool minimum is applied too).
 * - `MAX_FEE_RATE`      sat/vB cap: while `estimatesmartfee` asks for more, sweeps wait (default bitcoin 200,
 *                       litecoin 50).
 * - `FEE_TARGET_BLOCKS` the confirmation target given to `estimatesmartfee` (default 6).
 * - `SWEEP_BATCH`       final deposits that make a batched sweep go out at once (default 50).
 * - `SWEEP_MAX_AGE_SECONDS` a smaller batch goes out once its oldest deposit has waited this long (default 21600, 6 h).
 * - `SWEEP_BUMP_AFTER_SECONDS` a sweep unconfirmed this long is replaced (BIP125) by one with the same inputs and a
 *                       higher fee (default 6 block times: bitcoin 3600, litecoin 900).
 * - `MAX_HEAD_AGE_SECONDS` /readyz reports the node as lagging when its best block is older (default 10 block times,
 *                       at least 60 s; 0 turns it off, e.g. on regtest).
 * Shared: SVC_BITCOIN_RPC_TIMEOUT_MS (default 10000), SVC_BITCOIN_RPC_RETRIES (rounds over every URL, default 3).
 */

export type BitcoinFamilyChain = 'bitcoin' | 'litecoin';

export interface BitcoinChainSettings {
  chain: BitcoinFamilyChain;
  isTest: boolean;
  rpcUrls: string[];
  cookieFile: string | undefined;
  /** The node's network (getblockchaininfo `chain`) required; undefined: `main` live, test/signet/regtest in test mode. */
  network: 'main' | 'test' | 'signet' | 'regtest' | undefined;
  /** Overrides SVC_CONFIRMATIONS / the registry for this chain and mode. */
  confirmations: number | undefined;
  pollIntervalMs: number;
  /** The node's ZMQ endpoints (hashblock and rawtx topics); empty: no ZMQ, polling only. */
  zmqUrls: string[];
  /** The polling interval while ZMQ is connected (its messages wake the scan in between). */
  zmqPollIntervalMs: number;
  /** Base units (sat) per virtual byte. */
  minFeeRate: bigint;
  maxFeeRate: bigint;
  feeTargetBlocks: number;
  sweepBatch: number;
  sweepMaxAgeSeconds: number;
  sweepBumpAfterSeconds: number;
  maxHeadAgeSeconds: number | undefined;
}

export interface BitcoinSettings {
  chains: BitcoinChainSettings[];
  rpcTimeoutMs: number;
  rpcRetries: number;
}

/**
 * How svc spells a chain's addresses in this mode: test mode on a node configured as regtest uses regtest's bech32
 * prefix (a regtest wallet refuses tb1…/tltc1…); every other test network shares testnet's; live mode is mainnet's
 * (also when a regtest node stands in for mainnet in tests: live addresses never change their spelling).
 */
export function addressSpelling(
  settings: Pick<BitcoinChainSettings, 'isTest' | 'network'>,
): 'main' | 'test' | 'regtest' {
  if (!settings.isTest) return 'main';
  return settings.network === 'regtest' ? 'regtest' : 'test';
}

/** The test-mode spelling of every bitcoin-family chain with a test node (what both derivations are told). */
export function testAddressSpelling(
  chains: readonly BitcoinChainSettings[],
): Partial<Record<BitcoinFamilyChain, 'test' | 'regtest'>> {
  const out: Partial<Record<BitcoinFamilyChain, 'test' | 'regtest'>> = {};
  for (const settings of chains) {
    const spelling = addressSpelling(settings);
    if (spelling !== 'main') out[settings.chain] = spelling;
  }
  return out;
}

const DEFAULT_MAX_FEE_RATE: Record<BitcoinFamilyChain, bigint> = { bitcoin: 200n, litecoin: 50n };

function wholeNumber(prefix: string, name: string, text: string, min: number, max: number): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new Error(`${prefix}${name}: must be a whole number from ${min} to ${max}`);
  }
  return Number(text);
}

/**
 * A ZMQ endpoint as Bitcoin Core's -zmqpub* options take it and a subscriber can connect to: tcp://host:port (an IPv6
 * host in brackets) or ipc://path. A wildcard host (`*`) is for binding, the node's side, not for connecting.
 */
function isZmqEndpoint(url: string): boolean {
  if (/^ipc:\/\/\S+$/.test(url)) return true;
  const tcp = /^tcp:\/\/(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(url);
  const port = Number(tcp?.[2]);
  return tcp !== null && port >= 1 && port <= 65_535;
}

function parseZmqUrls(prefix: string, text: string | undefined): string[] {
  if (text === undefined) return [];
  const urls = [
    ...new Set(
      text
        .split(',')
        .map((url) => url.trim())
        .filter((url) => url !== ''),
    ),
  ];
  for (const url of urls) {
    if (!isZmqEndpoint(url)) {
      throw new Error(
        `${prefix}ZMQ_URL: "${url}" is not a tcp://host:port or ipc://path endpoint (the node's -zmqpubhashblock/-zmqpubrawtx address)`,
      );
    }
  }
  return urls;
}

/** Reads every SVC_CHAIN_* / SVC_TEST_CHAIN_* variable of the Bitcoin-family chains; throws an Error naming the variable. */
export function parseBitcoinChainSettings(env: Record<string, string | undefined>): BitcoinChainSettings[] {
  const out: BitcoinChainSettings[] = [];
  for (const info of chains) {
    if (info.family !== 'bitcoin') continue;
    const chain = info.id as BitcoinFamilyChain & ChainId;
    for (const isTest of [false, true]) {
      const node = chainNodeEnv(env, chain, isTest);
      if (node === undefined) continue;
      const { prefix, get, rpcUrls } = node;
      const cookieFile = get('RPC_COOKIE_FILE');
      if (cookieFile === undefined) {
        const bare = rpcUrls.find((url) => !/^https?:\/\/[^/@\s]+:[^/@\s]*@/.test(url));
        if (bare !== undefined) {
          throw new Error(
            `${prefix}RPC_URL: "${redactUrl(bare)}" has no user:password and ${prefix}RPC_COOKIE_FILE is not set`,
          );
        }
      }
      const number = (name: string, fallback: number, min: number, max: number): number => {
        const text = get(name);
        return text === undefined ? fallback : wholeNumber(prefix, name, text, min, max);
      };
      const network = get('NETWORK');
      if (network !== undefined && !['main', 'test', 'signet', 'regtest'].includes(network)) {
        throw new Error(`${prefix}NETWORK: must be main, test, signet or regtest`);
      }
      if (network === 'signet' && chain === 'litecoin')
        throw new Error(`${prefix}NETWORK: Litecoin has no signet`);
      const confirmationsText = get('CONFIRMATIONS');
      const headAgeText = get('MAX_HEAD_AGE_SECONDS');
      const minFeeRate = BigInt(number('MIN_FEE_RATE', 1, 1, 100_000));
      const maxFeeRate = BigInt(number('MAX_FEE_RATE', Number(DEFAULT_MAX_FEE_RATE[chain]), 1, 100_000));
      if (maxFeeRate < minFeeRate) {
        throw new Error(
          `${prefix}MAX_FEE_RATE: must not be below ${prefix}MIN_FEE_RATE (${minFeeRate} sat/vB)`,
        );
      }
      const pollIntervalMs = number('POLL_MS', 1000, 50, 600_000);
      const zmqUrls = parseZmqUrls(prefix, get('ZMQ_URL'));
      if (zmqUrls.length === 0 && get('ZMQ_POLL_MS') !== undefined) {
        throw new Error(`${prefix}ZMQ_POLL_MS: set without ${prefix}ZMQ_URL`);
      }
      out.push({
        chain,
        isTest,
        rpcUrls,
        cookieFile,
        network: network as BitcoinChainSettings['network'],
        confirmations:
          confirmationsText === undefined
            ? undefined
            : wholeNumber(prefix, 'CONFIRMATIONS', confirmationsText, 1, 10_000),
        pollIntervalMs,
        zmqUrls,
        zmqPollIntervalMs: number('ZMQ_POLL_MS', Math.max(10_000, pollIntervalMs), 50, 600_000),
        minFeeRate,
        maxFeeRate,
        feeTargetBlocks: number('FEE_TARGET_BLOCKS', 6, 1, 1008),
        sweepBatch: number('SWEEP_BATCH', 50, 1, 1000),
        sweepMaxAgeSeconds: number('SWEEP_MAX_AGE_SECONDS', 21_600, 0, 30 * 86_400),
        sweepBumpAfterSeconds: number('SWEEP_BUMP_AFTER_SECONDS', 6 * info.blockTimeSeconds, 1, 30 * 86_400),
        maxHeadAgeSeconds:
          headAgeText === undefined
            ? undefined
            : wholeNumber(prefix, 'MAX_HEAD_AGE_SECONDS', headAgeText, 0, 30 * 86_400),
      });
    }
  }
  return out;
}
