import type { ChainInfo } from './model.ts';

/**
 * Block explorer links for transactions and addresses. Live payments link to each chain's main network explorer,
 * test payments to its test network explorer (a transaction of the built-in simulated chain is not on any explorer).
 */

interface Explorer {
  tx: (hash: string) => string;
  address: (address: string) => string;
}

const paths = (base: string, tx = '/tx/', address = '/address/', suffix = ''): Explorer => ({
  tx: (hash) => `${base}${tx}${encodeURIComponent(hash)}${suffix}`,
  address: (value) => `${base}${address}${encodeURIComponent(value)}${suffix}`,
});

const live: Record<string, Explorer> = {
  ethereum: paths('https://etherscan.io'),
  base: paths('https://basescan.org'),
  polygon: paths('https://polygonscan.com'),
  arbitrum: paths('https://arbiscan.io'),
  optimism: paths('https://optimistic.etherscan.io'),
  bsc: paths('https://bscscan.com'),
  bitcoin: paths('https://mempool.space'),
  litecoin: paths('https://litecoinspace.org'),
  solana: paths('https://explorer.solana.com'),
  tron: paths('https://tronscan.org', '/#/transaction/', '/#/address/'),
};

const test: Record<string, Explorer> = {
  ethereum: paths('https://sepolia.etherscan.io'),
  base: paths('https://sepolia.basescan.org'),
  polygon: paths('https://amoy.polygonscan.com'),
  arbitrum: paths('https://sepolia.arbiscan.io'),
  optimism: paths('https://sepolia-optimism.etherscan.io'),
  bsc: paths('https://testnet.bscscan.com'),
  bitcoin: paths('https://mempool.space/testnet4'),
  litecoin: paths('https://litecoinspace.org/testnet'),
  solana: paths('https://explorer.solana.com', '/tx/', '/address/', '?cluster=devnet'),
  tron: paths('https://nile.tronscan.org', '/#/transaction/', '/#/address/'),
};

function fromRegistry(
  chains: ChainInfo[] | undefined,
  chain: string,
  isTest: boolean,
  kind: 'txUrl' | 'addressUrl',
  value: string,
): string | null {
  const network = chains?.find((known) => known.id === chain)?.[isTest ? 'test' : 'live'];
  const template = network?.[kind] ?? null;
  if (template === null) return null;
  return template.replace(kind === 'txUrl' ? '{tx}' : '{address}', encodeURIComponent(value));
}

/** The explorer page of a transaction: from GET /v1/chains when it names one, else from the table above. */
export function txUrl(
  chain: string | null,
  isTest: boolean,
  hash: string | null,
  chains?: ChainInfo[],
): string | null {
  if (chain === null || hash === null || hash === '') return null;
  return (
    fromRegistry(chains, chain, isTest, 'txUrl', hash) ?? (isTest ? test : live)[chain]?.tx(hash) ?? null
  );
}

export function addressUrl(
  chain: string | null,
  isTest: boolean,
  address: string | null,
  chains?: ChainInfo[],
): string | null {
  if (chain === null || address === null || address === '') return null;
  return (
    fromRegistry(chains, chain, isTest, 'addressUrl', address) ??
    (isTest ? test : live)[chain]?.address(address) ??
    null
  );
}
