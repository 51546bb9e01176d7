import type { Logger } from 'pino';
import type { Db } from '../../db/client.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ChainAdapter, FeeWallet, OutgoingTransactions } from './adapter.ts';
import { createBitcoinAdapters } from './bitcoin/index.ts';
import { type BitcoinSettings, testAddressSpelling as bitcoinTestSpelling } from './bitcoin/settings.ts';
import { type ConfirmationsConfig, confirmationsFor } from './confirmations.ts';
import type { AddressDeriver, TestAddressSpelling } from './derivation.ts';
import type { DepositSigningKeys } from './derivation-check.ts';
import { createEvmAdapters } from './evm/index.ts';
import type { EvmSettings } from './evm/settings.ts';
import { type ChainId, chainIds } from './registry.ts';
import { createSimulatedChain, type SimulatedChain } from './simulated/chain.ts';
import { createSolanaAdapters } from './solana/index.ts';
import type { SolanaSettings } from './solana/settings.ts';
import { createTronAdapters } from './tron/index.ts';
import type { TronSettings } from './tron/settings.ts';

/**
 * The family registry: the one file that knows the chain families (a folder each under chains/). It builds their
 * adapters and hands out their environment parsers; nothing else imports a family's folder (npm run lint says so).
 * A new family adds its folder and its lines here.
 */

export { type BitcoinSettings, parseBitcoinChainSettings } from './bitcoin/settings.ts';
export { type EvmSettings, parseEvmChainSettings } from './evm/settings.ts';
export type { SimulatedChain } from './simulated/chain.ts';
export { parseSolanaChainSettings, type SolanaSettings } from './solana/settings.ts';
export { parseTronSettings, type TronSettings } from './tron/settings.ts';

/** What the families' adapters are built from (a part of the program's configuration). */
export interface ChainAdaptersConfig extends ConfirmationsConfig {
  evm?: EvmSettings;
  bitcoin?: BitcoinSettings;
  solana?: SolanaSettings;
  tron?: TronSettings;
  liveMnemonic?: string | undefined;
}

/**
 * How test-mode deposit addresses are spelled per chain, from the configured test networks (a bitcoin-family chain
 * whose test node is configured as regtest: bcrt1…/rltc1…). Both derivations, on every thread, are given this one
 * answer; the adapters read the same settings for what they record and sweep.
 */
export function testAddressSpelling(config: Pick<ChainAdaptersConfig, 'bitcoin'>): TestAddressSpelling {
  return config.bitcoin === undefined ? {} : bitcoinTestSpelling(config.bitcoin.chains);
}

/** The chain adapters of both modes. */
export interface ChainAdapters {
  /** Every adapter to run watchers and forwarders for. */
  all(): ChainAdapter[];
  /** The adapter of a chain in a mode, if that chain is connected in that mode. */
  get(chain: string, isTest: boolean): ChainAdapter | undefined;
  /** The simulated chain behind test mode on `chain`. */
  simulated(chain: string): SimulatedChain | undefined;
  /** /readyz detail of every connected node: null when all answer and keep up, else each problem. */
  readiness(): Promise<string | null>;
  /**
   * The fee-paying wallets of the connected chains and their refund wallets (operators see them), each with its
   * balance read now.
   */
  feeWallets(): Promise<Array<{ chain: ChainId; isTest: boolean; wallet: FeeWallet }>>;
}

/**
 * Test mode runs every chain on the built-in simulated chain (no real funds move) unless a real test network is
 * configured for it; live mode runs the chains whose family has an adapter and whose nodes are configured.
 */
export function createChainAdapters(deps: {
  db: Db;
  clock: Clock;
  config: ChainAdaptersConfig;
  /** The program's one deriver: deposit addresses and their signing keys. */
  deriver: AddressDeriver;
  /** Deposit keys for sweeps, each checked against its deposit address first. */
  signingKeys: DepositSigningKeys;
  logger?: Logger | undefined;
  /** Signed refunds (the refunds module's), which adapters that track nonces read beside the forwards. */
  outgoing?: OutgoingTransactions | undefined;
}): ChainAdapters {
  const simulated = new Map<string, SimulatedChain>(
    chainIds.map((chain: ChainId) => [
      chain,
      createSimulatedChain({
        db: deps.db,
        clock: deps.clock,
        chain,
        requiredConfirmations: confirmationsFor(deps.config, chain, true),
        signingKeys: deps.signingKeys,
      }),
    ]),
  );
  const live = new Map<string, ChainAdapter>();
  // Real nodes: live mode on EVM, Bitcoin-family, Solana and Tron chains with SVC_CHAIN_<NAME>_RPC_URL, and test mode on a real test network (which
  // then replaces the simulated chain for that chain's test payments) with SVC_TEST_CHAIN_<NAME>_RPC_URL.
  const testNetworks = new Map<string, ChainAdapter>();
  const { evm } = deps.config;
  if (evm !== undefined) {
    const evmAdapters = createEvmAdapters({
      db: deps.db,
      config: {
        evm,
        confirmations: deps.config.confirmations,
        liveMnemonic: deps.config.liveMnemonic,
      },
      deriver: deps.deriver,
      signingKeys: deps.signingKeys,
      logger: deps.logger,
      outgoing: deps.outgoing,
    });
    for (const adapter of evmAdapters) (adapter.isTest ? testNetworks : live).set(adapter.chain, adapter);
  }
  const { bitcoin } = deps.config;
  if (bitcoin !== undefined) {
    const bitcoinAdapters = createBitcoinAdapters({
      config: { bitcoin, confirmations: deps.config.confirmations, liveMnemonic: deps.config.liveMnemonic },
      signingKeys: deps.signingKeys,
      logger: deps.logger,
    });
    for (const adapter of bitcoinAdapters) (adapter.isTest ? testNetworks : live).set(adapter.chain, adapter);
  }
  const { solana } = deps.config;
  if (solana !== undefined) {
    const solanaAdapters = createSolanaAdapters({
      config: { solana, confirmations: deps.config.confirmations, liveMnemonic: deps.config.liveMnemonic },
      signingKeys: deps.signingKeys,
      deriver: deps.deriver,
      logger: deps.logger,
    });
    for (const adapter of solanaAdapters) (adapter.isTest ? testNetworks : live).set(adapter.chain, adapter);
  }
  const { tron } = deps.config;
  if (tron !== undefined) {
    const tronAdapters = createTronAdapters({
      db: deps.db,
      config: { tron, confirmations: deps.config.confirmations, liveMnemonic: deps.config.liveMnemonic },
      deriver: deps.deriver,
      signingKeys: deps.signingKeys,
      logger: deps.logger,
      outgoing: deps.outgoing,
    });
    for (const adapter of tronAdapters) (adapter.isTest ? testNetworks : live).set(adapter.chain, adapter);
  }
  const all = () => [
    ...[...simulated.values()].filter((adapter) => !testNetworks.has(adapter.chain)),
    ...testNetworks.values(),
    ...live.values(),
  ];
  return {
    all,
    get: (chain, isTest) => (isTest ? (testNetworks.get(chain) ?? simulated.get(chain)) : live.get(chain)),
    simulated: (chain) => simulated.get(chain),
    async feeWallets() {
      const found = await Promise.all(
        all().map(async (adapter) => {
          const wallets = [
            (await adapter.feeWallet?.()) ?? null,
            (await adapter.refundWalletView?.()) ?? null,
          ];
          return wallets.flatMap((wallet) =>
            wallet === null ? [] : [{ chain: adapter.chain, isTest: adapter.isTest, wallet }],
          );
        }),
      );
      return found.flat();
    },
    async readiness() {
      const problems = await Promise.all(all().map((adapter) => adapter.readiness?.() ?? null));
      const failing = problems.filter((problem): problem is string => problem !== null);
      return failing.length === 0 ? null : failing.join('; ');
    },
  };
}
