/**
 * The chains and assets the service accepts: one static table, with the real contract addresses (ERC-20, SPL mints,
 * TRC-20) and decimals on each chain's mainnet and on the test network that test mode uses.
 *
 * Sources checked for every token address (August 2026):
 * - USDC, mainnet and testnets: Circle, https://developers.circle.com/stablecoins/usdc-contract-addresses (the testnet
 *   tokens are Circle's own, the ones its faucet https://faucet.circle.com hands out).
 * - USDT mainnet: Tether's deployments as listed by the chains' explorers and token lists (Ethereum 0xdAC1…1ec7,
 *   Polygon PoS 0xc213…8e8F, Arbitrum One 0xFd08…Cbb9, BNB Smart Chain "Binance-Peg BSC-USD" 0x55d3…7955 with 18
 *   decimals, Solana mint Es9v…wNYB, Tron TR7N…Lj6t).
 * - BNB Smart Chain's USDC (0x8AC7…580d) is the Binance-Peg token and, like its USDT, has 18 decimals.
 * - Tether publishes no testnet USDT. Where a test token is used instead, the comment beside it names whose it is.
 * Decimals are the same on mainnet and on the test network for every asset here.
 */

export type ChainId =
  | 'ethereum'
  | 'base'
  | 'polygon'
  | 'arbitrum'
  | 'optimism'
  | 'bsc'
  | 'bitcoin'
  | 'litecoin'
  | 'solana'
  | 'tron';

/** How addresses and transactions work: litecoin is a `bitcoin`-family (UTXO) chain with its own parameters. */
export type ChainFamily = 'evm' | 'bitcoin' | 'solana' | 'tron';

export interface NetworkInfo {
  name: string;
  /** EIP-155 chain id, for EVM chains only (1 mainnet, 11155111 Sepolia, …). */
  evmChainId?: number;
  /** Explorer link with `{tx}` where the transaction hash goes; see `explorerTxLink`. */
  explorerTxUrl: string;
  /** Explorer link with `{address}` where the address goes; see `explorerAddressLink`. */
  explorerAddressUrl: string;
}

export interface AssetInfo {
  code: string;
  name: string;
  decimals: number;
  isNative: boolean;
  /**
   * Token contract (ERC-20 / SPL mint / TRC-20) on mainnet and on the test network; null for a native coin.
   * `testnet` is null where no official or widely used test deployment exists: the asset is then not offered in test
   * mode (see `isAssetAvailable`).
   */
  contract: { mainnet: string; testnet: string | null } | null;
  peggedTo: 'USD' | null;
}

export interface ChainInfo {
  id: ChainId;
  name: string;
  family: ChainFamily;
  mainnet: NetworkInfo;
  testnet: NetworkInfo;
  nativeAsset: AssetInfo;
  /** Native coin first. */
  assets: AssetInfo[];
  /** Blocks on top of the one holding the deposit (the deposit's own block counts as 1) before it is final. */
  defaultConfirmations: number;
  blockTimeSeconds: number;
}

const native = (code: string, name: string, decimals: number): AssetInfo => ({
  code,
  name,
  decimals,
  isNative: true,
  contract: null,
  peggedTo: null,
});

const usdc = (mainnet: string, testnet: string, decimals = 6): AssetInfo => ({
  code: 'USDC',
  name: 'USD Coin',
  decimals,
  isNative: false,
  contract: { mainnet, testnet },
  peggedTo: 'USD',
});

const usdt = (mainnet: string, testnet: string | null, decimals = 6): AssetInfo => ({
  code: 'USDT',
  name: 'Tether USD',
  decimals,
  isNative: false,
  contract: { mainnet, testnet },
  peggedTo: 'USD',
});

const evmNetwork = (name: string, evmChainId: number, explorer: string): NetworkInfo => ({
  name,
  evmChainId,
  explorerTxUrl: `${explorer}/tx/{tx}`,
  explorerAddressUrl: `${explorer}/address/{address}`,
});

function chain(info: Omit<ChainInfo, 'nativeAsset'>): ChainInfo {
  const [nativeAsset] = info.assets;
  if (nativeAsset === undefined || !nativeAsset.isNative)
    throw new Error(`${info.id}: native asset must be first`);
  return { ...info, nativeAsset };
}

/**
 * Default confirmations, in blocks, with the reasoning:
 * - ethereum 12 (~2.5 min): the usual exchange depth; reorgs past a few blocks have not happened since the Merge
 *   (finality proper, two epochs, is ~13 min).
 * - L2s (base, optimism 2 s blocks; arbitrum 0.25 s blocks): reorgs come only from a sequencer fault before the batch
 *   lands on L1; ~5 minutes of blocks (150 / 150 / 1200) gets past the typical batch posting ("safe" head).
 * - polygon 64 (~2 min at 2 s): Heimdall v2 milestones finalize within seconds; 64 blocks adds margin.
 * - bsc 15 (~11 s at 0.75 s): fast finality needs 2 blocks; 15 is the depth exchanges use.
 * - bitcoin 2, litecoin 6 (~15 min at 2.5 min): the common merchant depths.
 * - solana 32: the "finalized" commitment (31+ confirmed slots on top).
 * - tron 19: a block is irreversible once 19 of the 27 super representatives have built on it ("solidified").
 */
export const chains: readonly ChainInfo[] = Object.freeze([
  chain({
    id: 'ethereum',
    name: 'Ethereum',
    family: 'evm',
    mainnet: evmNetwork('Ethereum Mainnet', 1, 'https://etherscan.io'),
    testnet: evmNetwork('Sepolia', 11155111, 'https://sepolia.etherscan.io'),
    assets: [
      native('ETH', 'Ether', 18),
      usdc('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', '0x1c7D4B196Cb0C7B01d743Fbc6116a902379C7238'),
      // Sepolia: Aave V3's faucet USDT (6 decimals), bgd-labs/aave-address-book AaveV3Sepolia.USDT_UNDERLYING.
      usdt('0xdAC17F958D2ee523a2206206994597C13D831ec7', '0xaA8E23Fb1079EA71e0a56F48a2aA51851D8433D0'),
    ],
    defaultConfirmations: 12,
    blockTimeSeconds: 12,
  }),
  chain({
    id: 'base',
    name: 'Base',
    family: 'evm',
    mainnet: evmNetwork('Base', 8453, 'https://basescan.org'),
    testnet: evmNetwork('Base Sepolia', 84532, 'https://sepolia.basescan.org'),
    assets: [
      native('ETH', 'Ether', 18),
      usdc('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913', '0x036CbD53842c5426634e7929541eC2318f3dCF7e'),
    ],
    defaultConfirmations: 150,
    blockTimeSeconds: 2,
  }),
  chain({
    id: 'polygon',
    name: 'Polygon PoS',
    family: 'evm',
    mainnet: evmNetwork('Polygon Mainnet', 137, 'https://polygonscan.com'),
    testnet: evmNetwork('Polygon Amoy', 80002, 'https://amoy.polygonscan.com'),
    assets: [
      native('POL', 'Polygon Ecosystem Token', 18),
      usdc('0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', '0x41E94Eb019C0762f9Bfcf9Fb1E58725BfB0e7582'),
      // Amoy: neither Tether nor Aave (which has no Amoy market) publishes a test USDT, and no widely used one was
      // found, so polygon USDT is not offered in test mode.
      usdt('0xc2132D05D31c914a87C6611C10748AEb04B58e8F', null),
    ],
    defaultConfirmations: 64,
    blockTimeSeconds: 2,
  }),
  chain({
    id: 'arbitrum',
    name: 'Arbitrum One',
    family: 'evm',
    mainnet: evmNetwork('Arbitrum One', 42161, 'https://arbiscan.io'),
    testnet: evmNetwork('Arbitrum Sepolia', 421614, 'https://sepolia.arbiscan.io'),
    assets: [
      native('ETH', 'Ether', 18),
      usdc('0xaf88d065e77c8cC2239327C5EDb3A432268e5831', '0x75faf114eafb1BDbe2F0316DF893fd58CE46AA4d'),
      // Arbitrum Sepolia: Orderly Network's test USDT (6 decimals), listed in its docs
      // (https://orderly.network/docs/build-on-omnichain/addresses) and used by many testnet apps.
      usdt('0xFd086bC7CD5C481DCC9C85ebE478A1C0b69FCbb9', '0xEf54C221Fc94517877F0F40eCd71E0A3866D66C2'),
    ],
    defaultConfirmations: 1200,
    blockTimeSeconds: 0.25,
  }),
  chain({
    id: 'optimism',
    name: 'OP Mainnet',
    family: 'evm',
    mainnet: evmNetwork('OP Mainnet', 10, 'https://optimistic.etherscan.io'),
    testnet: evmNetwork('OP Sepolia', 11155420, 'https://sepolia-optimism.etherscan.io'),
    assets: [
      native('ETH', 'Ether', 18),
      usdc('0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85', '0x5fd84259d66Cd46123540766Be93DFE6D43130D7'),
    ],
    defaultConfirmations: 150,
    blockTimeSeconds: 2,
  }),
  chain({
    id: 'bsc',
    name: 'BNB Smart Chain',
    family: 'evm',
    mainnet: evmNetwork('BNB Smart Chain', 56, 'https://bscscan.com'),
    testnet: evmNetwork('BNB Smart Chain Testnet', 97, 'https://testnet.bscscan.com'),
    assets: [
      native('BNB', 'BNB', 18),
      // Testnet: no official deployments; these are the widely used BSC-testnet peg tokens, 18 decimals like mainnet
      // (USDC 0x6454…8930 is the one PancakeSwap's SDK lists as USDC_TESTNET; USDT 0x3376…4dDd is the common one).
      usdc('0x8AC76a51cc950d9822D68b83fE1Ad97B32Cd580d', '0x64544969ed7EBf5f083679233325356EbE738930', 18),
      usdt('0x55d398326f99059fF775485246999027B3197955', '0x337610d27c682E347C9cD60BD4b3b107C9d34dDd', 18),
    ],
    defaultConfirmations: 15,
    blockTimeSeconds: 0.75,
  }),
  chain({
    id: 'bitcoin',
    name: 'Bitcoin',
    family: 'bitcoin',
    mainnet: {
      name: 'Bitcoin Mainnet',
      explorerTxUrl: 'https://mempool.space/tx/{tx}',
      explorerAddressUrl: 'https://mempool.space/address/{address}',
    },
    testnet: {
      name: 'Bitcoin Testnet4',
      explorerTxUrl: 'https://mempool.space/testnet4/tx/{tx}',
      explorerAddressUrl: 'https://mempool.space/testnet4/address/{address}',
    },
    assets: [native('BTC', 'Bitcoin', 8)],
    defaultConfirmations: 2,
    blockTimeSeconds: 600,
  }),
  chain({
    id: 'litecoin',
    name: 'Litecoin',
    family: 'bitcoin',
    mainnet: {
      name: 'Litecoin Mainnet',
      explorerTxUrl: 'https://litecoinspace.org/tx/{tx}',
      explorerAddressUrl: 'https://litecoinspace.org/address/{address}',
    },
    testnet: {
      name: 'Litecoin Testnet',
      explorerTxUrl: 'https://litecoinspace.org/testnet/tx/{tx}',
      explorerAddressUrl: 'https://litecoinspace.org/testnet/address/{address}',
    },
    assets: [native('LTC', 'Litecoin', 8)],
    defaultConfirmations: 6,
    blockTimeSeconds: 150,
  }),
  chain({
    id: 'solana',
    name: 'Solana',
    family: 'solana',
    mainnet: {
      name: 'Solana Mainnet Beta',
      explorerTxUrl: 'https://explorer.solana.com/tx/{tx}',
      explorerAddressUrl: 'https://explorer.solana.com/address/{address}',
    },
    testnet: {
      name: 'Solana Devnet',
      explorerTxUrl: 'https://explorer.solana.com/tx/{tx}?cluster=devnet',
      explorerAddressUrl: 'https://explorer.solana.com/address/{address}?cluster=devnet',
    },
    assets: [
      native('SOL', 'Solana', 9),
      usdc('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'),
      // Devnet: Saber's devnet USDT mint (6 decimals), the one devnet apps and faucets commonly use.
      usdt('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', 'EJwZgeZrdC8TXTQbQBoL6bfuAnFUUy1PVCMB4DYPzVaS'),
    ],
    defaultConfirmations: 32,
    blockTimeSeconds: 0.4,
  }),
  chain({
    id: 'tron',
    name: 'Tron',
    family: 'tron',
    mainnet: {
      name: 'Tron Mainnet',
      explorerTxUrl: 'https://tronscan.org/#/transaction/{tx}',
      explorerAddressUrl: 'https://tronscan.org/#/address/{address}',
    },
    testnet: {
      name: 'Tron Nile',
      explorerTxUrl: 'https://nile.tronscan.org/#/transaction/{tx}',
      explorerAddressUrl: 'https://nile.tronscan.org/#/address/{address}',
    },
    assets: [
      native('TRX', 'Tronix', 6),
      // Nile: the USDT contract Tron's own wallet-cli uses for its USDT commands on Nile (6 decimals).
      usdt('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf'),
    ],
    defaultConfirmations: 19,
    blockTimeSeconds: 3,
  }),
]);

export const chainIds: readonly ChainId[] = Object.freeze(chains.map((c) => c.id));

const byId = new Map<string, ChainInfo>(chains.map((c) => [c.id, c]));

export function isChainId(id: string): id is ChainId {
  return byId.has(id);
}

/** The chain with this id (exact, lower-case), or undefined. */
export function getChain(id: string): ChainInfo | undefined {
  return byId.get(id);
}

/** The chain's asset with this code, case-insensitively ("usdc" finds USDC), or undefined. */
export function getAsset(chain: ChainInfo, code: string): AssetInfo | undefined {
  const wanted = code.toUpperCase();
  return chain.assets.find((asset) => asset.code === wanted);
}

/** The network a mode uses: the test network in test mode, mainnet in live mode. */
export function networkOf(chain: ChainInfo, isTest: boolean): NetworkInfo {
  return isTest ? chain.testnet : chain.mainnet;
}

/** The token contract (mint) for a mode; null for a native coin or a token without a deployment in that mode. */
export function contractOf(asset: AssetInfo, isTest: boolean): string | null {
  if (asset.contract === null) return null;
  return isTest ? asset.contract.testnet : asset.contract.mainnet;
}

/** Whether payments in this asset can be taken in this mode (false for a token with no test deployment). */
export function isAssetAvailable(asset: AssetInfo, isTest: boolean): boolean {
  return asset.isNative || contractOf(asset, isTest) !== null;
}

/** Confirmations in effect for a chain: the configured override (SVC_CONFIRMATIONS) or the default. */
export function requiredConfirmations(chain: ChainInfo, overrides: Partial<Record<ChainId, number>>): number {
  return overrides[chain.id] ?? chain.defaultConfirmations;
}

/**
 * The derivation index space a chain draws from. All EVM chains derive from the same path (m/44'/60'/0'/0/i), so the
 * same index gives the same address on every EVM chain: allocate EVM indices from one shared counter so that no two
 * payments, on any EVM chain, ever share an address (a payer sending on the wrong chain then still reaches a unique
 * address). Every other chain has its own space.
 */
export function indexSpace(chainId: ChainId): string {
  return getChain(chainId)?.family === 'evm' ? 'evm' : chainId;
}

export function explorerTxLink(network: NetworkInfo, txHash: string): string {
  return network.explorerTxUrl.replace('{tx}', encodeURIComponent(txHash));
}

export function explorerAddressLink(network: NetworkInfo, address: string): string {
  return network.explorerAddressUrl.replace('{address}', encodeURIComponent(address));
}
