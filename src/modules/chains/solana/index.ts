import type { Logger } from 'pino';
import { pino } from 'pino';
import type { ChainAdapter } from '../adapter.ts';
import type { AddressDeriver } from '../derivation.ts';
import type { DepositSigningKeys } from '../derivation-check.ts';
import { liveNodeWithoutSeed } from '../node-env.ts';
import { type ChainId, getChain, requiredConfirmations } from '../registry.ts';
import type { SolanaAdapter } from './adapter.ts';
import { MAX_FORWARD_INPUTS, type SolanaChainSettings, type SolanaSettings } from './settings.ts';

/** What the family hands the registry: the adapter, with @solana/kit loaded only when it starts. */
type LazySolanaAdapter = ChainAdapter & { start(): Promise<void>; readiness(): Promise<string | null> };

/**
 * The solana family: one adapter per mode with RPC URLs in the environment, live (SVC_CHAIN_SOLANA_RPC_URL, with
 * SVC_MNEMONIC) and test mode on a real test cluster (SVC_TEST_CHAIN_SOLANA_RPC_URL, replacing the simulator).
 *
 * Detection strategy, by the numbers (10,000 open payments, one RPC endpoint held to 50 requests/s, a payment seen
 * within 5 s):
 * - Per address: each open payment needs `getSignaturesForAddress` on its address and on its token accounts (SOL,
 *   USDC, USDT: 3 per payment), then `getTransaction` per new signature. 10,000 × 3 = 30,000 requests per round; at
 *   50 requests/s one round takes 600 s, 120 times the 5 s budget. To round every 5 s, an endpoint would have to take
 *   6,000 requests/s, and the cost grows with every payment.
 * - Per block (chosen): `getSlot` + `getBlocks` + one `getBlock` (full transactions, `json`) per block. Mainnet makes
 *   ~2.5 blocks/s, so with a 1 s poll that is ~2 + 2.5 ≈ 4.5 requests/s (≈ 270 a minute) whatever the number of open
 *   payments (a hash-set lookup per account key and token balance), and a payment is seen ≤ poll interval + one
 *   block after its block is confirmed (~1.5 s; the `confirmed` commitment itself comes ~0.4–1 s after the slot).
 *   The price is bandwidth: a full mainnet block is ~1–5 MB of JSON (it is what the bench measures) — providers
 *   count getBlock as one request (some as several credits), so check the plan.
 * - With the node's WebSocket (WS_URL, slots.ts): the scan runs on each slot announced, `getSlot` + `getBlock` per
 *   slot and no `getBlocks` (~5.2 requests/s, 312 a minute in the bench), and a payment is seen within a slot of its
 *   block being confirmed (worst 0.43 s from the RPC in the bench, against 1.2 s polling every second).
 * - The Solana Pay `reference` key would let per-address polling drop to one `getSignaturesForAddress` per payment,
 *   still 10,000 per round: not used; the block scan sees every payment whatever wallet made it.
 */
export function createSolanaAdapters(deps: {
  config: {
    solana: SolanaSettings;
    confirmations: Partial<Record<ChainId, number>>;
    liveMnemonic: string | undefined;
  };
  signingKeys: DepositSigningKeys;
  /** Derives the default fee payer of each mode (FEE_PAYER_KEY unset). */
  deriver: Pick<AddressDeriver, 'derivePrivateKey'>;
  logger?: Logger | undefined;
}): LazySolanaAdapter[] {
  const info = getChain('solana');
  if (info === undefined) return [];
  const logger = deps.logger ?? pino({ level: 'silent' });
  const adapters: LazySolanaAdapter[] = [];
  for (const settings of deps.config.solana.chains) {
    if (liveNodeWithoutSeed(settings, deps.config.liveMnemonic, logger)) continue;
    adapters.push(
      lazyAdapter({
        settings,
        requiredConfirmations:
          settings.confirmations ?? requiredConfirmations(info, deps.config.confirmations),
        signingKeys: deps.signingKeys,
        deriver: deps.deriver,
        logger,
      }),
    );
  }
  return adapters;
}

/**
 * The adapter behind a door: @solana/kit and the SPL clients (~75 ms of module loading) are imported when the
 * settlement loop starts the chain, so a program without Solana configured never loads them, and one with it does
 * not wait for them before it answers.
 */
function lazyAdapter(args: {
  settings: SolanaChainSettings;
  requiredConfirmations: number;
  signingKeys: DepositSigningKeys;
  deriver: Pick<AddressDeriver, 'derivePrivateKey'>;
  logger: Logger;
}): LazySolanaAdapter {
  let real: SolanaAdapter | undefined;
  let loading: Promise<SolanaAdapter> | undefined;
  const use = async (): Promise<SolanaAdapter> => {
    if (real !== undefined) return real;
    loading ??= import('./adapter.ts').then((module) => {
      real = module.createSolanaAdapter(args);
      return real;
    });
    return loading;
  };
  return {
    chain: 'solana',
    isTest: args.settings.isTest,
    simulated: false,
    requiredConfirmations: args.requiredConfirmations,
    // Slower while the node's slot notifications arrive (the adapter knows): POLL_MS until it is loaded.
    get pollIntervalMs() {
      return real?.pollIntervalMs ?? args.settings.pollIntervalMs;
    },
    ...(args.settings.wsUrl === undefined
      ? {}
      : {
          onActivity(wake: () => void) {
            // The loop subscribes before it starts the chain: the socket opens once the adapter is loaded.
            let leave: (() => void) | undefined;
            let left = false;
            use().then(
              (adapter) => {
                if (!left) leave = adapter.onActivity?.(wake);
              },
              // Loading failed: start() fails the same way and says so; the chain is polled meanwhile.
              () => {},
            );
            return () => {
              left = true;
              leave?.();
            };
          },
        }),
    maxForwardInputs: MAX_FORWARD_INPUTS,
    addressKey: (address) => address,
    start: async () => (await use()).start(),
    head: async () => (await use()).head(),
    block: async (number) => (await use()).block(number),
    transfers: async (block, watched) => (await use()).transfers(block, watched),
    recheck: async (deposits) => (await use()).recheck(deposits),
    buildForward: async (intent) => (await use()).buildForward(intent),
    bumpForward: async (intent, previous) => (await (await use()).bumpForward?.(intent, previous)) ?? null,
    broadcast: async (rawTx) => (await use()).broadcast(rawTx),
    forwardStatus: async (txHash) => (await use()).forwardStatus(txHash),
    // Refunds from deposit addresses (refund.ts).
    buildRefund: async (intent) => (await use()).buildRefund(intent),
    refundFee: async (asset) => (await use()).refundFee(asset),
    checkRefundAddress: async (address) => (await use()).checkRefundAddress(address),
    readiness: async () => (real === undefined ? null : real.readiness()),
    // Before the chain has started there is no fee payer to read yet.
    feeWallet: async () => (real === undefined ? null : ((await real.feeWallet?.()) ?? null)),
  };
}
