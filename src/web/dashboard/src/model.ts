/**
 * What the dashboard shows, read from the API's JSON. Readers are lenient: a missing field becomes null instead of a
 * crash, and where a contract left a field name open the reader accepts the likely spellings. Amounts stay the
 * strings (or the number) the API sent: nothing here does arithmetic on money.
 */

export type Json = Record<string, unknown>;

export function record(value: unknown): Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {};
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** The first of `names` that holds a string (or a number, turned into its decimal text). */
export function text(source: Json, ...names: string[]): string | null {
  for (const name of names) {
    const value = source[name];
    if (typeof value === 'string') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return String(value);
    if (typeof value === 'bigint') return value.toString();
  }
  return null;
}

export function integer(source: Json, ...names: string[]): number | null {
  for (const name of names) {
    const value = source[name];
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    if (typeof value === 'string' && /^-?\d+$/.test(value)) return Number.parseInt(value, 10);
  }
  return null;
}

function flag(source: Json, ...names: string[]): boolean | null {
  for (const name of names) {
    const value = source[name];
    if (typeof value === 'boolean') return value;
  }
  return null;
}

/** `{data: [...]}` or a bare array. */
export function dataOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : list(record(body).data);
}

export interface Merchant {
  id: string;
  email: string;
  createdAt: string | null;
}

export interface Session {
  token: string;
  expiresAt: string | null;
  merchant: Merchant;
}

export function readMerchant(value: unknown): Merchant {
  const source = record(value);
  return {
    id: text(source, 'id') ?? '',
    email: text(source, 'email') ?? '',
    createdAt: text(source, 'created_at'),
  };
}

export function readSession(value: unknown): Session {
  const source = record(value);
  return {
    token: text(source, 'token') ?? '',
    expiresAt: text(source, 'expires_at'),
    merchant: readMerchant(source.merchant),
  };
}

interface RedactedKey {
  prefix: string;
  last4: string;
}

export interface Keypair {
  id: string;
  test: RedactedKey;
  live: RedactedKey;
  createdAt: string | null;
  revoked: boolean;
  revokedAt: string | null;
}

export interface CreatedKeypair {
  id: string;
  testKey: string;
  liveKey: string;
}

function readRedacted(value: unknown): RedactedKey {
  const source = record(value);
  return { prefix: text(source, 'display_prefix', 'prefix') ?? '', last4: text(source, 'last4') ?? '' };
}

export function readKeypair(value: unknown): Keypair {
  const source = record(value);
  return {
    id: text(source, 'keypair_id', 'id') ?? '',
    test: readRedacted(source.test),
    live: readRedacted(source.live),
    createdAt: text(source, 'created_at'),
    revoked: flag(source, 'revoked') ?? false,
    revokedAt: text(source, 'revoked_at'),
  };
}

export function readCreatedKeypair(value: unknown): CreatedKeypair {
  const source = record(value);
  return {
    id: text(source, 'keypair_id', 'id') ?? '',
    testKey: text(record(source.test), 'full_key') ?? '',
    liveKey: text(record(source.live), 'full_key') ?? '',
  };
}

export interface Endpoint {
  id: string;
  url: string;
  isTest: boolean;
  enabled: boolean;
  description: string | null;
  /** Failed attempts in a row. */
  consecutiveFailures: number;
  /** Set while the endpoint's circuit breaker is open (it keeps failing; one probe at a time is sent). */
  trippedAt: string | null;
  createdAt: string | null;
  updatedAt: string | null;
}

export function readEndpoint(value: unknown): Endpoint {
  const source = record(value);
  return {
    id: text(source, 'id') ?? '',
    url: text(source, 'url') ?? '',
    isTest: flag(source, 'is_test') ?? true,
    enabled: flag(source, 'enabled') ?? true,
    description: text(source, 'description'),
    consecutiveFailures: integer(source, 'consecutive_failures') ?? 0,
    trippedAt: text(source, 'tripped_at'),
    createdAt: text(source, 'created_at'),
    updatedAt: text(source, 'updated_at'),
  };
}

interface Attempt {
  number: number;
  at: string | null;
  statusCode: number | null;
  durationMs: number | null;
  response: string | null;
  error: string | null;
  succeeded: boolean | null;
}

export interface Delivery {
  id: string;
  eventId: string | null;
  eventType: string | null;
  paymentId: string | null;
  endpointId: string | null;
  endpointUrl: string | null;
  status: string | null;
  createdAt: string | null;
  nextAttemptAt: string | null;
  attempts: Attempt[];
}

function readAttempt(value: unknown, index: number): Attempt {
  const source = record(value);
  const statusCode = integer(source, 'status_code', 'response_status', 'http_status', 'status');
  return {
    number: integer(source, 'attempt', 'number', 'attempt_number') ?? index + 1,
    at: text(source, 'attempted_at', 'started_at', 'created_at', 'at', 'sent_at'),
    statusCode,
    durationMs: integer(source, 'duration_ms', 'latency_ms'),
    response: text(source, 'response_body', 'response', 'body', 'response_excerpt'),
    error: text(source, 'error', 'error_message', 'failure_reason'),
    succeeded:
      flag(source, 'succeeded', 'success', 'ok') ??
      (statusCode === null ? null : statusCode >= 200 && statusCode < 300),
  };
}

export function readDelivery(value: unknown): Delivery {
  const source = record(value);
  const event = record(source.event);
  const endpoint = record(source.endpoint);
  return {
    id: text(source, 'id', 'delivery_id') ?? '',
    eventId: text(source, 'event_id') ?? text(event, 'id'),
    eventType:
      text(source, 'event_type', 'type') ??
      text(event, 'type', 'event') ??
      (typeof source.event === 'string' ? source.event : null),
    paymentId: text(source, 'payment_id') ?? text(event, 'payment_id'),
    endpointId: text(source, 'endpoint_id', 'webhook_endpoint_id', 'webhook_id') ?? text(endpoint, 'id'),
    endpointUrl: text(source, 'endpoint_url', 'url') ?? text(endpoint, 'url'),
    status: text(source, 'status', 'state'),
    createdAt: text(source, 'created_at'),
    nextAttemptAt: text(source, 'next_attempt_at', 'next_retry_at'),
    attempts: list(source.attempts).map(readAttempt),
  };
}

export interface PaymentEvent {
  id: string;
  type: string;
  paymentId: string | null;
  status: string | null;
  createdAt: string | null;
  isTest: boolean | null;
  deliveries: Delivery[] | null;
}

export function readEvent(value: unknown): PaymentEvent {
  const source = record(value);
  const payload = record(source.payload ?? source.data);
  return {
    id: text(source, 'id', 'event_id') ?? '',
    type: text(source, 'type', 'event') ?? text(payload, 'event') ?? 'event',
    paymentId: text(source, 'payment_id') ?? text(payload, 'payment_id'),
    status: text(source, 'status') ?? text(payload, 'status'),
    createdAt: text(source, 'created_at', 'timestamp') ?? text(payload, 'timestamp'),
    isTest: flag(source, 'is_test') ?? flag(payload, 'is_test'),
    deliveries: Array.isArray(source.deliveries) ? source.deliveries.map(readDelivery) : null,
  };
}

interface Deposit {
  txHash: string | null;
  explorerUrl: string | null;
  /** A test-mode deposit on the built-in simulated chain: on no public explorer. */
  simulated: boolean;
  /** False for a deposit in another asset, which does not count towards the amount received. */
  counted: boolean;
  amountNative: string | null;
  blockNumber: string | null;
  confirmations: number | null;
  requiredConfirmations: number | null;
  state: string | null;
  seenAt: string | null;
  /** When the forwarder last left it unswept: worth less than the network fee to spend it. */
  leftAsDustAt: string | null;
}

function readDeposit(value: unknown): Deposit {
  const source = record(value);
  const finalFlag = flag(source, 'final', 'is_final');
  const reverted = flag(source, 'reverted', 'is_reverted');
  return {
    txHash: text(source, 'tx_hash', 'hash', 'txid'),
    explorerUrl: text(source, 'explorer_url'),
    simulated: flag(source, 'simulated') ?? false,
    counted: flag(source, 'counted') ?? true,
    amountNative: text(source, 'amount_native', 'amount'),
    blockNumber: text(source, 'block_number', 'block_height', 'block'),
    confirmations: integer(source, 'confirmations'),
    requiredConfirmations: integer(source, 'confirmations_required', 'required_confirmations'),
    state:
      text(source, 'status', 'state') ??
      (reverted === true
        ? 'reverted'
        : finalFlag === true
          ? 'final'
          : finalFlag === false
            ? 'confirming'
            : null),
    seenAt: text(source, 'seen_at', 'detected_at', 'created_at'),
    leftAsDustAt: text(source, 'left_as_dust_at'),
  };
}

export interface Payment {
  id: string;
  status: string;
  amount: string | null;
  currency: string | null;
  chain: string | null;
  asset: string | null;
  address: string | null;
  expectedNative: string | null;
  receivedNative: string | null;
  remainingNative: string | null;
  rate: string | null;
  paymentUri: string | null;
  txHash: string | null;
  isTest: boolean;
  createdAt: string | null;
  expiresAt: string | null;
  checkoutUrl: string | null;
  orderId: string | null;
  /** The payer's email given at creation (their receipt and refund links go there). */
  customerEmail: string | null;
  redirectUrl: string | null;
  forwardedAt: string | null;
  forwardTxHash: string | null;
  forwardFee: string | null;
  confirmations: number | null;
  requiredConfirmations: number | null;
  metadata: Json | null;
  deposits: Deposit[];
  events: PaymentEvent[];
}

export function readPayment(value: unknown): Payment {
  const source = record(value);
  const metadata = source.metadata;
  return {
    id: text(source, 'payment_id', 'id') ?? '',
    status: text(source, 'status') ?? 'unknown',
    amount: text(source, 'amount'),
    currency: text(source, 'currency'),
    chain: text(source, 'chain'),
    asset: text(source, 'asset'),
    address: text(source, 'address', 'deposit_address'),
    expectedNative: text(source, 'expected_amount_native'),
    receivedNative: text(source, 'received_amount_native'),
    remainingNative: text(source, 'remaining_amount_native'),
    rate: text(record(source.rate), 'value') ?? text(source, 'rate'),
    paymentUri: text(source, 'payment_uri'),
    txHash: text(source, 'tx_hash'),
    isTest: flag(source, 'is_test') ?? true,
    createdAt: text(source, 'created_at'),
    expiresAt: text(source, 'expires_at'),
    checkoutUrl: text(source, 'checkout_url'),
    orderId: text(source, 'order_id'),
    customerEmail: text(source, 'customer_email'),
    redirectUrl: text(source, 'redirect_url'),
    forwardedAt: text(source, 'forwarded_at'),
    forwardTxHash: text(source, 'forward_tx_hash', 'forwarding_tx_hash'),
    forwardFee: text(source, 'forward_fee_native', 'forward_fee', 'forwarding_fee_native', 'fee_native'),
    confirmations: integer(record(source.confirmations), 'seen') ?? integer(source, 'confirmations'),
    requiredConfirmations:
      integer(record(source.confirmations), 'required') ??
      integer(source, 'confirmations_required', 'required_confirmations'),
    metadata:
      typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata) ? record(metadata) : null,
    deposits: list(source.deposits).map(readDeposit),
    events: list(source.events).map(readEvent),
  };
}

export interface Page<T> {
  items: T[];
  /** Query parameters that fetch the next page, or null on the last one. */
  next: Record<string, string> | null;
}

/** Reads a list page in either cursor style: `next_cursor`, or Stripe's `has_more` with `starting_after`. */
export function readPage<T>(body: unknown, read: (value: unknown) => T, idOf: (item: T) => string): Page<T> {
  const source = record(body);
  const items = dataOf(body).map(read);
  if (flag(source, 'has_more') === false) return { items, next: null };
  const cursor = text(source, 'next_cursor');
  if (cursor !== null) return { items, next: { starting_after: cursor } };
  const last = items.at(-1);
  if (flag(source, 'has_more') === true && last !== undefined) {
    return { items, next: { starting_after: idOf(last) } };
  }
  return { items, next: null };
}

interface NetworkLinks {
  name: string | null;
  /** Explorer link templates with `{tx}` and `{address}` where the value goes. */
  txUrl: string | null;
  addressUrl: string | null;
}

export interface ChainInfo {
  id: string;
  name: string;
  assets: string[];
  nativeAsset: string | null;
  live?: NetworkLinks;
  test?: NetworkLinks;
}

function readNetwork(value: unknown): NetworkLinks | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const source = record(value);
  return {
    name: text(source, 'name'),
    txUrl: text(source, 'explorer_tx_url'),
    addressUrl: text(source, 'explorer_address_url'),
  };
}

/** What issue 4 lists; used until GET /v1/chains answers. */
export const fallbackChains: ChainInfo[] = [
  { id: 'ethereum', name: 'Ethereum', assets: ['ETH', 'USDC', 'USDT'], nativeAsset: 'ETH' },
  { id: 'base', name: 'Base', assets: ['ETH', 'USDC'], nativeAsset: 'ETH' },
  { id: 'polygon', name: 'Polygon', assets: ['POL', 'USDC', 'USDT'], nativeAsset: 'POL' },
  { id: 'arbitrum', name: 'Arbitrum', assets: ['ETH', 'USDC', 'USDT'], nativeAsset: 'ETH' },
  { id: 'optimism', name: 'Optimism', assets: ['ETH', 'USDC'], nativeAsset: 'ETH' },
  { id: 'bsc', name: 'BNB Smart Chain', assets: ['BNB', 'USDC', 'USDT'], nativeAsset: 'BNB' },
  { id: 'bitcoin', name: 'Bitcoin', assets: ['BTC'], nativeAsset: 'BTC' },
  { id: 'litecoin', name: 'Litecoin', assets: ['LTC'], nativeAsset: 'LTC' },
  { id: 'solana', name: 'Solana', assets: ['SOL', 'USDC', 'USDT'], nativeAsset: 'SOL' },
  { id: 'tron', name: 'Tron', assets: ['TRX', 'USDT'], nativeAsset: 'TRX' },
];

function assetCode(value: unknown): string | null {
  if (typeof value === 'string') return value;
  const source = record(value);
  return text(source, 'code', 'symbol', 'asset', 'id');
}

export function readChains(body: unknown): ChainInfo[] {
  const chains = dataOf(body)
    .map((value): ChainInfo | null => {
      const source = record(value);
      const id = text(source, 'id', 'chain');
      if (id === null) return null;
      const rawAssets = list(source.assets ?? source.tokens);
      const native = source.native ?? source.native_asset ?? source.native_coin;
      const nativeAsset =
        assetCode(native) ??
        assetCode(rawAssets.find((asset) => flag(record(asset), 'is_native') === true)) ??
        text(source, 'native_symbol');
      const tokens = rawAssets.map(assetCode).filter((code): code is string => code !== null);
      const assets =
        nativeAsset !== null && !tokens.includes(nativeAsset) ? [nativeAsset, ...tokens] : tokens;
      const live = readNetwork(source.mainnet);
      const test = readNetwork(source.testnet);
      return {
        id,
        name: text(source, 'name', 'display_name', 'label') ?? titleCase(id),
        assets,
        nativeAsset,
        ...(live === undefined ? {} : { live }),
        ...(test === undefined ? {} : { test }),
      };
    })
    .filter((chain): chain is ChainInfo => chain !== null);
  return chains.length > 0 ? chains : fallbackChains;
}

export function titleCase(value: string): string {
  return value.replace(
    /(^|[\s_-])(\w)/g,
    (_match, gap: string, letter: string) => `${gap}${letter.toUpperCase()}`,
  );
}

export function chainName(chain: string | null): string {
  if (chain === null) return '—';
  return fallbackChains.find((known) => known.id === chain)?.name ?? titleCase(chain);
}

let chainsOnce: Promise<ChainInfo[]> | null = null;

/**
 * The chains from GET /v1/chains, fetched once per page load; the built-in list when the API cannot say.
 * `fetchChains` is the API call, passed in so this file stays free of network code.
 */
export function loadChains(fetchChains: () => Promise<unknown>): Promise<ChainInfo[]> {
  chainsOnce ??= fetchChains().then(readChains, () => {
    chainsOnce = null;
    return fallbackChains;
  });
  return chainsOnce;
}

/** A Tron resource wallet's stake (Stake 2.0), as GET /v1/operator/fee-wallets gives it. */
export interface ResourceStake {
  /** TRX staked for energy, lent out included; TRX of it lent now (exact decimal strings). */
  energyStaked: string | null;
  energyLent: string | null;
  bandwidthStaked: string | null;
  bandwidthLent: string | null;
  /** Energy units (integer strings) the stake not lent gives now, and what one USDT sweep borrows. */
  energyAvailable: string | null;
  energyPerSweep: string | null;
  sweepsCovered: number | null;
  /** Too little for the next sweep: USDT sweeps burn TRX until more is staked. */
  short: boolean;
}

export interface FeeWallet {
  chain: string;
  isTest: boolean;
  role: string;
  address: string;
  asset: string;
  balance: string | null;
  lowBelow: string | null;
  low: boolean;
  explorerUrl: string;
  /** Tron's resource wallet only; null when the node could not say. */
  stake: ResourceStake | null;
  /** A refund wallet's token balances (empty for other wallets); a balance is null when the node could not say. */
  tokens: Array<{ asset: string; balance: string | null }>;
}

function readStake(value: unknown): ResourceStake | null {
  if (typeof value !== 'object' || value === null) return null;
  const source = record(value);
  return {
    energyStaked: text(source, 'energy_staked_native'),
    energyLent: text(source, 'energy_lent_native'),
    bandwidthStaked: text(source, 'bandwidth_staked_native'),
    bandwidthLent: text(source, 'bandwidth_lent_native'),
    energyAvailable: text(source, 'energy_available'),
    energyPerSweep: text(source, 'energy_per_sweep'),
    sweepsCovered: integer(source, 'sweeps_covered'),
    short: flag(source, 'short') === true,
  };
}

export function readFeeWallets(body: unknown): FeeWallet[] {
  return dataOf(body).map((value) => {
    const source = record(value);
    return {
      chain: text(source, 'chain') ?? '',
      isTest: flag(source, 'is_test') === true,
      role: text(source, 'role') ?? '',
      address: text(source, 'address') ?? '',
      asset: text(source, 'asset') ?? '',
      balance: text(source, 'balance_native'),
      lowBelow: text(source, 'low_below_native'),
      low: flag(source, 'low') === true,
      explorerUrl: text(source, 'explorer_address_url') ?? '',
      stake: readStake(source.stake),
      tokens: Array.isArray(source.token_balances)
        ? source.token_balances.map((token: unknown) => {
            const entry = record(token);
            return { asset: text(entry, 'asset') ?? '', balance: text(entry, 'balance_native') };
          })
        : [],
    };
  });
}

/** What one chain's sweeps in one mode cost in a month (GET /v1/operator/sweep-costs). */
export interface SweepCost {
  chain: string;
  isTest: boolean;
  asset: string;
  sweeps: number;
  /** Network fees paid (on Tron: TRX burnt), exact decimal string. */
  fee: string | null;
  /** Energy units used, and of them lent by staked TRX (integer strings); null on chains without energy. */
  energyUsed: string | null;
  energyDelegated: string | null;
}

export function readSweepCosts(body: unknown): { month: string | null; costs: SweepCost[] } {
  return {
    month: text(record(body), 'month'),
    costs: dataOf(body).map((value) => {
      const source = record(value);
      return {
        chain: text(source, 'chain') ?? '',
        isTest: flag(source, 'is_test') === true,
        asset: text(source, 'asset') ?? '',
        sweeps: integer(source, 'sweeps') ?? 0,
        fee: text(source, 'fee_native'),
        energyUsed: text(source, 'energy_used'),
        energyDelegated: text(source, 'energy_delegated'),
      };
    }),
  };
}
