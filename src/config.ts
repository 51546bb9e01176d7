import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { generateMnemonic, validateMnemonic } from '@scure/bip39';
import { wordlist } from '@scure/bip39/wordlists/english.js';
import { z } from 'zod';
import { parseDuration, parseDurationList } from './lib/duration.ts';
import {
  type BitcoinSettings,
  type EvmSettings,
  parseBitcoinChainSettings,
  parseEvmChainSettings,
  parseSolanaChainSettings,
  parseTronSettings,
  type SolanaSettings,
  type TronSettings,
} from './modules/chains/families.ts';
import { parseConfirmations } from './modules/chains/settings.ts';
import { parseSourceList, parseTestRates } from './modules/rates/settings.ts';
import { parseNetworkList } from './modules/webhooks/networks.ts';

/**
 * The whole environment of the program, checked once at boot. A bad value stops the program with a message naming
 * the variable. On the embedded default (no DATABASE_URL) missing secrets are generated into the data directory.
 */

const booleanFromEnv = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((value) => value === 'true' || value === '1' || value === 'yes');

const base64Key32 = z
  .string()
  .refine((value) => Buffer.from(value, 'base64').length === 32, 'must be 32 bytes, base64-encoded');

const mnemonic = z
  .string()
  .transform((value) => value.trim().split(/\s+/).join(' '))
  .refine((value) => validateMnemonic(value, wordlist), 'must be a valid BIP-39 English mnemonic');

const positiveInt = z.coerce.number().int().positive();
const nonNegativeInt = z.coerce.number().int().nonnegative();

/** How long rows of a kind are kept: a duration (`24h`, `30d`), or `off` to keep them forever. */
const retention = (byDefault: string, atLeastMs = 0) =>
  z
    .string()
    .default(byDefault)
    .transform((value, context) => {
      if (value.trim().toLowerCase() === 'off') return null;
      try {
        const ms = parseDuration(value);
        if (ms >= Math.max(atLeastMs, 1)) return ms;
        context.addIssue({
          code: 'custom',
          message: `must be at least ${atLeastMs > 0 ? `${atLeastMs / 3_600_000}h` : '1ms'}, or off`,
        });
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
      }
      return z.NEVER;
    });

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_POOL_SIZE: positiveInt.default(20),
  SVC_DATA_DIR: z.string().min(1).default('./data'),
  SVC_PUBLIC_URL: z.url().optional(),
  SVC_MASTER_KEY: base64Key32.optional(),
  SVC_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** BIP-39 seed of live deposit addresses; live payments are refused on chains while it is unset. */
  SVC_MNEMONIC: mnemonic.optional(),
  /** BIP-39 seed of test-mode deposit addresses; generated on the embedded default. */
  SVC_TEST_MNEMONIC: mnemonic.optional(),
  SVC_JWT_TTL_SECONDS: positiveInt.default(12 * 3600),
  /** Test-mode prices in USD per unit, over the defaults: `BTC=60000,ETH=3000,EUR=1.08`. */
  SVC_TEST_RATES: z
    .string()
    .optional()
    .transform((value, context) => {
      try {
        return parseTestRates(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  /** Public price feeds live mode takes the median of. */
  SVC_RATES_SOURCES: z
    .string()
    .default('coinbase,kraken,coingecko')
    .transform((value, context) => {
      try {
        return parseSourceList(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  SVC_RATES_COINBASE_URL: z.url().default('https://api.coinbase.com'),
  SVC_RATES_KRAKEN_URL: z.url().default('https://api.kraken.com'),
  SVC_RATES_COINGECKO_URL: z.url().default('https://api.coingecko.com/api/v3'),
  /** Optional CoinGecko demo API key (the keyless API allows only a few calls a minute). */
  SVC_RATES_COINGECKO_API_KEY: z.string().optional(),
  /** How long a fetched price is reused. */
  SVC_RATES_CACHE_SECONDS: positiveInt.max(3600).default(30),
  /** When every source fails, a cached price up to this old is still used; 0 never. */
  SVC_RATES_MAX_STALE_SECONDS: nonNegativeInt.max(86_400).default(300),
  /** Bound on each request to a price source. */
  SVC_RATES_TIMEOUT_MS: positiveInt.max(60_000).default(5000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Requests per minute per API key (or per dashboard session); 0 turns the limit off. */
  SVC_RATE_LIMIT_PER_KEY: nonNegativeInt.default(1200),
  /** Requests per minute per client IP; 0 turns the limit off. */
  SVC_RATE_LIMIT_PER_IP: nonNegativeInt.default(1200),
  /**
   * Simulations a minute from the public checkout's test banner, per client IP and per payment (each payment can be
   * simulated there once; the rest are refused, but still cost a lookup); 0 turns the limits off.
   */
  SVC_CHECKOUT_SIMULATE_RATE_LIMIT: nonNegativeInt.default(10),
  /** Payments a minute that one client IP may create from the public pages of payment links; 0 turns it off. */
  SVC_PAYMENT_LINK_RATE_LIMIT: nonNegativeInt.default(30),
  SVC_TRUST_PROXY: booleanFromEnv.default(false),
  /**
   * How long a process remembers an authenticated API key; 0 asks the database on every request. Revocation is
   * immediate in the process that revokes; other processes on the same database may accept the key this long.
   */
  SVC_AUTH_CACHE_TTL_MS: nonNegativeInt.max(60_000).default(1000),
  /** Who may create an account: anyone, holders of an operator's invite (`svc invite`), or nobody. */
  SVC_SIGNUP: z.enum(['open', 'invite', 'closed']).optional(),
  /** SMTP server for password-reset mail, e.g. smtp://user:pass@host:587 (unset: the operator prints links). */
  SVC_SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  SVC_SMTP_FROM: z.string().min(3).default('svc <no-reply@localhost>'),
  /** Required confirmations per chain over the defaults of GET /v1/chains: `ethereum=6,bitcoin=1`. */
  SVC_CONFIRMATIONS: z
    .string()
    .default('')
    .transform((value, context) => {
      try {
        return parseConfirmations(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  /** A webhook delivery succeeds only on a 2xx answered within this window. */
  SVC_WEBHOOK_TIMEOUT_MS: positiveInt.max(60_000).default(5000),
  /** Delays before delivery attempts 2 to 5, each with a unit: `250ms,1s,1m,2h`. Jitter of ±10% is added. */
  SVC_WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('1m,10m,100m,1000m')
    .transform((value, context) => {
      try {
        const delays = parseDurationList(value);
        if (delays.length === 4) return delays;
        context.addIssue({ code: 'custom', message: 'must list exactly 4 delays (before attempts 2 to 5)' });
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
      }
      return z.NEVER;
    }),
  /** Lets TEST-mode webhook endpoints target loopback; default true on the embedded database, else false. */
  SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS: booleanFromEnv.optional(),
  /**
   * Networks the operator trusts as webhook targets in both modes (`10.0.5.0/24,127.0.0.1`): a shop on the same
   * host or LAN as a self-hosted svc. Addresses in them pass the SSRF guard; live endpoints still need https.
   */
  SVC_WEBHOOK_TRUSTED_NETWORKS: z
    .string()
    .optional()
    .transform((value, context) => {
      try {
        return parseNetworkList(value);
      } catch (error) {
        context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
  /** Derive deposit addresses on a worker thread, beside request handling (default true). */
  SVC_DERIVATION_THREAD: booleanFromEnv.optional(),
  /** Deliveries one worker process sends at once. */
  SVC_WEBHOOK_CONCURRENCY: positiveInt.max(10_000).default(100),
  /** Deliveries one worker process sends at once to any single endpoint. */
  SVC_WEBHOOK_ENDPOINT_CONCURRENCY: positiveInt.max(1000).default(10),
  /** Deliveries one worker process sends at once (or holds claimed) for any single merchant, all its endpoints. */
  SVC_WEBHOOK_MERCHANT_CONCURRENCY: positiveInt.max(10_000).default(20),
  /** Failed attempts in a row after which an endpoint's breaker trips (one probe at a time, growing back-off). */
  SVC_WEBHOOK_BREAKER_FAILURES: positiveInt.max(1_000_000).default(10),
  /** Webhook endpoints a merchant may have in each mode (deleted ones do not count). */
  SVC_WEBHOOK_MAX_ENDPOINTS: positiveInt.max(10_000).default(16),
  /**
   * The instance's operators besides the first account: emails, or `@domain` for a whole domain. Only operators'
   * TEST endpoints may reach loopback (SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS).
   */
  SVC_OPERATOR_EMAILS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((entry) => entry.trim().toLowerCase())
        .filter((entry) => entry !== ''),
    ),
  /** Live event streams (GET /v1/events/stream) one merchant may hold open in one process, both modes together. */
  SVC_EVENT_STREAM_MAX_PER_MERCHANT: positiveInt.max(10_000).default(5),
  /** Milliseconds between heartbeats (SSE comments) on an idle event stream. */
  SVC_EVENT_STREAM_HEARTBEAT_MS: positiveInt.min(100).max(300_000).default(15_000),
  /** Bearer token that opens GET /metrics on the API's port (unset: /metrics is not served there). */
  SVC_METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** A port of its own for GET /metrics, without a token (unset: no such listener). */
  SVC_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Where that listener binds (default loopback: expose it to the scraper only). */
  SVC_METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** EVM nodes (per chain SVC_CHAIN_<NAME>_RPC_URL etc., see modules/chains/evm/settings.ts): blocks per ranged eth_getLogs. */
  SVC_EVM_LOGS_BLOCK_RANGE: positiveInt.max(100_000).default(1000),
  /** Addresses per eth_getLogs topic list; past it the token Transfer logs of a block are filtered in the program. */
  SVC_EVM_LOGS_ADDRESS_LIMIT: positiveInt.max(100_000).default(1000),
  SVC_EVM_RPC_TIMEOUT_MS: positiveInt.max(120_000).default(10_000),
  /** Rounds over every RPC URL of a chain (with backoff) before a request counts as failed. */
  SVC_EVM_RPC_RETRIES: positiveInt.max(20).default(3),
  /** /readyz reports an EVM node as lagging when its head block is older; 0 turns it off (default 10 block times, >= 60 s). */
  SVC_EVM_MAX_HEAD_AGE_SECONDS: nonNegativeInt.optional(),
  /** Without trace APIs: blocks between balance reconciliations of watched addresses. */
  SVC_EVM_RECONCILE_EVERY_BLOCKS: positiveInt.max(100_000).default(20),
  /** Bitcoin-family nodes (per chain SVC_CHAIN_<NAME>_RPC_URL etc., see modules/chains/bitcoin/settings.ts). */
  SVC_BITCOIN_RPC_TIMEOUT_MS: positiveInt.max(120_000).default(10_000),
  /** Rounds over every RPC URL of a Bitcoin-family chain (with backoff) before a request counts as failed. */
  SVC_BITCOIN_RPC_RETRIES: positiveInt.max(20).default(3),
  /** TEST MODE: milliseconds between blocks of the simulated chains. */
  SVC_SIM_BLOCK_MS: positiveInt.min(10).max(600_000).default(2000),
  /** TEST MODE: confirmations the simulated chains require; default the chain's own, at most 12. */
  SVC_SIM_CONFIRMATIONS: positiveInt.max(10_000).optional(),
  /** Days after its window ends that a payment's address is still watched for late funds. */
  SVC_LATE_WATCH_DAYS: nonNegativeInt.max(365).default(7),
  /**
   * Retention: idempotency keys (never below the 24 h in which a key is replayed), the stored response bodies of
   * webhook attempts, and events with their deliveries and attempts. Payments, deposits and forwards are never
   * deleted. `off` keeps a kind forever.
   */
  SVC_RETENTION_IDEMPOTENCY: retention('24h', 24 * 3_600_000),
  SVC_RETENTION_ATTEMPT_BODIES: retention('30d'),
  SVC_RETENTION_EVENTS: retention('90d'),
});

/**
 * The configuration as the program reads it, mapped from the environment in the same zod pipeline that checks it, so
 * that its type is inferred from the schema (Config below) instead of kept by hand beside it. What the environment's
 * schema cannot say alone is added by loadConfig: secrets generated into the data directory, the EVM chains' per-chain
 * variables, notes for the boot log.
 */
const settingsSchema = envSchema.transform((values) => ({
  env: values.NODE_ENV,
  port: values.PORT,
  host: values.HOST,
  databaseUrl: values.DATABASE_URL,
  databasePoolSize: values.DATABASE_POOL_SIZE,
  dataDir: resolve(values.SVC_DATA_DIR),
  publicUrl: (values.SVC_PUBLIC_URL ?? `http://${values.HOST}:${values.PORT}`).replace(/\/+$/, ''),
  jwtTtlSeconds: values.SVC_JWT_TTL_SECONDS,
  liveMnemonic: values.SVC_MNEMONIC,
  /** Pricing: test rates, live sources and their cache. */
  rates: {
    testRates: values.SVC_TEST_RATES,
    sources: values.SVC_RATES_SOURCES,
    coinbaseUrl: values.SVC_RATES_COINBASE_URL,
    krakenUrl: values.SVC_RATES_KRAKEN_URL,
    coingeckoUrl: values.SVC_RATES_COINGECKO_URL,
    coingeckoApiKey: values.SVC_RATES_COINGECKO_API_KEY,
    cacheTtlMs: values.SVC_RATES_CACHE_SECONDS * 1000,
    maxStaleMs: values.SVC_RATES_MAX_STALE_SECONDS * 1000,
    timeoutMs: values.SVC_RATES_TIMEOUT_MS,
  },
  logLevel: values.LOG_LEVEL,
  rateLimitPerKey: values.SVC_RATE_LIMIT_PER_KEY,
  rateLimitPerIp: values.SVC_RATE_LIMIT_PER_IP,
  checkoutSimulateRateLimit: values.SVC_CHECKOUT_SIMULATE_RATE_LIMIT,
  paymentLinkRateLimit: values.SVC_PAYMENT_LINK_RATE_LIMIT,
  trustProxy: values.SVC_TRUST_PROXY,
  /** SVC_AUTH_CACHE_TTL_MS: how long an authenticated API key is remembered in this process. */
  authCacheTtlMs: values.SVC_AUTH_CACHE_TTL_MS,
  /** SVC_SIGNUP; open by default only on the embedded engine (one person's machine), else closed. */
  signup: values.SVC_SIGNUP ?? (values.DATABASE_URL === undefined ? 'open' : 'closed'),
  smtpUrl: values.SVC_SMTP_URL,
  smtpFrom: values.SVC_SMTP_FROM,
  /** Confirmation overrides per chain (SVC_CONFIRMATIONS); see requiredConfirmations in modules/chains/registry.ts. */
  confirmations: values.SVC_CONFIRMATIONS,
  webhookTimeoutMs: values.SVC_WEBHOOK_TIMEOUT_MS,
  /** Milliseconds before attempts 2 to 5 of a delivery. */
  webhookRetryScheduleMs: values.SVC_WEBHOOK_RETRY_SCHEDULE,
  /**
   * Whether TEST-mode endpoints of the instance's operators may target loopback addresses (never live ones, never
   * other merchants' endpoints, never other private ranges).
   */
  allowPrivateWebhookTargets: values.SVC_ALLOW_PRIVATE_WEBHOOK_TARGETS ?? values.DATABASE_URL === undefined,
  /** CIDR ranges webhook endpoints of either mode may reach whatever their kind (SVC_WEBHOOK_TRUSTED_NETWORKS). */
  webhookTrustedNetworks: values.SVC_WEBHOOK_TRUSTED_NETWORKS,
  /** Deposit addresses derived on a worker thread (SVC_DERIVATION_THREAD). */
  derivationThread: values.SVC_DERIVATION_THREAD ?? true,
  webhookConcurrency: values.SVC_WEBHOOK_CONCURRENCY,
  webhookEndpointConcurrency: values.SVC_WEBHOOK_ENDPOINT_CONCURRENCY,
  webhookMerchantConcurrency: values.SVC_WEBHOOK_MERCHANT_CONCURRENCY,
  webhookMaxEndpoints: values.SVC_WEBHOOK_MAX_ENDPOINTS,
  webhookBreakerFailures: values.SVC_WEBHOOK_BREAKER_FAILURES,
  /** The live event stream: open streams per merchant per process, and the heartbeat of an idle one. */
  eventStream: {
    maxPerMerchant: values.SVC_EVENT_STREAM_MAX_PER_MERCHANT,
    heartbeatMs: values.SVC_EVENT_STREAM_HEARTBEAT_MS,
  },
  /** Prometheus metrics: on the API's port behind a bearer token, and/or on a listener of their own. */
  metrics: {
    token: values.SVC_METRICS_TOKEN,
    port: values.SVC_METRICS_PORT,
    host: values.SVC_METRICS_HOST,
  },
  /** Operators by email or `@domain`, lower case (SVC_OPERATOR_EMAILS); the first account is one regardless. */
  operatorEmails: values.SVC_OPERATOR_EMAILS,
  /** Test mode: block interval of the simulated chains (SVC_SIM_BLOCK_MS). */
  simBlockMs: values.SVC_SIM_BLOCK_MS,
  /** Test mode: confirmations on the simulated chains (SVC_SIM_CONFIRMATIONS); undefined = chain's, capped at 12. */
  simConfirmations: values.SVC_SIM_CONFIRMATIONS,
  /** Days after a payment's window that its address is still watched (SVC_LATE_WATCH_DAYS). */
  lateWatchDays: values.SVC_LATE_WATCH_DAYS,
  /** How long each kind of row is kept (SVC_RETENTION_*), in ms; null keeps it forever. */
  retentionMs: {
    idempotencyKeys: values.SVC_RETENTION_IDEMPOTENCY,
    attemptBodies: values.SVC_RETENTION_ATTEMPT_BODIES,
    events: values.SVC_RETENTION_EVENTS,
  },
  /** EVM node-access limits shared by every chain (the chains themselves: SVC_CHAIN_<NAME>_*). */
  evmNodes: {
    logsBlockRange: values.SVC_EVM_LOGS_BLOCK_RANGE,
    logsAddressLimit: values.SVC_EVM_LOGS_ADDRESS_LIMIT,
    rpcTimeoutMs: values.SVC_EVM_RPC_TIMEOUT_MS,
    rpcRetries: values.SVC_EVM_RPC_RETRIES,
    maxHeadAgeSeconds: values.SVC_EVM_MAX_HEAD_AGE_SECONDS,
    reconcileEveryBlocks: values.SVC_EVM_RECONCILE_EVERY_BLOCKS,
  },
  /** Bitcoin-family node-access limits shared by both chains. */
  bitcoinNodes: {
    rpcTimeoutMs: values.SVC_BITCOIN_RPC_TIMEOUT_MS,
    rpcRetries: values.SVC_BITCOIN_RPC_RETRIES,
  },
  /** Read by loadConfig only: generated into the data directory when unset on the embedded engine. */
  secrets: {
    masterKey: values.SVC_MASTER_KEY,
    jwtSecret: values.SVC_JWT_SECRET,
    testMnemonic: values.SVC_TEST_MNEMONIC,
  },
}));

export type Config = Omit<z.output<typeof settingsSchema>, 'secrets' | 'evmNodes' | 'bitcoinNodes'> & {
  masterKey: Buffer;
  jwtSecret: Uint8Array;
  testMnemonic: string;
  /** EVM chains with nodes (live, and test mode on real test networks), with the node-access limits. */
  evm: EvmSettings;
  /** Bitcoin-family chains with nodes (live, and test mode on testnet/signet/regtest), with the node-access limits. */
  bitcoin: BitcoinSettings;
  /** Solana with nodes (live, and test mode on devnet or a local validator): see modules/chains/solana/settings.ts. */
  solana: SolanaSettings;
  /** Tron nodes (live, and test mode on Nile/Shasta) with the HTTP limits (SVC_CHAIN_TRON_*, SVC_TRON_*: tron/settings.ts). */
  tron: TronSettings;
  /** Notes for the boot log, e.g. which secrets were generated; never the secrets themselves. */
  notices: string[];
};

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Secrets the embedded default creates on first start, with how to make each. */
const generatedSecrets = {
  SVC_MASTER_KEY: () => randomBytes(32).toString('base64'),
  SVC_JWT_SECRET: () => randomBytes(48).toString('base64url'),
  SVC_TEST_MNEMONIC: () => generateMnemonic(wordlist, 256),
} as const;

type GeneratedSecretName = keyof typeof generatedSecrets;

/** What secrets.json may hold: the generated secrets, each valid as its environment variable would have to be. */
const storedSecretsSchema = z.object({
  SVC_MASTER_KEY: base64Key32.optional(),
  SVC_JWT_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  SVC_TEST_MNEMONIC: mnemonic.optional(),
});

function loadOrCreateEmbeddedSecrets(
  dataDir: string,
  env: Record<string, string | undefined>,
  notices: string[],
) {
  const file = join(dataDir, 'secrets.json');
  mkdirSync(dataDir, { recursive: true });
  let stored: Record<string, string> = {};
  if (existsSync(file)) {
    // The file is checked like the environment: a damaged or hand-edited secret stops the program here, by name.
    let content: unknown;
    try {
      content = JSON.parse(readFileSync(file, 'utf8'));
    } catch (error) {
      throw new ConfigError([
        `${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      ]);
    }
    const checked = storedSecretsSchema.safeParse(content);
    if (!checked.success) {
      throw new ConfigError(
        checked.error.issues.map((issue) => `${file}: ${issue.path.join('.') || '(file)'}: ${issue.message}`),
      );
    }
    stored = Object.fromEntries(
      Object.entries(checked.data).filter((entry): entry is [string, string] => entry[1] !== undefined),
    );
  }
  const created: string[] = [];
  for (const name of Object.keys(generatedSecrets) as GeneratedSecretName[]) {
    if (env[name] === undefined && stored[name] === undefined) {
      stored[name] = generatedSecrets[name]();
      created.push(name);
    }
  }
  if (created.length > 0) {
    writeFileSync(file, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
    notices.push(
      `Generated ${created.join(', ')} into ${file} (mode 0600); keep this file safe and back it up.`,
    );
  }
  return stored;
}

export function loadConfig(rawEnv: Record<string, string | undefined> = process.env): Config {
  // Empty strings mean "not set", as in most .env tooling.
  const env = Object.fromEntries(
    Object.entries(rawEnv).filter(([, value]) => value !== undefined && value !== ''),
  );
  const parsed = settingsSchema.safeParse(env);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`),
    );
  }
  const { secrets, evmNodes, bitcoinNodes, ...settings } = parsed.data;
  let evmChains: EvmSettings['chains'];
  let bitcoinChains: BitcoinSettings['chains'];
  let solanaChains: SolanaSettings['chains'];
  let tron: TronSettings;
  try {
    evmChains = parseEvmChainSettings(env);
    bitcoinChains = parseBitcoinChainSettings(env);
    solanaChains = parseSolanaChainSettings(env);
    tron = parseTronSettings(env);
  } catch (error) {
    throw new ConfigError([error instanceof Error ? error.message : String(error)]);
  }
  const notices: string[] = [];
  let { masterKey, jwtSecret, testMnemonic } = secrets;

  if (settings.databaseUrl === undefined) {
    const stored = loadOrCreateEmbeddedSecrets(settings.dataDir, env, notices);
    masterKey ??= stored.SVC_MASTER_KEY;
    jwtSecret ??= stored.SVC_JWT_SECRET;
    testMnemonic ??= stored.SVC_TEST_MNEMONIC;
  } else {
    const missing = [
      masterKey === undefined
        ? 'SVC_MASTER_KEY: required when DATABASE_URL is set (32 bytes, base64)'
        : undefined,
      jwtSecret === undefined
        ? 'SVC_JWT_SECRET: required when DATABASE_URL is set (at least 32 characters)'
        : undefined,
      testMnemonic === undefined
        ? 'SVC_TEST_MNEMONIC: required when DATABASE_URL is set (BIP-39 words of the test-mode deposit addresses)'
        : undefined,
    ].filter((problem): problem is string => problem !== undefined);
    if (missing.length > 0) throw new ConfigError(missing);
  }
  if (masterKey === undefined || jwtSecret === undefined || testMnemonic === undefined) {
    throw new ConfigError([
      'SVC_MASTER_KEY/SVC_JWT_SECRET/SVC_TEST_MNEMONIC: could not be loaded or generated',
    ]);
  }

  return {
    ...settings,
    masterKey: Buffer.from(masterKey, 'base64'),
    jwtSecret: new TextEncoder().encode(jwtSecret),
    testMnemonic,
    evm: { chains: evmChains, ...evmNodes },
    bitcoin: { chains: bitcoinChains, ...bitcoinNodes },
    solana: { chains: solanaChains },
    tron,
    notices,
  };
}
